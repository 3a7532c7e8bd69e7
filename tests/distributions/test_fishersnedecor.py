"""FisherSnedecor (ember/distributions/fishersnedecor.py): samples on torch's gamma stream,
rsample, log_prob and its gradients, moments (nan for small df), expand and the errors,
compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fisher_snedecor_matches_torch(dtype):
    def build(m, D):
        df1 = m.tensor([1.5, 3.0, 6.0], dtype=getattr(m, dtype)).requires_grad_()
        df2 = m.tensor([1.0, 4.5, 9.0], dtype=df1.dtype).requires_grad_()
        d = D.FisherSnedecor(df1, df2)
        return profile(m, d, [df1, df2], rsample_params=[]) + [
            D.FisherSnedecor(2.0, 5.0).sample((2,))]
    same_as_torch(build)


def test_fisher_snedecor_df_error_as_torch():
    raises_as_torch(lambda m, D: D.FisherSnedecor(m.ones(1), m.zeros(1)))
