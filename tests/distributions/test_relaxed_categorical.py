"""RelaxedOneHotCategorical and ExpRelaxedCategorical (ember/distributions/relaxed_categorical.py):
samples, rsample gradients, log_prob, expand and the errors, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("given", ["probs", "logits"])
def test_relaxed_categorical_matches_torch(given, dtype):
    def build(m, D):
        t = m.tensor(0.7, dtype=getattr(m, dtype))
        p = m.rand(2, 4, dtype=t.dtype) if given == "probs" else m.randn(2, 4, dtype=t.dtype)
        p.requires_grad_()
        d = D.RelaxedOneHotCategorical(t, **{given: p})
        e = D.relaxed_categorical.ExpRelaxedCategorical(t, **{given: p})
        return profile(m, d, [p]) + profile(m, e, [p]) + [d.probs, d.logits, d.temperature]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.RelaxedOneHotCategorical(m.tensor(1.0), probs=m.tensor([-0.5, 1.5])),
    lambda m, D: D.RelaxedOneHotCategorical(m.tensor(1.0), probs=m.tensor([0.5, 0.5]))
    .log_prob(m.tensor([0.5, 0.6])),
], ids=["probs", "support"])
def test_relaxed_categorical_errors_as_torch(bad):
    raises_as_torch(bad)
