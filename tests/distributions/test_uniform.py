"""Uniform (ember/distributions/uniform.py): samples, log_prob, entropy, moments, cdf and the
bounds error, compared with torch 2.13."""
from ._oracle import raises_as_torch, same_as_torch


def _uniform(m, D):
    u = D.Uniform(m.tensor([0.0, 1.0]), m.tensor([2.0, 3.0]))
    return [u.sample((2,)), u.rsample(), u.log_prob(m.tensor([0.5, 2.5])), u.entropy(), u.mean,
            u.variance, u.stddev, u.cdf(m.tensor([1.0, 2.0]))]


def test_uniform_matches_torch():
    same_as_torch(_uniform)


def test_uniform_bounds_error_as_torch():
    raises_as_torch(lambda m, D: D.Uniform(1.0, 0.0))
