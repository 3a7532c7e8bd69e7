"""Pareto (ember/distributions/pareto.py): samples, rsample gradients, log_prob, cdf/icdf,
entropy, moments (inf for small alpha), support, expand, KL and the errors, compared with torch
2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pareto_matches_torch(dtype):
    def build(m, D):
        scale = (m.rand(4, dtype=getattr(m, dtype)) + 0.5).requires_grad_()
        alpha = m.tensor([0.5, 1.5, 2.5, 4.0], dtype=scale.dtype).requires_grad_()
        d = D.Pareto(scale, alpha)
        q = D.Pareto(m.full((4,), 0.7, dtype=scale.dtype), m.full((4,), 2.0, dtype=scale.dtype))
        return profile(m, d, [scale, alpha]) + [
            D.kl_divergence(d, q), D.kl_divergence(d, D.Exponential(alpha)),
            D.kl_divergence(d, D.Normal(scale, alpha)), D.kl_divergence(d, D.Uniform(0.0, 9.0)),
            D.kl_divergence(D.Uniform(scale, scale + 1), q), D.kl_divergence(D.Exponential(alpha), q),
            D.kl_divergence(D.Normal(scale, alpha), q), D.kl_divergence(D.Laplace(scale, alpha), q)]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.Pareto(m.ones(1), -m.ones(1)),
    lambda m, D: D.Pareto(2.0, 1.0).log_prob(m.tensor(1.0)),
], ids=["alpha", "support"])
def test_pareto_errors_as_torch(bad):
    raises_as_torch(bad)
