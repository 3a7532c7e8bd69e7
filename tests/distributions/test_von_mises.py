"""VonMises (ember/distributions/von_mises.py): samples on torch's stream (the rejection rounds
in float64, tiny and large concentrations), log_prob and its gradients, circular moments,
expand and the errors, compared with torch 2.13. torch computes log I0 and I1/I0 by polynomial
fits (~1e-7 in log_prob, ~1e-4 in the variance at large k, nan gradients at tiny k in float32);
ember from the exact scaled Bessel functions, so those are compared within torch's error."""
import numpy as np
import pytest
import torch

import ember

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_von_mises_matches_torch(dtype):
    def build(m, D):
        loc = m.randn(3, dtype=getattr(m, dtype)).requires_grad_()
        k = m.tensor([0.5, 4.0, 12.0], dtype=loc.dtype).requires_grad_()
        d = D.VonMises(loc, k)
        big = D.VonMises(m.zeros(1, dtype=loc.dtype), m.tensor([900.0], dtype=loc.dtype))
        tiny = D.VonMises(m.zeros(2, dtype=loc.dtype), m.tensor([1e-6, 1e-3], dtype=loc.dtype))
        return profile(m, d, [loc, k]) + [big.log_prob(m.tensor([0.01], dtype=loc.dtype)),
                                          D.VonMises(0.5, 2.0).sample((6,)), tiny.sample((5,)),
                                          big.sample((3,))]
    same_as_torch(build)


def test_von_mises_variance_within_torchs_fit():
    k = np.array([1e-6, 0.5, 4.0, 50.0, 900.0])
    mine = ember.distributions.VonMises(ember.zeros(5, dtype=ember.float64),
                                        ember.tensor(k)).variance.numpy()
    theirs = torch.distributions.VonMises(torch.zeros(5, dtype=torch.float64),
                                          torch.tensor(k)).variance.numpy()
    np.testing.assert_allclose(mine, theirs, rtol=1e-3)
    kappa = 900.0  # 1 - I1/I0 = 1/(2k) + 1/(8k^2) + 1/(8k^3) + O(k^-4): torch's fit is 4e-4 off
    np.testing.assert_allclose(mine[-1], 1 / (2 * kappa) + 1 / (8 * kappa ** 2) +
                               1 / (8 * kappa ** 3), rtol=1e-9)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.VonMises(m.zeros(1), m.zeros(1)),
    lambda m, D: D.VonMises(0.0, 1.0).log_prob(0.5),
], ids=["concentration", "not-tensor"])
def test_von_mises_errors_as_torch(bad):
    raises_as_torch(bad)
