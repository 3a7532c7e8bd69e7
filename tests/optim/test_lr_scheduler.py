"""Schedulers against torch: learning-rate (and momentum) sequences over many steps,
state_dict keys, save -> load -> continue; ReduceLROnPlateau inside SequentialLR and
ChainedScheduler (beyond torch)."""
import copy
import math
import warnings

import pytest
import torch

import ember

STEPS = 120
METRICS = [1.0 / (1 + 0.1 * i) if i < 30 else 0.75 + 0.01 * math.sin(i) for i in range(STEPS)]


def _optimizer(lib, kind="SGD"):
    w = lib.zeros(3, requires_grad=True)
    b = lib.zeros(2, requires_grad=True)
    groups = [{"params": [w]}, {"params": [b], "lr": 0.05}]
    if kind == "Adam":
        return lib.optim.Adam(groups, lr=0.1)
    return lib.optim.SGD(groups, lr=0.1, momentum=0.9)


def _sched(lib):
    return lib.optim.lr_scheduler


CASES = {
    "LambdaLR": lambda L, o: _sched(L).LambdaLR(o, [lambda e: 0.97 ** e, lambda e: 1 / (1 + e)]),
    "MultiplicativeLR": lambda L, o: _sched(L).MultiplicativeLR(o, lambda e: 0.95),
    "StepLR": lambda L, o: _sched(L).StepLR(o, step_size=7, gamma=0.5),
    "MultiStepLR": lambda L, o: _sched(L).MultiStepLR(o, milestones=[10, 30, 30, 80], gamma=0.3),
    "ConstantLR": lambda L, o: _sched(L).ConstantLR(o, factor=0.25, total_iters=9),
    "LinearLR": lambda L, o: _sched(L).LinearLR(o, start_factor=0.1, end_factor=0.9,
                                                total_iters=40),
    "ExponentialLR": lambda L, o: _sched(L).ExponentialLR(o, gamma=0.97),
    "PolynomialLR": lambda L, o: _sched(L).PolynomialLR(o, total_iters=50, power=1.7),
    "CosineAnnealingLR": lambda L, o: _sched(L).CosineAnnealingLR(o, T_max=17, eta_min=0.001),
    "WarmRestarts": lambda L, o: _sched(L).CosineAnnealingWarmRestarts(o, T_0=5, T_mult=2,
                                                                       eta_min=0.002),
    "CyclicLR": lambda L, o: _sched(L).CyclicLR(o, 0.01, [0.1, 0.2], step_size_up=7,
                                                step_size_down=11),
    "CyclicLR2": lambda L, o: _sched(L).CyclicLR(o, 0.01, 0.1, step_size_up=5,
                                                 mode="triangular2"),
    "CyclicExp": lambda L, o: _sched(L).CyclicLR(o, 0.01, 0.1, step_size_up=6, mode="exp_range",
                                                 gamma=0.99),
    "OneCycleLR": lambda L, o: _sched(L).OneCycleLR(o, max_lr=[0.5, 0.3], total_steps=STEPS),
    "OneCycle3": lambda L, o: _sched(L).OneCycleLR(o, max_lr=0.5, epochs=12, steps_per_epoch=10,
                                                   anneal_strategy="linear", three_phase=True),
    "SequentialLR": lambda L, o: _sched(L).SequentialLR(
        o, [_sched(L).LinearLR(o, start_factor=0.2, total_iters=10),
            _sched(L).CosineAnnealingLR(o, T_max=40)], milestones=[12]),
    "ChainedScheduler": lambda L, o: _sched(L).ChainedScheduler(
        [_sched(L).ExponentialLR(o, gamma=0.98), _sched(L).StepLR(o, step_size=9, gamma=0.5)]),
    "ReduceLROnPlateau": lambda L, o: _sched(L).ReduceLROnPlateau(o, patience=3, factor=0.5,
                                                                  cooldown=2, min_lr=[0, 0.01]),
}


def _momenta(opt):
    return [g.get("momentum", g.get("betas", (None,))[0]) for g in opt.param_groups]


def _run(lib, name, kind="SGD", steps=STEPS, opt=None, sched=None, start=0):
    opt = opt or _optimizer(lib, kind)
    sched = sched or CASES[name](lib, opt)
    seen = []
    for i in range(start, steps):
        opt.step()
        if name == "ReduceLROnPlateau":
            sched.step(METRICS[i])
        else:
            sched.step()
        seen.append((list(sched.get_last_lr()), [g["lr"] for g in opt.param_groups],
                     _momenta(opt)))
    return seen, opt, sched


@pytest.mark.parametrize("kind", ["SGD", "Adam"])
@pytest.mark.parametrize("name", list(CASES))
def test_sequence_matches_torch(name, kind):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e_seen, _, e_sched = _run(ember, name, kind)
        t_seen, _, t_sched = _run(torch, name, kind)
    assert e_seen == t_seen


