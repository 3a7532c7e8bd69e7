"""The orthogonal polynomials' recurrences against torch: degrees 0-12, x inside and outside
[-1, 1] (and [0, 1] for the shifted Chebyshev ones), negative and fractional degrees."""
import numpy as np
import pytest
import torch

from ember.ops import orthogonal_polynomials as P

X = np.array([-2.0, -1.0, -0.7, 0.0, 0.3, 0.5, 1.0, 1.7])
N = np.array([-1.0, 0.0, 1.0, 2.0, 3.0, 5.0, 8.0, 12.0, 2.5])
CASES = {
    "chebyshev_polynomial_t": lambda x, n: P.chebyshev("t", x, n),
    "chebyshev_polynomial_u": lambda x, n: P.chebyshev("u", x, n),
    "chebyshev_polynomial_v": lambda x, n: P.chebyshev("v", x, n),
    "chebyshev_polynomial_w": lambda x, n: P.chebyshev("w", x, n),
    "shifted_chebyshev_polynomial_t": lambda x, n: P.chebyshev("t", x, n, shifted=True),
    "hermite_polynomial_h": P.hermite_h, "hermite_polynomial_he": P.hermite_he,
    "laguerre_polynomial_l": P.laguerre_l, "legendre_polynomial_p": P.legendre_p,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name):
    x, n = np.meshgrid(X, N)
    got = CASES[name](x, n)
    want = getattr(torch.special, name)(torch.tensor(x), torch.tensor(n)).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-11, atol=1e-12)
