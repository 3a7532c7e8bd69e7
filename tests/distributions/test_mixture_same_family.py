"""MixtureSameFamily (ember/distributions/mixture_same_family.py): a Gaussian mixture and a
mixture of independent normals (event dims): samples on torch's stream, log_prob and its
gradients, cdf, moments, expand, support, repr and the errors, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gaussian_mixture_matches_torch(dtype):
    def build(m, D):
        logits = m.randn(2, 3, dtype=getattr(m, dtype)).requires_grad_()
        loc = m.randn(2, 3, dtype=logits.dtype).requires_grad_()
        scale = (m.rand(2, 3, dtype=logits.dtype) + 0.5).requires_grad_()
        d = D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(loc, scale))
        return profile(m, d, [logits, loc, scale]) + [repr(d).replace("ember", "torch")]
    same_as_torch(build)


def test_mixture_with_event_dims_matches_torch():
    def build(m, D):
        probs = m.rand(4, 3).requires_grad_()
        loc = m.randn(4, 3, 2).requires_grad_()
        comp = D.Independent(D.Normal(loc, m.ones(4, 3, 2)), 1)
        d = D.MixtureSameFamily(D.Categorical(probs=probs), comp)
        return profile(m, d, [probs, loc])
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(m.zeros(2), m.ones(2))),
    lambda m, D: D.MixtureSameFamily(D.Categorical(m.ones(2)), "normal"),
    lambda m, D: D.MixtureSameFamily(D.Categorical(m.ones(3)), D.Normal(m.zeros(2), m.ones(2))),
    lambda m, D: D.MixtureSameFamily(D.Categorical(m.ones(3, 2)),
                                     D.Normal(m.zeros(4, 2), m.ones(4, 2))),
    lambda m, D: D.MixtureSameFamily(D.Categorical(m.ones(2)), D.HalfNormal(m.ones(2)))
    .log_prob(m.tensor(-1.0)),
], ids=["mixture", "component", "count", "batch", "support"])
def test_mixture_errors_as_torch(bad):
    raises_as_torch(bad)
