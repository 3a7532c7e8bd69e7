"""HalfCauchy (ember/distributions/half_cauchy.py): samples, rsample gradients, log_prob (of a
number too), cdf/icdf, entropy, moments, expand and the errors, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_half_cauchy_matches_torch(dtype):
    def build(m, D):
        scale = (m.rand(3, dtype=getattr(m, dtype)) + 0.5).requires_grad_()
        d = D.HalfCauchy(scale)
        return profile(m, d, [scale]) + [D.HalfCauchy(2.0).sample((2,)),
                                         D.HalfCauchy(scale, validate_args=False).log_prob(1.5)]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.HalfCauchy(m.zeros(1)),
    lambda m, D: D.HalfCauchy(m.ones(1)).log_prob(1.5),
], ids=["scale", "number"])
def test_half_cauchy_errors_as_torch(bad):
    raises_as_torch(bad)
