"""ContinuousBernoulli (ember/distributions/continuous_bernoulli.py): samples by the icdf of
torch's uniforms, rsample and log_prob gradients, cdf/icdf, entropy, moments, the Taylor forms
near p = 1/2, expand, KL and the errors, from probs and from logits, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("given", ["probs", "logits"])
def test_continuous_bernoulli_matches_torch(given, dtype):
    def build(m, D):
        p = m.tensor([0.1, 0.4999, 0.5, 0.5005, 0.8], dtype=getattr(m, dtype))
        if given == "logits":
            p = m.log(p) - m.log1p(-p)
        p.requires_grad_()
        d = D.ContinuousBernoulli(**{given: p})
        q = D.ContinuousBernoulli(probs=m.full((5,), 0.3, dtype=p.dtype))
        return profile(m, d, [p]) + [D.kl_divergence(d, q), d.probs, d.logits,
                                     D.ContinuousBernoulli(0.3).sample((3,))]
    same_as_torch(build)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_continuous_bernoulli_kl_pairs_as_torch(dtype):
    def build(m, D):
        dt = getattr(m, dtype)
        cb = D.ContinuousBernoulli(probs=m.tensor([0.2, 0.5, 0.7], dtype=dt))
        return [D.kl_divergence(D.Beta(m.tensor([2.0, 0.5, 1.0], dtype=dt),
                                       m.tensor([1.0, 3.0, 1.0], dtype=dt)), cb),
                D.kl_divergence(D.Uniform(m.tensor([0.1, 0.0, 0.2], dtype=dt),
                                          m.tensor([0.9, 0.5, 1.0], dtype=dt)), cb),
                D.kl_divergence(cb, D.Exponential(m.tensor([0.5, 1.0, 2.0], dtype=dt))),
                D.kl_divergence(cb, D.Normal(m.tensor([0.0, 0.5, 1.0], dtype=dt),
                                             m.tensor([1.0, 0.3, 2.0], dtype=dt))),
                D.kl_divergence(cb, D.Uniform(m.tensor([-0.1, 0.0, -1.0], dtype=dt),
                                              m.tensor([1.1, 1.5, 1.0], dtype=dt))),
                D.kl_divergence(cb, D.Pareto(m.ones(3, dtype=dt), m.ones(3, dtype=dt))),
                D.kl_divergence(D.Normal(m.zeros(3, dtype=dt), m.ones(3, dtype=dt)), cb),
                D.kl_divergence(D.Gamma(m.ones(3, dtype=dt), m.ones(3, dtype=dt)), cb)]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.ContinuousBernoulli(probs=m.tensor([1.5]), validate_args=False),
    lambda m, D: D.ContinuousBernoulli(probs=m.tensor([0.5]), logits=m.tensor([0.0])),
    lambda m, D: D.ContinuousBernoulli(0.3).log_prob(m.tensor(1.5)),
], ids=["explicit-validation", "both", "support"])
def test_continuous_bernoulli_errors_as_torch(bad):
    raises_as_torch(bad)


def test_out_of_range_probs_are_clamped_unless_validation_is_asked_as_torch():
    def build(m, D):
        d = D.ContinuousBernoulli(probs=m.tensor([1.5, -0.5]))
        return [d.probs, d.mean]
    same_as_torch(build)
