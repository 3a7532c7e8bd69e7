"""Poisson (ember/distributions/poisson.py) and torch.poisson: samples on torch's stream (small
rates by products of uniforms, rates from 10 by transformed rejection), log_prob, moments,
expand, the zero gradient and the errors, compared with torch 2.13."""
import numpy as np
import pytest
import torch

import ember

from ._oracle import raises_as_torch, same_as_torch


def _poisson(m, D):
    rate = (m.rand(4) * 30).requires_grad_()
    p = D.Poisson(rate)
    s = p.sample((3,))
    lp = p.log_prob(s)
    lp.sum().backward()
    return [s, lp, rate.grad, p.mean, p.mode, p.variance, D.Poisson(2.5).sample((5,)),
            p.expand((2, 4)).sample(), repr(p.support), m.rand(2)]


def test_poisson_distribution_matches_torch():
    same_as_torch(_poisson)


def test_poisson_log_prob_support_error_as_torch():
    raises_as_torch(lambda m, D: D.Poisson(m.tensor([1.0])).log_prob(m.tensor([0.5])))


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_torch_poisson_draws_torchs_counts_and_stream(dtype):
    """Rates around the method switch at 10, tiny, huge and zero, then the stream after them."""
    rates = np.concatenate([np.random.default_rng(1).uniform(0, 30, 300),
                            [0, 1e-30, 9.999, 10, 10.0001, 1000, 1e6]])
    out = []
    for lib in (ember, torch):
        lib.manual_seed(4)
        counts = lib.poisson(lib.tensor(rates, dtype=getattr(lib, dtype)))
        out.append(np.concatenate([counts.double().numpy(), lib.rand(3).double().numpy()]))
    np.testing.assert_array_equal(out[0], out[1])


def test_torch_poisson_gradient_is_zero_and_errors_as_torch():
    for lib in (ember, torch):
        rate = lib.tensor([1.5, 20.0], requires_grad=True)
        y = lib.poisson(rate)
        assert type(y.grad_fn).__name__ == "PoissonBackward0"
        y.sum().backward()
        assert rate.grad.tolist() == [0.0, 0.0]
    for bad in ([-1.0], [float("nan")]):
        raises_as_torch(lambda m, D: m.poisson(m.tensor(bad)))
    raises_as_torch(lambda m, D: m.poisson(m.tensor([1, 2])))
