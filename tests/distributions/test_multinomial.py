"""Multinomial (ember/distributions/multinomial.py): samples (categorical draws counted per
class, on torch's stream), log_prob and its gradients, entropy, moments, expand and the errors,
compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("given", ["probs", "logits"])
def test_multinomial_matches_torch(given, dtype):
    def build(m, D):
        p = m.rand(2, 3, dtype=getattr(m, dtype)) if given == "probs" else \
            m.randn(2, 3, dtype=getattr(m, dtype))
        p.requires_grad_()
        d = D.Multinomial(6, **{given: p})
        return profile(m, d, [p]) + [d.probs, d.logits, D.Multinomial(
            logits=m.tensor([0.0, -float("inf")])).log_prob(m.tensor([1.0, 0.0]))]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.Multinomial(m.tensor(3), probs=m.ones(2)),
    lambda m, D: D.Multinomial(2, probs=m.ones(2)).log_prob(m.tensor([2.0, 1.0])),
    lambda m, D: D.Multinomial(2, probs=m.tensor([-1.0, 2.0])),
], ids=["count", "support", "probs"])
def test_multinomial_errors_as_torch(bad):
    raises_as_torch(bad)
