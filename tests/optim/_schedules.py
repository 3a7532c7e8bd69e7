"""Shared by the scheduler tests (tests/optim/test_lr_*.py): two-group optimizers, a run of
STEPS scheduler steps that records the learning rates and momenta, and the three checks every
scheduler gets against torch (sequence, state_dict keys, save -> load -> continue)."""
import copy
import math
import warnings

import pytest
import torch

import ember

STEPS = 120
METRICS = [1.0 / (1 + 0.1 * i) if i < 30 else 0.75 + 0.01 * math.sin(i) for i in range(STEPS)]


def optimizer(lib, kind="SGD"):
    w = lib.zeros(3, requires_grad=True)
    b = lib.zeros(2, requires_grad=True)
    groups = [{"params": [w]}, {"params": [b], "lr": 0.05}]
    if kind == "Adam":
        return lib.optim.Adam(groups, lr=0.1)
    return lib.optim.SGD(groups, lr=0.1, momentum=0.9)


def sched(lib):
    return lib.optim.lr_scheduler


def _momenta(opt):
    return [g.get("momentum", g.get("betas", (None,))[0]) for g in opt.param_groups]


def run(lib, make, kind="SGD", steps=STEPS, opt=None, sched=None, start=0):
    """Steps ``make(lib, optimizer)``'s scheduler; ReduceLROnPlateau is given METRICS."""
    opt = opt or optimizer(lib, kind)
    sched = sched or make(lib, opt)
    plateau = type(sched).__name__ == "ReduceLROnPlateau"
    seen = []
    for i in range(start, steps):
        opt.step()
        if plateau:
            sched.step(METRICS[i])
        else:
            sched.step()
        seen.append((list(sched.get_last_lr()), [g["lr"] for g in opt.param_groups],
                     _momenta(opt)))
    return seen, opt, sched


def check_sequence(make, kind):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e_seen, _, _ = run(ember, make, kind)
        t_seen, _, _ = run(torch, make, kind)
    assert e_seen == t_seen


def check_state_dict_keys(make):
    _, _, e_sched = run(ember, make, steps=5)
    _, _, t_sched = run(torch, make, steps=5)
    assert sorted(e_sched.state_dict()) == sorted(t_sched.state_dict())


def check_save_load_continue(make):
    full, _, _ = run(ember, make)
    first, opt, sched = run(ember, make, steps=40)
    saved_opt, saved_sched = copy.deepcopy(opt.state_dict()), copy.deepcopy(sched.state_dict())
    opt2 = optimizer(ember)
    sched2 = make(ember, opt2)  # build both, then load both (the usual resume)
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(saved_sched)
    rest, _, _ = run(ember, make, opt=opt2, sched=sched2, start=40)
    assert first + rest == full


def check_constructor_errors(makers):
    for make in makers:
        errors = []
        for lib in (torch, ember):
            with pytest.raises(Exception) as info:
                make(lib, optimizer(lib))
            errors.append((info.type, str(info.value)))
        assert errors[0] == errors[1]
