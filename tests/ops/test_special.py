"""ember/ops/special.py against torch's kernels (float64 and float32) over wide ranges."""
import numpy as np
import pytest
import torch

from ember.ops import special, special_cdf

R = np.random.default_rng(0)
WIDE = np.concatenate([R.uniform(-30, 30, 3000), R.uniform(0, 3, 1000), R.uniform(-3, 0, 500),
                       [0.5, 1.0, 2.0, 1e-8, 100.0, 1e5, 170.5, 30.0, 1e15]])


def _compare(mine, theirs, rtol):
    assert mine.dtype == theirs.dtype
    assert (np.isnan(mine) == np.isnan(theirs)).all()
    infinite = np.isinf(theirs)
    assert (mine[infinite] == theirs[infinite]).all()
    finite = np.isfinite(theirs)  # near a zero of the function: an absolute tolerance
    atol = 1e-6 if mine.dtype == np.float32 else 1e-13
    np.testing.assert_allclose(mine[finite], theirs[finite], rtol=rtol, atol=atol)


@pytest.mark.parametrize("name", ["lgamma", "digamma", "i0", "erfc"])
@pytest.mark.parametrize("dtype,rtol", [(np.float64, 1e-11), (np.float32, 2e-6)])
def test_against_torch(name, dtype, rtol):
    x = WIDE.astype(dtype)
    if name == "digamma":  # near its poles both lose digits (cancellation): keep away
        x = x[np.abs(x - np.round(x)) > 1e-3]
    _compare(getattr(special, name)(x), getattr(torch, name)(torch.tensor(x)).numpy(), rtol)


def test_i1_against_torch():
    _compare(special.i1(WIDE), torch.special.i1(torch.tensor(WIDE)).numpy(), 1e-11)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_polygamma_against_torch(n):
    x = WIDE[(WIDE > 0) & (WIDE < 1e4)]
    # torch's trigamma (n = 1) is its own shorter series, good to ~1e-9 (ours to ~1e-14)
    _compare(special.polygamma(x, n), torch.polygamma(n, torch.tensor(x)).numpy(),
             1e-8 if n == 1 else 1e-11)


def test_erfinv_against_torch():
    u = np.concatenate([R.uniform(-1, 1, 3000), 1 - 10.0 ** -np.arange(1, 16),
                        [1.0, -1.0, 1.5, 0.0, -0.0, 1e-300]])
    _compare(special.erfinv(u), torch.erfinv(torch.tensor(u)).numpy(), 1e-12)
    u32 = u.astype(np.float32)
    _compare(special.erfinv(u32), torch.erfinv(torch.tensor(u32)).numpy(), 2e-6)


def test_erfc_tail_is_relative():
    x = np.linspace(2, 26, 200)
    _compare(special.erfc(x), torch.erfc(torch.tensor(x)).numpy(), 1e-12)


def test_pole_and_infinity_values():
    x = np.array([0.0, -0.0, -1.0, -7.0, np.inf, -np.inf, np.nan])
    for name in ("lgamma", "digamma"):
        _compare(getattr(special, name)(x), getattr(torch, name)(torch.tensor(x)).numpy(), 1e-12)


def test_standard_gamma_grad_is_the_implicit_derivative():
    """dx/da at a fixed quantile P(a, x) = p, against central differences
    (x(a + h) - x(a - h)) / 2h of x(a) solving P(a, x) = p (bisection on gammainc)."""
    a = np.array([0.05, 0.3, 1.0, 2.5, 7.0, 40.0])
    x = np.array([0.01, 0.2, 0.7, 3.0, 5.0, 45.0])
    p = special_cdf.gammainc(a, x)
    h = 1e-5

    def quantile(alpha):
        low, high = np.zeros_like(x), np.full_like(x, 200.0)
        for _ in range(200):  # bisection on the increasing P(alpha, .)
            mid = (low + high) / 2
            below = special_cdf.gammainc(alpha, mid) < p
            low, high = np.where(below, mid, low), np.where(below, high, mid)
        return (low + high) / 2
    numeric = (quantile(a + h) - quantile(a - h)) / (2 * h)
    np.testing.assert_allclose(special.standard_gamma_grad(a, x), numeric, rtol=1e-5)
