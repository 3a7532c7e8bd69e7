"""Scans (ember/ops/scan.py): cumsum and cumprod against torch, including zeros in cumprod."""
import numpy as np
import pytest
import torch
from oracle import check, close

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
