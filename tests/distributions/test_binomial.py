"""Binomial (ember/distributions/binomial.py) and torch.binomial: samples on torch's stream
(inversion below n p = 10, BTRS above, both kernels), log_prob and its gradients, entropy,
enumerate_support, moments, expand, KL and the errors, compared with torch 2.13."""
import numpy as np
import pytest
import torch

import ember

from ._oracle import profile, raises_as_torch, same_as_torch


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("given", ["probs", "logits"])
def test_binomial_matches_torch(given, dtype):
    def build(m, D):
        p = m.rand(4, dtype=getattr(m, dtype)) if given == "probs" else \
            m.randn(4, dtype=getattr(m, dtype))
        p.requires_grad_()
        big = 100.0 if dtype == "float64" else 30.0  # float32: lgamma(n + 1) cancels to ~1 ulp
        d = D.Binomial(m.tensor([5.0, 20.0, big, 0.0], dtype=p.dtype), **{given: p})
        h = D.Binomial(10, **{given: p})
        q = D.Binomial(5, probs=m.full((4,), 0.3, dtype=p.dtype))
        return profile(m, d, [p]) + [h.entropy(), h.enumerate_support().shape,
                                     D.kl_divergence(h, q), d.probs, d.logits]
    same_as_torch(build)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_torch_binomial_draws_torchs_counts_and_stream(dtype):
    rng = np.random.default_rng(0)
    counts = np.concatenate([np.floor(rng.uniform(0, 200, 300)), [0, 5, 10, 1000, 1e5, 20, 7]])
    probs = np.concatenate([rng.uniform(0, 1, 300), [0.5, 0, 1, 0.3, 0.01, 0.9999, 0.5]])
    out = []
    for m in (ember, torch):
        m.manual_seed(5)
        draws = m.binomial(m.tensor(counts, dtype=getattr(m, dtype)),
                           m.tensor(probs, dtype=getattr(m, dtype)))
        out.append(np.concatenate([draws.double().numpy(), m.rand(2).double().numpy()]))
    np.testing.assert_array_equal(out[0], out[1])


@pytest.mark.parametrize("bad", [
    lambda m, D: D.Binomial(m.tensor([2.5]), probs=m.tensor([0.5])),
    lambda m, D: D.Binomial(3, probs=m.tensor([0.5])).log_prob(m.tensor([4.0])),
    lambda m, D: D.Binomial(m.tensor([3.0, 4.0]), probs=m.tensor([0.5, 0.5])).entropy(),
    lambda m, D: D.kl_divergence(D.Binomial(2, probs=m.tensor([0.5])),
                                 D.Binomial(3, probs=m.tensor([0.5]))),
    lambda m, D: m.binomial(m.tensor([5, 10]), m.tensor([0.5, 0.5])),
    lambda m, D: m.binomial(m.tensor([5.0]), m.tensor([0.5], dtype=m.float64)),
    lambda m, D: m.binomial(m.tensor([5.0], dtype=m.float16), m.tensor([0.5], dtype=m.float16)),
    lambda m, D: m.binomial(m.tensor([5.0], requires_grad=True), m.tensor([0.5])).sum()
    .backward(),
], ids=["count", "support", "inhomogeneous", "kl", "long", "dtypes", "half", "backward"])
def test_binomial_errors_as_torch(bad):
    raises_as_torch(bad)
