"""SparseAdam (ember/optim/sparse_adam.py) against torch 2.13: trajectories with sparse COO
gradients (repeated indices, maximize, two groups, float32/64), save -> load -> continue,
and torch's errors (dense gradients, sparse or complex parameters, bad arguments)."""
import copy
import warnings

import numpy as np
import pytest
import torch
from oracle import same_error

import ember


def _grads(step):
    rng = np.random.default_rng(step)
    index = [[step % 6, (step + 2) % 6, step % 6]]  # a repeat: coalescing sums it
    return index, rng.standard_normal((3, 3))


def _run(lib, dtype, kwargs, steps=(0, 8), state=None, start=None):
    params = [lib.tensor(np.random.default_rng(9).standard_normal((6, 3)).astype(dtype)
                         if start is None else start[i].copy(), requires_grad=True)
              for i in range(2)]
    opt = lib.optim.SparseAdam([{"params": params[:1]}, {"params": params[1:], "lr": 0.03}],
                               **kwargs)
    if state is not None:
        opt.load_state_dict(state)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's note on sparse invariant checks
        for step in range(*steps):
            for p in params:
                index, values = _grads(step)
                p.grad = lib.sparse_coo_tensor(index, lib.tensor(values.astype(dtype)), (6, 3))
            opt.step()
    return [p.detach().numpy().copy() for p in params], opt


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("kwargs", [dict(), dict(lr=0.1, betas=(0.8, 0.9), eps=1e-3,
                                                 maximize=True)])
def test_trajectory_matches_torch(dtype, kwargs):
    ours, e_opt = _run(ember, dtype, kwargs)
    theirs, t_opt = _run(torch, dtype, kwargs)
    tol = 1e-12 if dtype == np.float64 else 2e-6
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
    e_sd, t_sd = e_opt.state_dict(), t_opt.state_dict()
    assert e_sd["param_groups"] == t_sd["param_groups"]
    assert [(k, v if k == "step" else tuple(v.shape)) for k, v in e_sd["state"][1].items()] == \
        [(k, v if k == "step" else tuple(v.shape)) for k, v in t_sd["state"][1].items()]


def test_save_load_continue():
    straight, _ = _run(ember, np.float64, dict(lr=0.05))
    half, opt = _run(ember, np.float64, dict(lr=0.05), steps=(0, 4))
    again, _ = _run(ember, np.float64, dict(lr=0.05), steps=(4, 8),
                    state=copy.deepcopy(opt.state_dict()), start=half)
    for a, b in zip(straight, again):
        np.testing.assert_array_equal(a, b)


def test_dense_gradients_are_refused_as_torch():
    messages = []
    for lib in (ember, torch):
        p = lib.zeros(3, requires_grad=True)
        (p * 2).sum().backward()
        with pytest.raises(RuntimeError) as info:
            lib.optim.SparseAdam([p]).step()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize("make", [
    lambda lib: lib.optim.SparseAdam([lib.zeros(2, requires_grad=True)], lr=0.0),
    lambda lib: lib.optim.SparseAdam([lib.zeros(2, requires_grad=True)], eps=0.0),
    lambda lib: lib.optim.SparseAdam([lib.zeros(2, requires_grad=True)], betas=(1.0, 0.9)),
    lambda lib: lib.optim.SparseAdam([lib.zeros(2, requires_grad=True)], betas=(0.9, -0.1)),
    lambda lib: lib.optim.SparseAdam([lib.zeros(2), lib.sparse_coo_tensor([[0]], [1.0], (2,))]),
])
def test_argument_errors(make):
    same_error(make)


def test_a_sparse_gradient_of_the_wrong_size_is_refused():
    p = ember.zeros(4, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"gradient of size '\[5, 2\]'"):
        p.grad = ember.sparse_coo_tensor([[0]], ember.ones(1, 2), (5, 2))
