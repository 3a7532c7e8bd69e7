"""torch.svd_lowrank and torch.pca_lowrank (ember/_lowrank.py) against torch on its random stream."""
import numpy as np
import pytest
import torch

import ember


@pytest.mark.parametrize("call", [
    lambda L, a: L.svd_lowrank(a, q=3), lambda L, a: L.svd_lowrank(a.T, q=4, niter=1),
    lambda L, a: L.pca_lowrank(a), lambda L, a: L.pca_lowrank(a, q=2, center=False),
    lambda L, a: L.svd_lowrank(a, q=3, M=a.mean(0))])
def test_lowrank_svd_and_pca_as_torch(call):
    """torch.svd_lowrank / pca_lowrank on torch's random stream: the same singular values and
    their gradients; U and V equal up to each column's sign (LAPACK's sign choice for the wide
    q x n factor differs between torch's MKL and NumPy's OpenBLAS, as in linalg.svd)."""
    a = np.random.default_rng(0).standard_normal((8, 5))
    got = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        t = lib.tensor(a, requires_grad=True)
        u, s, v = call(lib, t)
        (s * lib.arange(1.0, s.shape[0] + 1, dtype=lib.float64)).sum().backward()
        got.append([x.detach().numpy() for x in (u, s, v, t.grad)])
    (u0, s0, v0, g0), (u1, s1, v1, g1) = got
    np.testing.assert_allclose(s1, s0, rtol=1e-12)
    np.testing.assert_allclose(g1, g0, rtol=1e-9, atol=1e-12)
    for ours, theirs in ((u1, u0), (v1, v0)):
        np.testing.assert_allclose(ours * np.sign(ours[0]) * np.sign(theirs[0]), theirs,
                                   rtol=1e-9, atol=1e-12)


def test_pca_lowrank_argument_errors_as_torch():
    a = ember.ones(3, 4)
    with pytest.raises(ValueError, match=r"q\(=5\) must be non-negative integer and not greater "
                                         r"than min\(m, n\)=3"):
        ember.pca_lowrank(a, q=5)
    with pytest.raises(ValueError, match=r"niter\(=-1\) must be non-negative integer"):
        ember.pca_lowrank(a, niter=-1)
