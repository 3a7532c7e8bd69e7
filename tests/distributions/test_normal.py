"""Normal (ember/distributions/normal.py): samples on torch's random streams, log_prob, cdf/icdf,
entropy, moments, rsample gradients and the validation errors, compared with torch 2.13."""
import pytest

from ._oracle import raises_as_torch, same_as_torch


def _normal(m, D):
    loc = m.randn(3, requires_grad=True)
    n = D.Normal(loc, m.rand(3) + 0.5)
    r = n.rsample((2,))
    lp = n.log_prob(r)
    lp.sum().backward()
    return [n.sample((2,)), r, lp, loc.grad, n.entropy(), n.cdf(m.zeros(3)),
            n.icdf(m.tensor([0.1, 0.5, 0.9])), n.mean, n.stddev, n.variance,
            tuple(n.batch_shape), tuple(n.event_shape), n.mean is loc]


def _scalar_normal(m, D):
    n = D.Normal(0.0, 2.0)
    return [tuple(n.batch_shape), n.sample(), n.sample((4,)), n.log_prob(m.tensor(0.3))]


@pytest.mark.parametrize("build", [_normal, _scalar_normal], ids=lambda f: f.__name__[1:])
def test_normal_matches_torch(build):
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.Normal(m.zeros(2), m.tensor([1.0, -1.0])),
    lambda m, D: D.Normal(0.0, 1.0).log_prob(0.5),
    lambda m, D: D.Normal(m.zeros(2), m.ones(2)).log_prob(m.zeros(3)),
], ids=["scale", "not-tensor", "broadcast"])
def test_normal_errors_as_torch(bad):
    raises_as_torch(bad)
