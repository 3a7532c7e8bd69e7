"""Gamma (ember/distributions/gamma.py) and torch._standard_gamma: samples on torch's
Marsaglia-Tsang stream (float32 and float64 kernels), log_prob and its gradients, entropy,
moments, expand, KL and the errors, compared with torch 2.13; rsample's gradient (exact) agrees
with torch's approximation to 1e-3."""
import numpy as np
import pytest
import torch

import ember

from ._oracle import profile, raises_as_torch, rsample_grads_close_to_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma_matches_torch(dtype):
    def build(m, D):
        a = (m.rand(4, dtype=getattr(m, dtype)) * 3 + 0.2).requires_grad_()
        rate = (m.rand(4, dtype=a.dtype) + 0.5).requires_grad_()
        d = D.Gamma(a, rate)
        q = D.Gamma(m.ones(4, dtype=a.dtype), 2 * m.ones(4, dtype=a.dtype))
        return profile(m, d, [a, rate], rsample_params=[rate]) + [
            D.Gamma(2.0, 3.0).sample((3,)), D.kl_divergence(d, q),
            D.kl_divergence(d, D.Exponential(rate)), repr(D.Gamma(2.0, 3.0))]
    same_as_torch(build)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_standard_gamma_stream_and_gradient_as_torch(dtype):
    alphas = np.concatenate([np.random.default_rng(0).uniform(0, 5, 200),
                             [0.0, 1e-3, 0.999, 1.0, 50.0, 1e4]])
    out = []
    for m in (ember, torch):
        m.manual_seed(7)
        a = m.tensor(alphas, dtype=getattr(m, dtype), requires_grad=True)
        x = m._standard_gamma(a)
        x.sum().backward()
        out.append((x.detach().double().numpy(), a.grad.double().numpy(),
                    m.randn(3).double().numpy(), type(x.grad_fn).__name__))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][2], out[1][2])
    assert out[0][3] == out[1][3]
    keep = (alphas > 0.01) & (out[1][0] > 1e-6)
    np.testing.assert_allclose(out[0][1][keep], out[1][1][keep], rtol=1e-3)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.Gamma(m.ones(1), -m.ones(1)),
    lambda m, D: D.Gamma(1.0, 1.0).log_prob(m.tensor(-1.0)),
    lambda m, D: m._standard_gamma(m.ones(2, dtype=m.long)),
], ids=["rate", "support", "integer"])
def test_gamma_errors_as_torch(bad):
    raises_as_torch(bad)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gamma_rsample_gradient_close_to_torch(dtype):
    def build(m, D):
        a = (m.rand(6, dtype=getattr(m, dtype)) * 5 + 0.1).requires_grad_()
        rate = (m.rand(6, dtype=a.dtype) + 0.5).requires_grad_()
        return D.Gamma(a, rate).rsample((4,)), [a, rate]
    rsample_grads_close_to_torch(build, rtol=2e-3, atol=1e-5)
