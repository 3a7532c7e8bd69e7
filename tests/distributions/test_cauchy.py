"""Cauchy (ember/distributions/cauchy.py): samples on torch's cauchy_ stream, rsample
gradients, log_prob, cdf/icdf, entropy, moments, expand, KL and the errors, compared with torch
2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cauchy_matches_torch(dtype):
    def build(m, D):
        loc = m.randn(3, dtype=getattr(m, dtype)).requires_grad_()
        scale = (m.rand(3, dtype=getattr(m, dtype)) + 0.5).requires_grad_()
        d = D.Cauchy(loc, scale)
        return profile(m, d, [loc, scale]) + [D.kl_divergence(d, D.Cauchy(0.0, 2.0)),
                                               D.Cauchy(0.0, 1.0).sample((2,))]
    same_as_torch(build)


def test_cauchy_scale_error_as_torch():
    raises_as_torch(lambda m, D: D.Cauchy(m.zeros(1), -m.ones(1)))
