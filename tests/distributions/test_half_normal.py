"""HalfNormal (ember/distributions/half_normal.py): samples, rsample gradients, log_prob (-inf
below 0), cdf/icdf, entropy, moments, expand, KL and the errors, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_half_normal_matches_torch(dtype):
    def build(m, D):
        scale = (m.rand(3, dtype=getattr(m, dtype)) + 0.5).requires_grad_()
        d = D.HalfNormal(scale)
        return profile(m, d, [scale]) + [
            D.HalfNormal(2.0).sample((2,)), D.kl_divergence(d, D.HalfNormal(m.ones(3, dtype=scale.dtype))),
            D.HalfNormal(scale, validate_args=False).log_prob(m.tensor(-1.0, dtype=scale.dtype))]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.HalfNormal(m.zeros(1)),
    lambda m, D: D.HalfNormal(1.0).log_prob(m.tensor(-1.0)),
], ids=["scale", "support"])
def test_half_normal_errors_as_torch(bad):
    raises_as_torch(bad)
