"""LogisticNormal (ember/distributions/logistic_normal.py): samples on the simplex, rsample
gradients, log_prob through stick breaking, expand and the errors, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_logistic_normal_matches_torch(dtype):
    def build(m, D):
        loc = m.randn(2, 3, dtype=getattr(m, dtype)).requires_grad_()
        scale = (m.rand(2, 3, dtype=loc.dtype) + 0.5).requires_grad_()
        d = D.LogisticNormal(loc, scale)
        s = D.LogisticNormal(0.0, 1.0)
        return profile(m, d, [loc, scale]) + [tuple(s.batch_shape), tuple(s.event_shape),
                                               s.sample((2,)), d.loc is loc]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.LogisticNormal(m.zeros(2), -m.ones(2)),
    lambda m, D: D.LogisticNormal(m.zeros(2), m.ones(2)).log_prob(m.tensor([0.5, 0.6, 0.1])),
], ids=["scale", "support"])
def test_logistic_normal_errors_as_torch(bad):
    raises_as_torch(bad)
