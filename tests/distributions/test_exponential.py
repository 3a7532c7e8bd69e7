"""Exponential (ember/distributions/exponential.py): rsample and its gradient, log_prob, cdf/icdf,
entropy, moments, KL, expand and the support error, compared with torch 2.13."""
from ._oracle import raises_as_torch, same_as_torch


def _exponential(m, D):
    rate = (m.rand(3) + 0.5).requires_grad_()
    e = D.Exponential(rate)
    r = e.rsample((2,))
    r.sum().backward()
    return [r, rate.grad, e.log_prob(r), e.entropy(), e.cdf(r), e.icdf(m.tensor([0.1, 0.5, 0.9])),
            e.mean, e.variance, e.mode, D.Exponential(2.0).sample((3,)),
            D.kl_divergence(e, D.Exponential(m.ones(3))), e.expand((2, 3)).sample(),
            repr(e.support)]


def test_exponential_matches_torch():
    same_as_torch(_exponential)


def test_exponential_support_error_as_torch():
    raises_as_torch(lambda m, D: D.Exponential(m.tensor([1.0])).log_prob(m.tensor([-1.0])))
