"""Chi2 (ember/distributions/chi2.py): samples on torch's gamma stream, log_prob and its
gradient, entropy, moments, df, expand and the errors, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, rsample_grads_close_to_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_chi2_matches_torch(dtype):
    def build(m, D):
        df = (m.rand(3, dtype=getattr(m, dtype)) * 5 + 0.5).requires_grad_()
        d = D.Chi2(df)
        return profile(m, d, [df], rsample_params=[]) + [d.df, D.Chi2(3.0).sample((2,))]
    same_as_torch(build)


def test_chi2_df_error_as_torch():
    raises_as_torch(lambda m, D: D.Chi2(-m.ones(1)))


def test_chi2_rsample_gradient_close_to_torch():
    def build(m, D):
        df = (m.rand(6, dtype=m.float64) * 5 + 0.5).requires_grad_()
        return D.Chi2(df).rsample((4,)), [df]
    rsample_grads_close_to_torch(build, rtol=2e-3, atol=1e-5)
