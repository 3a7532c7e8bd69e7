"""LBFGS: the optimizer table's rows for it against torch 2.13 (trajectory and save/load; it has no
per-tensor path, so no fused-equals-per-tensor test), its errors and the early exit on a zero
gradient."""
import numpy as np
import pytest
import torch
from _table import table_tests

import ember

CASES = [
    ("LBFGS", dict(lr=0.5, max_iter=4), 1),
    ("LBFGS", dict(lr=1, max_iter=5, history_size=3, line_search_fn="strong_wolfe"), 1),
    ("LBFGS", dict(lr=0.2, max_iter=6, max_eval=7, tolerance_grad=1e-4, history_size=2), 1),
]

test_trajectory_matches_torch, _, test_save_load_continue = table_tests(CASES)


def _w(lib):
    return lib.tensor(np.array([1.0, -2.0]), requires_grad=True)


@pytest.mark.parametrize("make", [
    lambda lib, w: lib.optim.LBFGS([{"params": [w]}, {"params": [lib.zeros(1, requires_grad=True)]}]),
    lambda lib, w: lib.optim.LBFGS([w], lr=-1.0),
])
def test_constructor_errors_match_torch(make):
    errors = []
    for lib in (torch, ember):
        with pytest.raises(ValueError) as info:
            make(lib, _w(lib))
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_unknown_line_search_is_rejected():
    for lib in (torch, ember):
        w = _w(lib)
        opt = lib.optim.LBFGS([w], line_search_fn="armijo")

        def closure(w=w, opt=opt):
            opt.zero_grad()
            loss = (w ** 2).sum()
            loss.backward()
            return loss
        with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
            opt.step(closure)


def test_zero_gradient_returns_at_once():
    w = ember.zeros(2, requires_grad=True)
    opt = ember.optim.LBFGS([w])
    calls = []

    def closure():
        calls.append(1)
        opt.zero_grad()
        loss = (w ** 2).sum()
        loss.backward()
        return loss
    assert opt.step(closure).item() == 0.0 and len(calls) == 1
    assert opt.state[w] == {"func_evals": 1, "n_iter": 0}


def test_converges_on_a_quadratic():
    w = ember.tensor(np.array([3.0, -1.0, 2.0]), requires_grad=True)
    opt = ember.optim.LBFGS([w], line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((w - ember.tensor(np.array([1.0, 2.0, 3.0]))) ** 2).sum()
        loss.backward()
        return loss
    opt.step(closure)
    np.testing.assert_allclose(w._data, [1.0, 2.0, 3.0], atol=1e-6)
