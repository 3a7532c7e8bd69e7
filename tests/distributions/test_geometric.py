"""Geometric (ember/distributions/geometric.py): samples on torch's uniform stream, log_prob
(p = 1 too) and its gradients, entropy, moments, expand, KL and the errors, from probs and from
logits, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("given", ["probs", "logits"])
def test_geometric_matches_torch(given, dtype):
    def build(m, D):
        p = m.rand(3, dtype=getattr(m, dtype)) * 0.9 + 0.05 if given == "probs" else \
            m.randn(3, dtype=getattr(m, dtype))
        p.requires_grad_()
        d = D.Geometric(**{given: p})
        q = D.Geometric(probs=m.full((3,), 0.3, dtype=p.dtype))
        return profile(m, d, [p]) + [D.kl_divergence(d, q), d.probs, d.logits,
                                     D.Geometric(probs=m.tensor([1.0, 0.5])).log_prob(
                                         m.tensor([0.0, 2.0])), D.Geometric(0.3).sample((4,))]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.Geometric(probs=m.tensor([0.0, 0.5])),
    lambda m, D: D.Geometric(probs=m.tensor([1.5])),
    lambda m, D: D.Geometric(),
    lambda m, D: D.Geometric(0.5).log_prob(m.tensor(0.5)),
], ids=["zero", "above-one", "neither", "support"])
def test_geometric_errors_as_torch(bad):
    raises_as_torch(bad)
