"""Laplace (ember/distributions/laplace.py): rsample, log_prob, cdf/icdf, entropy, moments, KL and
the scale error, compared with torch 2.13."""
from ._oracle import raises_as_torch, same_as_torch


def _laplace(m, D):
    lap = D.Laplace(m.randn(3), m.rand(3) + 0.5)
    x = lap.rsample((2,))
    return [x, lap.log_prob(x), lap.cdf(x), lap.icdf(m.tensor([0.1, 0.5, 0.9])), lap.entropy(),
            lap.variance, lap.stddev, D.kl_divergence(lap, D.Laplace(m.zeros(3), m.ones(3)))]


def test_laplace_matches_torch():
    same_as_torch(_laplace)


def test_laplace_scale_error_as_torch():
    raises_as_torch(lambda m, D: D.Laplace(m.zeros(1), m.zeros(1)))
