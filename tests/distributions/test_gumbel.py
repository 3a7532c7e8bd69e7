"""Gumbel (ember/distributions/gumbel.py): samples, rsample gradients, log_prob, cdf/icdf,
entropy, moments, expand, KL and the errors, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gumbel_matches_torch(dtype):
    def build(m, D):
        loc = m.randn(3, dtype=getattr(m, dtype)).requires_grad_()
        scale = (m.rand(3, dtype=getattr(m, dtype)) + 0.5).requires_grad_()
        d = D.Gumbel(loc, scale)
        q = D.Gumbel(m.zeros(3, dtype=loc.dtype), 2 * m.ones(3, dtype=loc.dtype))
        n = D.Normal(m.zeros(3, dtype=loc.dtype), 2 * m.ones(3, dtype=loc.dtype))
        return profile(m, d, [loc, scale]) + [
            D.Gumbel(1.0, 2.0).sample((3,)), D.kl_divergence(d, q), D.kl_divergence(d, n),
            D.kl_divergence(n, d), D.kl_divergence(D.Exponential(scale), d),
            D.kl_divergence(D.Uniform(loc - 1, loc + 1), q), D.kl_divergence(d, D.Exponential(scale))]
    same_as_torch(build)


def test_gumbel_scale_error_as_torch():
    raises_as_torch(lambda m, D: D.Gumbel(m.zeros(1), m.zeros(1)))
