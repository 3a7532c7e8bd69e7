"""Scans (ember/ops/scan.py): cumsum, cumprod and logcumsumexp against torch, including zeros in
cumprod and -inf in logcumsumexp."""
import numpy as np
import pytest
import torch
from oracle import check, close, same_error

import ember

R = np.random.default_rng(0)

CASES = {
    "cumsum": (lambda L, x: L.cumsum(x, 1), R.standard_normal((3, 4))),
    "cumsum_dim0_method": (lambda L, x: x.cumsum(dim=0), R.standard_normal((3, 4))),
    "cumsum_1d": (lambda L, x: L.cumsum(x, -1), R.standard_normal(5)),
    "cumprod": (lambda L, x: L.cumprod(x, 1), R.uniform(0.5, 2, (3, 4))),
    "cumprod_neg": (lambda L, x: x.cumprod(0), R.standard_normal((4, 3))),
    "cumprod_one_zero": (lambda L, x: L.cumprod(x, 1),
                         np.array([[2.0, 0.0, 3.0, 1.5], [1.0, 2.0, 3.0, 0.0]])),
    "cumprod_two_zeros": (lambda L, x: L.cumprod(x, 0), np.array([1.5, 0.0, 2.0, 0.0, -3.0])),
    "cumprod_first_zero": (lambda L, x: L.cumprod(x, -1), np.array([[0.0, 2.0, -1.0]])),
    "cumsum_scalar": (lambda L, x: L.cumsum(x, 0), np.array(1.5)),
    "cumprod_scalar": (lambda L, x: L.cumprod(x, 0), np.array(1.5)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_derivatives_match_torch(name):
    fn, x = CASES[name]
    check(fn, x)
    check(fn, x.astype(np.float32), rtol=1e-4, atol=1e-5)


def test_integer_results_are_int64_and_dtype_argument_casts():
    for dtype in (np.int32, np.bool_, np.int64):
        x = np.array([1, 0, 1, 1]).astype(dtype)
        close(ember.cumsum(ember.tensor(x), 0), torch.cumsum(torch.tensor(x), 0))
        close(ember.cumprod(ember.tensor(x), 0), torch.cumprod(torch.tensor(x), 0))
    x = R.standard_normal((2, 3)).astype(np.float32)
    check(lambda L, a: L.cumsum(a, 1, dtype=L.float64), x, second=False)


def test_in_place_forms():
    x = R.standard_normal((2, 3))
    check(lambda L, a: (a * 1).cumsum_(1), x)
    check(lambda L, a: (a * 1).cumprod_(0), x)


def test_dim_out_of_range():
    with pytest.raises(IndexError, match="Dimension out of range"):
        ember.cumsum(ember.zeros(3, 4), 2)


INF = np.inf
LOGCUMSUMEXP = {
    "random": (lambda L, x: L.logcumsumexp(x, 1), R.standard_normal((3, 4))),
    "method_negative_dim": (lambda L, x: x.logcumsumexp(dim=-2), R.standard_normal((4, 3, 2))),
    "large": (lambda L, x: L.logcumsumexp(x, 0), np.array([1000.0, 999.0, -1000.0, 1001.0])),
    "small": (lambda L, x: L.logcumsumexp(x, 0), np.array([-1000.0, -1001.0, -999.5])),
    "minus_inf_inside": (lambda L, x: L.logcumsumexp(x, 0), np.array([0.5, -INF, 2.0, -INF])),
    "minus_inf_first": (lambda L, x: L.logcumsumexp(x, -1), np.array([[-INF, 0.0, 1.0]])),
    "all_minus_inf": (lambda L, x: L.logcumsumexp(x, 0), np.array([-INF, -INF])),
    "inf_and_nan": (lambda L, x: L.logcumsumexp(x, 0), np.array([INF, 1.0, np.nan])),
    "scalar": (lambda L, x: L.logcumsumexp(x, -1), np.array(0.75)),
    "empty": (lambda L, x: L.logcumsumexp(x, 1), np.zeros((2, 0))),
}


@pytest.mark.parametrize("name", sorted(LOGCUMSUMEXP))
def test_logcumsumexp_matches_torch(name):
    """Values, gradients and second derivatives (torch's NaN where a -inf leads included)."""
    fn, x = LOGCUMSUMEXP[name]
    check(fn, x)
    check(fn, x.astype(np.float32), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("call", [
    lambda L: L.logcumsumexp(L.tensor([1, 2]), 0),
    lambda L: L.logcumsumexp(L.tensor([True]), 0),
    lambda L: L.logcumsumexp(L.ones(2), 1),
    lambda L: L.ones(2, 3).logcumsumexp(-3),
])
def test_logcumsumexp_errors_as_torch(call):
    same_error(call)


def test_logcumsumexp_out():
    x = R.standard_normal((2, 3))
    e_out, t_out = ember.empty(2, 3, dtype=ember.float64), torch.empty(2, 3, dtype=torch.float64)
    assert ember.logcumsumexp(ember.tensor(x), 1, out=e_out) is e_out
    close(e_out, torch.logcumsumexp(torch.tensor(x), 1, out=t_out))


def _scan_results(lib, op, x, g, dtype, wide=False):
    t = lib.tensor(x).to(getattr(lib, dtype)).requires_grad_(True)
    y = getattr(t, op)(1, dtype=lib.float64) if wide else getattr(t, op)(1)
    y.backward(lib.tensor(g).to(y.dtype))
    return y.detach().to(lib.float64).numpy(), t.grad.to(lib.float64).numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("op", ["cumsum", "cumprod", "logcumsumexp"])
def test_scans_carry_torchs_wider_type_bit_for_bit(op, dtype):
    """torch carries a float32 scan in float64 (float16/bfloat16 in float32) and rounds each
    output; carried in float32, most of a 1000-long float32 cumsum differed in the last bits."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((20, 1000))
    x = x * 0.01 + 1 if op == "cumprod" else x
    g = rng.standard_normal((20, 1000))
    ours, theirs = (_scan_results(lib, op, x, g, dtype) for lib in (ember, torch))
    np.testing.assert_array_equal(ours[0], theirs[0])
    if op != "logcumsumexp":  # (its gradient's exp and log: the machine's own kernels)
        np.testing.assert_array_equal(ours[1], theirs[1])


def test_scan_gradient_is_cast_to_the_input_dtype_first():
    rng = np.random.default_rng(6)
    x, g = rng.standard_normal((4, 1000)).astype(np.float32), rng.standard_normal((4, 1000))
    for op in ("cumsum", "cumprod"):
        ours, theirs = (_scan_results(lib, op, x, g, "float32", wide=True)
                        for lib in (ember, torch))
        np.testing.assert_array_equal(ours[1], theirs[1])


def test_complex64_scans_carry_complex128():
    rng = np.random.default_rng(7)
    x = (rng.standard_normal((4, 1000)) + 1j * rng.standard_normal((4, 1000))).astype(np.complex64)
    for op in ("cumsum", "cumprod"):
        data = x * 0.01 + 1 if op == "cumprod" else x
        np.testing.assert_array_equal(getattr(ember.tensor(data), op)(1).numpy(),
                                      getattr(torch.tensor(data), op)(1).numpy())
