"""Beta (ember/distributions/beta.py): samples on torch's Dirichlet stream, log_prob and its
gradients, entropy, moments, expand, KL and the errors, compared with torch 2.13 (rsample's
gradient is a different unbiased estimator: not compared)."""
import pytest

from ._oracle import profile, raises_as_torch, rsample_grads_close_to_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_beta_matches_torch(dtype):
    def build(m, D):
        a = (m.rand(3, dtype=getattr(m, dtype)) * 3 + 0.3).requires_grad_()
        b = (m.rand(3, dtype=a.dtype) * 3 + 0.3).requires_grad_()
        d = D.Beta(a, b)
        q = D.Beta(m.ones(3, dtype=a.dtype), 2 * m.ones(3, dtype=a.dtype))
        return profile(m, d, [a, b], rsample_params=[]) + [
            D.kl_divergence(d, q), D.Beta(2.0, 3.0).sample((3,)), d.concentration1,
            d.concentration0]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.Beta(m.ones(1), -m.ones(1)),
    lambda m, D: D.Beta(1.0, 1.0).log_prob(m.tensor(1.5)),
], ids=["concentration", "support"])
def test_beta_errors_as_torch(bad):
    raises_as_torch(bad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_beta_rsample_gradient_close_to_torch(dtype):
    def build(m, D):
        a = (m.rand(4, dtype=getattr(m, dtype)) * 3 + 0.3).requires_grad_()
        b = (m.rand(4, dtype=a.dtype) * 3 + 0.3).requires_grad_()
        return D.Beta(a, b).rsample((5,)), [a, b]
    rsample_grads_close_to_torch(build, rtol=2e-2, atol=5e-3)
