"""LogNormal (ember/distributions/log_normal.py): samples, rsample gradients, log_prob, cdf/icdf,
entropy, moments, expand, KL and the errors, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_normal_matches_torch(dtype):
    def build(m, D):
        loc = m.randn(3, dtype=getattr(m, dtype)).requires_grad_()
        scale = (m.rand(3, dtype=getattr(m, dtype)) + 0.5).requires_grad_()
        d = D.LogNormal(loc, scale)
        return profile(m, d, [loc, scale]) + [repr(D.LogNormal(0.0, 1.0)), d.loc is loc,
                                               D.kl_divergence(d, D.LogNormal(0.0, 2.0))]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.LogNormal(m.zeros(1), -m.ones(1)),
    lambda m, D: D.LogNormal(0.0, 1.0).log_prob(m.tensor(-1.0)),
], ids=["scale", "support"])
def test_log_normal_errors_as_torch(bad):
    raises_as_torch(bad)
