"""Wishart (ember/distributions/wishart.py): Bartlett draws on torch's streams (the chi-squared
diagonal, then the normals), log_prob and its gradients, entropy, moments, the three matrix
parametrizations, expand, singular-draw correction and the errors, compared with torch 2.13."""
import warnings

import pytest
import torch

import ember

from ._oracle import raises_as_torch, same_as_torch


def _params(m, dtype):
    a = m.randn(2, 3, 3, dtype=dtype)
    cov = a @ a.mT + m.eye(3, dtype=dtype)
    return cov.requires_grad_(), m.tensor([4.0, 6.5], dtype=dtype).requires_grad_()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("given", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_wishart_matches_torch(given, dtype):
    def build(m, D):
        cov, df = _params(m, getattr(m, dtype))
        matrix = {"covariance_matrix": cov, "precision_matrix": m.linalg.inv(cov),
                  "scale_tril": m.linalg.cholesky(cov)}[given]
        d = D.Wishart(df, **{given: matrix})
        x = d._bartlett_sampling((2,))
        lp = d.log_prob(x.detach())
        lp.sum().backward()
        e = d.expand((4, 2))
        return [tuple(d.batch_shape), tuple(d.event_shape), x, lp, cov.grad, df.grad,
                d.entropy(), d.mean, d.mode, d.variance, d.covariance_matrix,
                d.precision_matrix, d.scale_tril, tuple(e.batch_shape),
                e._bartlett_sampling().shape, m.rand(2)]
    same_as_torch(build)


def test_rsample_is_one_bartlett_draw_when_nothing_is_singular():
    """(torch 2.13 redraws every non-singular sample, with a warning: its test is inverted)"""
    m = ember
    cov, df = _params(m, m.float64)
    d = m.distributions.Wishart(df, covariance_matrix=cov.detach())
    m.manual_seed(5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        drawn = d.rsample((3,))
    m.manual_seed(5)
    assert m.equal(drawn, d._bartlett_sampling((3,)))


def test_low_df_warns_as_torch():
    for m in (ember, torch):
        with pytest.warns(UserWarning, match="Low df values detected"):
            m.distributions.Wishart(m.tensor(2.5), covariance_matrix=m.eye(3))


@pytest.mark.parametrize("bad", [
    lambda m, D: D.Wishart(m.tensor(5.0)),
    lambda m, D: D.Wishart(m.tensor(5.0), covariance_matrix=m.eye(2), scale_tril=m.eye(2)),
    lambda m, D: D.Wishart(m.tensor(5.0), covariance_matrix=m.ones(2)),
    lambda m, D: D.Wishart(m.tensor(1.0), covariance_matrix=m.eye(3)),
    lambda m, D: D.Wishart(5.0, covariance_matrix=m.eye(2)).log_prob(m.tensor([[1.0, 2.0],
                                                                               [2.0, 1.0]])),
], ids=["none", "two", "vector", "df", "support"])
def test_wishart_errors_as_torch(bad):
    raises_as_torch(bad)
