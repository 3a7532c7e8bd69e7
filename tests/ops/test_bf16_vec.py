"""torch's vectorized bfloat16 kernels lane by lane (ember/ops/_bf16_vec.py): GELU (erf and tanh
forms) forward and backward bit-exact with torch 2.13, over contiguous, sliced, strided and
transposed inputs, thread counts, vector tails, NaN and inf."""
import numpy as np
import pytest
import torch

import ember
from tests.kernels import ONEDNN_BFLOAT16, TORCH_AVX2, assert_as_torch_kernel

from .test_bf16 import _bits, threads  # noqa: F401 (threads: a fixture)

pytest.importorskip("ml_dtypes")

VIEWS = {"contiguous": lambda a: a, "slice": lambda a: a[:, 3:60],
         "transposed": lambda a: a.t(), "strided": lambda a: a[:, ::2]}


def _values(y):
    """bfloat16 bits, every NaN alike (torch's NaN signs are not part of the contract)."""
    return np.where(np.isnan(y.detach().float().numpy()), 0x7FC0, _bits(y))


@pytest.mark.parametrize("shape", [(400, 31), (300, 70), (3, 17000)])
@pytest.mark.parametrize("view", sorted(VIEWS))
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_forward_and_backward_as_torchs_vectorized_kernel(threads, shape, view,  # noqa: F811
                                                              approximate):
    rs = np.random.RandomState(threads)
    x = (rs.randn(*shape) * 3).astype(np.float32)
    x.flat[:5] = [np.nan, np.inf, -np.inf, 0.0, -5.15625]  # -5.15: tanh saturates (Sleef)
    outs = []
    for lib in (torch, ember):
        a = lib.tensor(x).to(lib.bfloat16).requires_grad_()
        y = lib.nn.functional.gelu(VIEWS[view](a), approximate=approximate)
        seed = np.random.RandomState(1).randn(*y.shape).astype(np.float32)
        y.backward(lib.tensor(seed).to(lib.bfloat16))
        outs.append((y, a.grad))
    # elsewhere torch runs AVX512's 32-lane steps, and oneDNN for a contiguous erf GELU
    exact = TORCH_AVX2 and not (ONEDNN_BFLOAT16 and approximate == "none" and view == "contiguous")
    for t, e in zip(*outs):
        assert_as_torch_kernel(e, t, _values, exact=exact, rtol=2 ** -7, atol=1e-5)
