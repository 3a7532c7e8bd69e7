"""NegativeBinomial (ember/distributions/negative_binomial.py): samples (gamma rates, then
Poisson counts, on torch's streams), log_prob and its gradients, moments, expand and the
errors, from probs and from logits, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("given", ["probs", "logits"])
def test_negative_binomial_matches_torch(given, dtype):
    def build(m, D):
        p = m.rand(4, dtype=getattr(m, dtype)) * 0.9 if given == "probs" else \
            m.randn(4, dtype=getattr(m, dtype))
        p.requires_grad_()
        d = D.NegativeBinomial(m.tensor([0.5, 3.0, 10.0, 0.0], dtype=p.dtype), **{given: p})
        return profile(m, d, [p]) + [d.probs, d.logits, D.NegativeBinomial(2.0, 0.3).sample((3,))]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.NegativeBinomial(m.tensor([-1.0]), probs=m.tensor([0.5])),
    lambda m, D: D.NegativeBinomial(m.tensor([2.0]), probs=m.tensor([1.0])),
    lambda m, D: D.NegativeBinomial(2.0, probs=m.tensor([0.5])).log_prob(m.tensor([0.5])),
], ids=["count", "probs", "support"])
def test_negative_binomial_errors_as_torch(bad):
    raises_as_torch(bad)
