"""Kumaraswamy (ember/distributions/kumaraswamy.py): samples, rsample gradients, log_prob, cdf
and icdf, entropy, moments, mode, expand and the errors, compared with torch 2.13."""
import pytest

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_kumaraswamy_matches_torch(dtype):
    def build(m, D):
        a = m.tensor([0.5, 1.5, 2.5, 6.0], dtype=getattr(m, dtype)).requires_grad_()
        b = m.tensor([2.0, 0.7, 3.0, 1.5], dtype=a.dtype).requires_grad_()
        return profile(m, D.Kumaraswamy(a, b), [a, b])
    same_as_torch(build)


def test_kumaraswamy_concentration_error_as_torch():
    raises_as_torch(lambda m, D: D.Kumaraswamy(m.ones(1), -m.ones(1)))
