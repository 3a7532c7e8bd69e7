"""Weibull (ember/distributions/weibull.py): samples, rsample gradients, log_prob, cdf/icdf,
entropy, moments, expand and the errors, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_weibull_matches_torch(dtype):
    def build(m, D):
        scale = (m.rand(3, dtype=getattr(m, dtype)) + 0.5).requires_grad_()
        k = (m.rand(3, dtype=getattr(m, dtype)) * 3 + 0.5).requires_grad_()
        d = D.Weibull(scale, k)
        return profile(m, d, [scale, k]) + [D.Weibull(1.0, 2.0).sample((2,))]
    same_as_torch(build)


def test_weibull_concentration_error_as_torch():
    raises_as_torch(lambda m, D: D.Weibull(m.ones(1), -m.ones(1)))
