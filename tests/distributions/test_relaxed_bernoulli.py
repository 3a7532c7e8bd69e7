"""RelaxedBernoulli and LogitRelaxedBernoulli (ember/distributions/relaxed_bernoulli.py):
samples, rsample gradients, log_prob, expand and the errors, from probs and from logits,
compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("given", ["probs", "logits"])
def test_relaxed_bernoulli_matches_torch(given, dtype):
    def build(m, D):
        t = m.tensor(0.7, dtype=getattr(m, dtype))
        p = m.rand(3, dtype=t.dtype) if given == "probs" else m.randn(3, dtype=t.dtype)
        p.requires_grad_()
        d = D.RelaxedBernoulli(t, **{given: p})
        lg = D.relaxed_bernoulli.LogitRelaxedBernoulli(t, **{given: p})
        return profile(m, d, [p]) + profile(m, lg, [p]) + [d.probs, d.logits, d.temperature]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.RelaxedBernoulli(m.tensor(1.0), probs=m.tensor([1.5])),
    lambda m, D: D.RelaxedBernoulli(m.tensor(1.0), probs=m.tensor([0.5]), logits=m.tensor([0.])),
    lambda m, D: D.RelaxedBernoulli(m.tensor(1.0), probs=m.tensor([0.5])).log_prob(m.tensor(2.)),
], ids=["probs", "both", "support"])
def test_relaxed_bernoulli_errors_as_torch(bad):
    raises_as_torch(bad)
