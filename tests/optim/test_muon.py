"""Muon (ember/optim/muon.py) against torch 2.13: trajectories of tall and wide matrices (its
bfloat16 Newton-Schulz reproduced), state_dict layout, save -> load -> continue, argument and
shape errors; bfloat16 and float16 parameters bit for bit (see _low)."""
import copy

import numpy as np
import pytest
import torch
from _low import low_precision_tests

import ember

SHAPES = [(6, 4), (3, 5), (4, 4)]


def _arrays(seed):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in SHAPES]


def _run(lib, kwargs, steps=(0, 10), start=None, state=None):
    params = [lib.tensor(a.copy(), requires_grad=True) for a in (start or _arrays(0))]
    opt = lib.optim.Muon([{"params": params[:2]}, {"params": params[2:], "lr": 0.01}],
                         **kwargs)
    if state is not None:
        opt.load_state_dict(state)
    targets = _arrays(1)
    for step in range(*steps):
        opt.zero_grad()
        loss = sum(((p - lib.tensor(t)) ** 2).sum() * (1 + i) for i, (p, t) in
                   enumerate(zip(params, targets)) if not (i == 2 and step % 3 == 1))
        loss.backward()
        opt.step()
    return [p.detach().numpy().copy() for p in params], opt


@pytest.mark.parametrize("kwargs", [dict(lr=0.02), dict(lr=0.05, nesterov=False, momentum=0.9,
                                                        adjust_lr_fn="match_rms_adamw",
                                                        weight_decay=0.01, ns_steps=3)])
def test_trajectory_matches_torch(kwargs):
    ours, e_opt = _run(ember, kwargs)
    theirs, t_opt = _run(torch, kwargs)
    for a, b, start in zip(ours, theirs, _arrays(0)):
        assert np.abs(b - start).max() > 0.01  # the run moved
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-6)
    e_sd, t_sd = e_opt.state_dict(), t_opt.state_dict()
    assert e_sd["param_groups"] == t_sd["param_groups"]
    assert {k: list(v) for k, v in e_sd["state"].items()} == \
        {k: list(v) for k, v in t_sd["state"].items()}


def test_save_load_continue():
    straight, _ = _run(ember, dict(lr=0.02))
    half, opt = _run(ember, dict(lr=0.02), steps=(0, 5))
    again, _ = _run(ember, dict(lr=0.02), steps=(5, 10), start=half,
                    state=copy.deepcopy(opt.state_dict()))
    for a, b in zip(straight, again):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("make", [
    lambda lib: lib.optim.Muon([lib.zeros(3, requires_grad=True)]),
    lambda lib: lib.optim.Muon([lib.zeros(2, 2, requires_grad=True)], lr=-1.0),
    lambda lib: lib.optim.Muon([lib.zeros(2, 2, requires_grad=True)], momentum=-0.5),
    lambda lib: lib.optim.Muon([lib.zeros(2, 2, requires_grad=True)], weight_decay=-0.1),
    lambda lib: lib.optim.Muon([lib.zeros(2, 2, requires_grad=True)], adjust_lr_fn="other"),
])
def test_errors(make):
    messages = []
    for lib in (ember, torch):
        with pytest.raises(ValueError) as info:
            make(lib)
        messages.append(str(info.value).replace("torch.", "ember."))
    assert messages[0] == messages[1]


def test_too_many_newton_schulz_steps():
    for lib in (ember, torch):
        p = lib.ones(2, 3, requires_grad=True)
        p.grad = lib.ones(2, 3)
        with pytest.raises(ValueError, match="Number of steps must be less than 100"):
            lib.optim.Muon([p], ns_steps=100).step()


# bfloat16 and float16 parameters: the momentum lerps and the final mul_/add_ round as torch's
# ops (a bfloat16 update added to a float16 parameter computes in float32, rounds once; to a
# bfloat16 one, transposed for a tall matrix, in torch's scalar loop); without nesterov torch's
# Newton-Schulz divides a bfloat16 momentum buffer itself by its norm (.bfloat16() returns it)
LOW_SHAPES = [(8, 8), (4, 16), (16, 4)]

test_low_precision_matches_torch = low_precision_tests(
    [("Muon", dict(lr=0.01))], shapes=LOW_SHAPES, foreach=(None,))

# (not yet float16 here: torch adds the bfloat16 update to a float16 parameter in float32 with a
# fused multiply-add on its vector lanes, 7 of 64 elements differ)
test_low_precision_without_nesterov = low_precision_tests(
    [("Muon", dict(lr=0.02, weight_decay=0.3, momentum=0.8, nesterov=False,
                   adjust_lr_fn="match_rms_adamw"))], shapes=LOW_SHAPES, foreach=(None,),
    dtypes=("bfloat16",))