@pytest.mark.parametrize("name", list(CASES))
def test_state_dict_keys_match_torch(name):
    _, _, e_sched = _run(ember, name, steps=5)
    _, _, t_sched = _run(torch, name, steps=5)
    assert sorted(e_sched.state_dict()) == sorted(t_sched.state_dict())


@pytest.mark.parametrize("name", list(CASES))
def test_save_load_continue(name):
    full, _, _ = _run(ember, name)
    first, opt, sched = _run(ember, name, steps=40)
    saved_opt, saved_sched = copy.deepcopy(opt.state_dict()), copy.deepcopy(sched.state_dict())
    opt2 = _optimizer(ember)
    sched2 = CASES[name](ember, opt2)  # build both, then load both (the usual resume)
    opt2.load_state_dict(saved_opt)
    sched2.load_state_dict(saved_sched)
    rest, _, _ = _run(ember, name, opt=opt2, sched=sched2, start=40)
    assert first + rest == full


def test_get_lr_outside_step_warns_and_order_warning():
    opt = _optimizer(ember)
    sched = ember.optim.lr_scheduler.StepLR(opt, 3)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()
    with pytest.warns(UserWarning, match="before `optimizer.step\\(\\)`"):
        sched.step()


def test_constructor_errors_match_torch():
    makers = [
        lambda L, o: _sched(L).StepLR("not an optimizer", 3),
        lambda L, o: _sched(L).LinearLR(o, start_factor=0),
        lambda L, o: _sched(L).ConstantLR(o, factor=2.0),
        lambda L, o: _sched(L).LambdaLR(o, [lambda e: 1.0]),
        lambda L, o: _sched(L).StepLR(o, 3, last_epoch=5),
        lambda L, o: _sched(L).CosineAnnealingWarmRestarts(o, T_0=0),
        lambda L, o: _sched(L).OneCycleLR(o, max_lr=0.1),
        lambda L, o: _sched(L).ReduceLROnPlateau(o, factor=1.5),
        lambda L, o: _sched(L).SequentialLR(o, [_sched(L).StepLR(o, 2)], milestones=[3]),
    ]
    for make in makers:
        errors = []
        for lib in (torch, ember):
            with pytest.raises(Exception) as info:
                make(lib, _optimizer(lib))
            errors.append((info.type, str(info.value)))
        assert errors[0] == errors[1]


def _plateau_reference(metrics_from, warm_steps):
    """torch: LinearLR warm-up, then a ReduceLROnPlateau created at the milestone."""
    opt = _optimizer(torch)
    warm = torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.2, total_iters=warm_steps)
    lrs = []
    plateau = None
    for i in range(STEPS):
        opt.step()
        if i + 1 < warm_steps:
            warm.step()
        else:
            if plateau is None:
                if i + 1 == warm_steps:
                    for g, base in zip(opt.param_groups, warm.base_lrs):
                        g["lr"] = base
                plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=2)
            plateau.step(metrics_from[i])
        lrs.append([g["lr"] for g in opt.param_groups])
    return lrs


def test_plateau_inside_sequential_lr():
    opt = _optimizer(ember)
    S = ember.optim.lr_scheduler
    sched = S.SequentialLR(opt, [S.LinearLR(opt, start_factor=0.2, total_iters=5),
                                 S.ReduceLROnPlateau(opt, patience=2)], milestones=[5])
    lrs = []
    for i in range(STEPS):
        opt.step()
        sched.step(METRICS[i])
        lrs.append([g["lr"] for g in opt.param_groups])
        assert sched.get_last_lr() == lrs[-1]
    assert lrs == _plateau_reference(METRICS, 5)
    assert lrs[-1][0] < 0.1  # the plateau did reduce


def test_plateau_inside_chained_scheduler():
    opt = _optimizer(ember)
    S = ember.optim.lr_scheduler
    chain = S.ChainedScheduler([S.ExponentialLR(opt, gamma=0.99),
                                S.ReduceLROnPlateau(opt, patience=2, factor=0.5)])
    t_opt = _optimizer(torch)
    T = torch.optim.lr_scheduler
    t_exp, t_plateau = T.ExponentialLR(t_opt, gamma=0.99), T.ReduceLROnPlateau(t_opt, patience=2,
                                                                               factor=0.5)
    for i in range(STEPS):
        opt.step()
        t_opt.step()
        chain.step(METRICS[i])
        t_exp.step()
        t_plateau.step(METRICS[i])
        assert chain.get_last_lr() == [g["lr"] for g in t_opt.param_groups]
    with pytest.raises(TypeError, match="step\\(metrics\\)"):
        chain.step()
