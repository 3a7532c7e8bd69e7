"""MultivariateNormal (ember/distributions/multivariate_normal.py): by covariance, precision or
scale_tril - samples, log_prob, entropy, gradients and the parameter errors, compared with torch
2.13."""
import pytest

from ._oracle import raises_as_torch, same_as_torch


def _multivariate_normal(m, D):
    a = m.randn(3, 3)
    cov = a @ a.T + 0.5 * m.eye(3)
    loc = m.randn(2, 3, requires_grad=True)
    d = D.MultivariateNormal(loc, covariance_matrix=cov)
    r = d.rsample((4,))
    lp = d.log_prob(r)
    lp.sum().backward()
    by_precision = D.MultivariateNormal(m.zeros(3), precision_matrix=m.inverse(cov))
    by_tril = D.MultivariateNormal(m.zeros(3), scale_tril=m.linalg.cholesky(cov))
    return [tuple(d.batch_shape), tuple(d.event_shape), d.scale_tril, d.precision_matrix, r, lp,
            d.entropy(), d.variance, loc.grad, by_precision.scale_tril,
            by_precision.covariance_matrix, by_precision.sample((2,)),
            by_tril.log_prob(m.ones(2, 3)), by_tril.entropy()]


def test_multivariate_normal_matches_torch():
    same_as_torch(_multivariate_normal)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.MultivariateNormal(m.zeros(3)),
    lambda m, D: D.MultivariateNormal(m.zeros(3), covariance_matrix=-m.eye(3)),
    lambda m, D: D.MultivariateNormal(m.tensor(0.0), covariance_matrix=m.eye(3)),
    lambda m, D: D.MultivariateNormal(m.zeros(3), scale_tril=m.ones(3, 3)),
    lambda m, D: D.MultivariateNormal(m.zeros(3), precision_matrix=m.ones(3)),
], ids=["mvn-none", "mvn-not-pd", "mvn-loc-0d", "mvn-not-tril", "mvn-1d"])
def test_multivariate_normal_errors_as_torch(bad):
    raises_as_torch(bad)
