"""InverseGamma (ember/distributions/inverse_gamma.py): samples on torch's gamma stream,
log_prob and its gradients, cdf, entropy, moments (inf for small concentrations), expand and
the errors, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_inverse_gamma_matches_torch(dtype):
    def build(m, D):
        a = m.tensor([0.5, 1.5, 2.5, 6.0], dtype=getattr(m, dtype)).requires_grad_()
        rate = (m.rand(4, dtype=a.dtype) + 0.5).requires_grad_()
        d = D.InverseGamma(a, rate)
        return profile(m, d, [a, rate], rsample_params=[rate]) + [
            D.InverseGamma(2.0, 3.0).sample((2,))]
    same_as_torch(build)


def test_inverse_gamma_rate_error_as_torch():
    raises_as_torch(lambda m, D: D.InverseGamma(m.ones(1), m.zeros(1)))
