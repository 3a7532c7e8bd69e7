"""GeneralizedPareto (ember/distributions/generalized_pareto.py): samples by the icdf of torch's
uniforms, rsample and log_prob gradients, cdf, log_cdf and the log survival function, support,
moments, entropy, expand and the errors, for negative, zero and positive concentrations,
compared with torch 2.13."""
import math

import pytest

import ember

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32"])  # torch 2.13's float64 log_prob raises (below)
def test_generalized_pareto_matches_torch(dtype):
    def build(m, D):
        loc = m.randn(4, dtype=getattr(m, dtype)).requires_grad_()
        scale = (m.rand(4, dtype=loc.dtype) + 0.5).requires_grad_()
        c = m.tensor([-0.3, 0.0, 0.2, 0.7], dtype=loc.dtype).requires_grad_()
        d = D.GeneralizedPareto(loc, scale, c)
        x = d.sample((3,))
        return profile(m, d, [loc, scale, c]) + [d.log_survival_function(x), d.log_cdf(x),
                                                 D.GeneralizedPareto(0.0, 1.0, 0.1).sample((2,))]
    same_as_torch(build)


def test_generalized_pareto_float64_as_torch_where_torch_computes():
    """torch 2.13 compares a float64 concentration with a float32 zero in log_prob (a
    RuntimeError); ember computes it. The rest agrees."""
    def build(m, D):
        c = m.tensor([-0.3, 0.0, 0.2, 0.7], dtype=m.float64).requires_grad_()
        d = D.GeneralizedPareto(m.zeros(4, dtype=m.float64), m.ones(4, dtype=m.float64), c)
        x = d.rsample((3,))
        x.sum().backward()
        return [x, c.grad, d.icdf(m.tensor([0.1, 0.5, 0.9, 0.99], dtype=m.float64)), d.mean,
                d.variance, d.entropy()]
    same_as_torch(build)

    d = ember.distributions.GeneralizedPareto(0.0, 1.0, ember.tensor(0.5, dtype=ember.float64))
    assert d.log_prob(ember.tensor(1.0, dtype=ember.float64)).item() == \
        pytest.approx(-3 * math.log1p(0.5))


@pytest.mark.parametrize("bad", [
    lambda m, D: D.GeneralizedPareto(m.zeros(1), m.zeros(1), m.zeros(1)),
    lambda m, D: D.GeneralizedPareto(m.zeros(1), m.ones(1), -m.ones(1)).log_prob(m.tensor([2.0])),
], ids=["scale", "support"])
def test_generalized_pareto_errors_as_torch(bad):
    raises_as_torch(bad)
