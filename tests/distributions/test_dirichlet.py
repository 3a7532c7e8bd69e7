"""Dirichlet (ember/distributions/dirichlet.py): samples on torch's stream (float64 gammas,
normalized), log_prob and its gradient, entropy, moments, mode, expand, KL and the errors,
compared with torch 2.13 (rsample's gradient is a different unbiased estimator: not compared)."""
import pytest

from ._oracle import profile, raises_as_torch, rsample_grads_close_to_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dirichlet_matches_torch(dtype):
    def build(m, D):
        a = (m.rand(2, 3, dtype=getattr(m, dtype)) * 3 + 0.3).requires_grad_()
        d = D.Dirichlet(a)
        q = D.Dirichlet(m.ones(2, 3, dtype=a.dtype))
        return profile(m, d, [a], rsample_params=[]) + [
            D.kl_divergence(d, q), D.Dirichlet(m.tensor([0.5, 0.7], dtype=a.dtype)).mode]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.Dirichlet(m.tensor(1.0)),
    lambda m, D: D.Dirichlet(m.tensor([1.0, -1.0])),
    lambda m, D: D.Dirichlet(m.ones(2)).log_prob(m.tensor([0.5, 0.6])),
], ids=["scalar", "negative", "support"])
def test_dirichlet_errors_as_torch(bad):
    raises_as_torch(bad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dirichlet_rsample_gradient_close_to_torch(dtype):
    """torch's _dirichlet_grad approximates the implicit gradient (to ~5e-4 relative); ember's
    is exact, so the projected gradients agree to a few 1e-3."""
    def build(m, D):
        a = (m.rand(4, 3, dtype=getattr(m, dtype)) * 3 + 0.3).requires_grad_()
        x = D.Dirichlet(a).rsample((5,))
        return x * m.arange(3, dtype=a.dtype), [a]
    rsample_grads_close_to_torch(build, rtol=2e-2, atol=5e-3)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_torch_sample_dirichlet_stream_as_torch(dtype):
    def build(m, D):
        a = m.rand(50, 4, dtype=getattr(m, dtype)) * 3 + 0.01
        return [m._sample_dirichlet(a), m.rand(3)]
    same_as_torch(build)
