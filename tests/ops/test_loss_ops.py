"""Loss primitives (ember/ops/loss_ops.py): the pointwise losses (mse, smooth L1, Huber), binary
cross-entropy (with and without logits, weights, pos_weight) and NLL (1-D and 2-D targets,
weights, ignore_index) in every reduction, against torch: values, gradients, second derivatives
and grad_fn names; out-of-range targets raise as torch."""
import numpy as np
import pytest
import torch
from oracle import check, gradient_bits, wide_inputs

import ember

R = np.random.default_rng(0)
A, B = R.standard_normal((4, 3)), R.standard_normal((4, 3))
P, T01 = R.uniform(0.05, 0.95, (4, 3)), R.uniform(0, 1, (4, 3))
LOGP = np.log(R.dirichlet(np.ones(5), 6))
TARGET = np.array([0, 4, 2, 2, 1, 3])
LOGP2D = np.ascontiguousarray(np.log(R.dirichlet(np.ones(3), (2, 4, 2))).transpose(0, 3, 1, 2))
TARGET2D = R.integers(0, 3, (2, 4, 2))


def _f(lib):
    return lib.nn.functional


def _cases(reduction):
    return {
        "mse": (lambda L, a, b: _f(L).mse_loss(a, b, reduction=reduction), A, B),
        "smooth_l1": (lambda L, a, b: _f(L).smooth_l1_loss(a, b, reduction=reduction, beta=0.7),
                      A, B),
        "huber": (lambda L, a, b: _f(L).huber_loss(a, b, reduction=reduction, delta=0.6), A, B),
        "bce": (lambda L, p, t: _f(L).binary_cross_entropy(p, t, reduction=reduction), P, T01),
        "bce_weight": (lambda L, p, t: _f(L).binary_cross_entropy(
            p, t, weight=L.tensor(A[0] ** 2), reduction=reduction), P, T01),
        "bce_logits": (lambda L, a, t: _f(L).binary_cross_entropy_with_logits(
            a, t, pos_weight=L.tensor([1.0, 2.0, 0.5], dtype=L.float64), reduction=reduction),
            A, T01),
        "nll": (lambda L, x: _f(L).nll_loss(x, L.tensor(TARGET), reduction=reduction), LOGP),
        "nll_weight_ignore": (lambda L, x: _f(L).nll_loss(
            x, L.tensor(TARGET), weight=L.tensor(np.arange(1.0, 6.0)), ignore_index=2,
            reduction=reduction), LOGP),
        "nll2d": (lambda L, x: _f(L).nll_loss(x, L.tensor(TARGET2D), reduction=reduction),
                  LOGP2D),
    }


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", sorted(_cases("mean")))
def test_matches_torch(name, reduction):
    fn, *inputs = _cases(reduction)[name]
    grad_inputs = [True] + [name.startswith(("mse", "smooth", "huber"))] * (len(inputs) - 1)
    check(fn, *inputs, grad_inputs=grad_inputs)


def test_nll_target_out_of_range_raises_as_torch():
    errors = []
    for lib in (torch, ember):
        with pytest.raises((IndexError, RuntimeError)) as info:
            _f(lib).nll_loss(lib.tensor(LOGP), lib.tensor([0, 5, 1, 1, 1, 1]))
        errors.append(info.type)
    assert errors[0] == errors[1]


@pytest.mark.parametrize("fn", [
    lambda L, x, t: L.nn.functional.cross_entropy(x, t),
    lambda L, x, t: L.nn.functional.nll_loss(x, t),
    lambda L, x, t: L.nn.functional.cross_entropy(x, t, label_smoothing=0.1),
    lambda L, x, t: L.nn.functional.cross_entropy(x, t, reduction="sum")])
def test_an_empty_batch_gives_torchs_loss(fn):
    """No targets: the mean is NaN (the sum 0), and the gradient is empty (it raised
    ZeroDivisionError before)."""
    out = []
    for lib in (torch, ember):
        x = lib.zeros(0, 4, requires_grad=True)
        loss = fn(lib, x, lib.zeros(0, dtype=lib.int64))
        loss.backward()
        out.append((loss.item(), tuple(x.grad.shape)))
    np.testing.assert_equal(out[1], out[0])


def test_binary_cross_entropy_refuses_a_target_outside_0_1_as_torch():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
            lib.nn.functional.binary_cross_entropy(lib.tensor([0.5]), lib.tensor([2.0]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_gradient_folds_two_over_n_as_torch_bit_for_bit(reduction, dtype):
    """torch's kernel: ((x - y) * norm) * g with norm = 2/n for 'mean' (one number)."""
    x, g = wide_inputs(dtype), wide_inputs(dtype, seed=1)
    target = x * 0.5 + 0.1

    def fn(lib, t):
        return lib.nn.functional.mse_loss(t, lib.tensor(target), reduction=reduction)
    for create_graph in (False, True):
        np.testing.assert_array_equal(*gradient_bits(fn, x, g, None, create_graph))


def _target(dtype):
    g = wide_inputs(dtype, seed=4)
    return (np.abs(g) / (1 + np.abs(g))).astype(dtype)


LOSS_FORMULAS = {
    # ((x - y) / beta or +-1) * norm * g, norm = 1/n for 'mean'
    "smooth_l1": lambda L, t, y, red: L.nn.functional.smooth_l1_loss(t, y, reduction=red,
                                                                      beta=0.3),
    "huber": lambda L, t, y, red: L.nn.functional.huber_loss(t, y, reduction=red, delta=0.7),
    # ((sigmoid(x) - y) * g) [* w] [/ n]
    "bce_logits": lambda L, t, y, red: L.nn.functional.binary_cross_entropy_with_logits(
        t, y, reduction=red),
    "bce_logits_weight": lambda L, t, y, red: L.nn.functional.binary_cross_entropy_with_logits(
        t, y, weight=L.linspace(0, 3, t.numel(), dtype=t.dtype), reduction=red),
    "bce_logits_pos_weight": lambda L, t, y, red:
        L.nn.functional.binary_cross_entropy_with_logits(
            t, y, pos_weight=L.linspace(0.5, 2.5, t.numel(), dtype=t.dtype), reduction=red),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", sorted(LOSS_FORMULAS))
def test_loss_gradients_in_torchs_steps_bit_for_bit(name, reduction, dtype):
    """As torch's kernels: the factor and 'mean''s 1/n folded into one number (smooth L1,
    Huber), or sigmoid(x) - y times g, then the weight, then / n (with logits; compared where
    ember's sigmoid equals torch's)."""
    x, g, target = wide_inputs(dtype), wide_inputs(dtype, seed=1), _target(dtype)
    key = (lambda L, t: t.sigmoid()) if name.startswith("bce") else None

    def fn(lib, t):
        return LOSS_FORMULAS[name](lib, t, lib.tensor(target), reduction)
    for create_graph in (False, True):
        np.testing.assert_array_equal(*gradient_bits(fn, x, g, key, create_graph, least=0.5))
