"""LowRankMultivariateNormal (ember/distributions/lowrank_multivariate_normal.py): samples on
torch's stream, rsample and log_prob gradients, entropy, the covariance, precision and
scale_tril matrices, expand, the KL pairs with MultivariateNormal and the errors, compared with
torch 2.13."""
import pytest

import ember

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_lowrank_mvn_matches_torch(dtype):
    def build(m, D):
        loc = m.randn(2, 3, dtype=getattr(m, dtype)).requires_grad_()
        factor = m.randn(3, 2, dtype=loc.dtype).requires_grad_()
        diag = (m.rand(2, 3, dtype=loc.dtype) + 0.5).requires_grad_()
        d = D.LowRankMultivariateNormal(loc, factor, diag)
        mvn = D.MultivariateNormal(m.zeros(3, dtype=loc.dtype),
                                   scale_tril=m.eye(3, dtype=loc.dtype) * 2)
        other = D.LowRankMultivariateNormal(m.ones(3, dtype=loc.dtype),
                                            m.ones(3, 1, dtype=loc.dtype),
                                            m.ones(3, dtype=loc.dtype))
        return profile(m, d, [loc, factor, diag]) + [
            d.covariance_matrix, d.precision_matrix, d.scale_tril, D.kl_divergence(d, other),
            D.kl_divergence(other, mvn), D.kl_divergence(mvn, d), D.kl_divergence(other, d),
            d.expand((4, 2)).covariance_matrix.shape]
    same_as_torch(build)


def test_lowrank_to_mvn_kl_broadcasts_batches():
    """torch fails to expand a batched cov_diag against an unbatched q here (its combined batch
    shape leaves the diagonal out); ember's KL is that of the full-covariance MVN."""
    m, D = ember, ember.distributions
    p = D.LowRankMultivariateNormal(m.randn(2, 3, dtype=m.float64), m.randn(3, 2, dtype=m.float64),
                                    m.rand(2, 3, dtype=m.float64) + 0.5)
    q = D.MultivariateNormal(m.zeros(3, dtype=m.float64), scale_tril=2 * m.eye(3, dtype=m.float64))
    full = D.MultivariateNormal(p.loc, covariance_matrix=p.covariance_matrix)
    assert m.allclose(D.kl_divergence(p, q), D.kl_divergence(full, q))


@pytest.mark.parametrize("bad", [
    lambda m, D: D.LowRankMultivariateNormal(m.tensor(0.0), m.ones(1, 1), m.ones(1)),
    lambda m, D: D.LowRankMultivariateNormal(m.zeros(2), m.ones(2), m.ones(2)),
    lambda m, D: D.LowRankMultivariateNormal(m.zeros(2), m.ones(3, 1), m.ones(2)),
    lambda m, D: D.LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), m.ones(3)),
    lambda m, D: D.LowRankMultivariateNormal(m.zeros(2, 2), m.ones(3, 2, 1), m.ones(2)),
    lambda m, D: D.LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), m.tensor([-1.0, 10.0])),
    lambda m, D: D.kl_divergence(D.LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), m.ones(2)),
                                 D.LowRankMultivariateNormal(m.zeros(3), m.ones(3, 1), m.ones(3))),
    lambda m, D: D.kl_divergence(D.MultivariateNormal(m.zeros(3), m.eye(3)),
                                 D.LowRankMultivariateNormal(m.zeros(2), m.ones(2, 1), m.ones(2))),
], ids=["loc", "factor-dims", "factor-shape", "diag-shape", "batch", "diag", "kl", "kl-mixed"])
def test_lowrank_mvn_errors_as_torch(bad):
    raises_as_torch(bad)
