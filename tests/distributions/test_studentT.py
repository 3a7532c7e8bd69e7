"""StudentT (ember/distributions/studentT.py): samples (normals, then chi-squared gammas, as
torch draws them), rsample gradients in loc and scale, log_prob and its gradients, entropy,
moments by df, expand and the errors, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, rsample_grads_close_to_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_student_t_matches_torch(dtype):
    def build(m, D):
        df = m.tensor([0.5, 1.5, 3.0, 7.0], dtype=getattr(m, dtype)).requires_grad_()
        loc = m.randn(4, dtype=df.dtype).requires_grad_()
        scale = (m.rand(4, dtype=df.dtype) + 0.5).requires_grad_()
        d = D.StudentT(df, loc, scale)
        return profile(m, d, [df, loc, scale], rsample_params=[loc, scale]) + [
            D.StudentT(3.0).sample((2,))]
    same_as_torch(build)


def test_student_t_df_error_as_torch():
    raises_as_torch(lambda m, D: D.StudentT(m.zeros(1)))


def test_student_t_df_gradient_close_to_torch():
    def build(m, D):
        df = (m.rand(6, dtype=m.float64) * 5 + 0.5).requires_grad_()
        return D.StudentT(df, 0.5, 2.0).rsample((4,)), [df]
    rsample_grads_close_to_torch(build, rtol=2e-3, atol=1e-5)
