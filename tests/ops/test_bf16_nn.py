"""torch's bfloat16 normalization and convolution kernels (ember/ops/_bf16_nn.py): batch norm
training, group norm and convolution backward, bit-exact with torch 2.13 on random inputs."""
import numpy as np
import pytest
import torch

import ember
from tests.kernels import ONEDNN_BFLOAT16

pytest.importorskip("ml_dtypes")

from ._bf16_cases import bf16_input as _input  # noqa: E402
from ._bf16_cases import bits as _bits  # noqa: E402
from ._bf16_cases import (
    check_bit_exact,  # noqa: E402
    one_thread,  # noqa: E402, F401  (autouse fixture)
)

# (function, input shapes, positive inputs)
CASES = {
    "group_norm": (lambda a, L: L.nn.functional.group_norm(a, 2), [(2, 4, 5, 6)], False),
    "group_norm_affine": (lambda a, w, b, L: L.nn.functional.group_norm(a, 3, w, b),
                          [(3, 6, 7), (6,), (6,)], False),
    # torch's slow (im2col) bfloat16 convolution, the CPU path without oneDNN's bfloat16
    "conv2d": (lambda a, w, L: L.nn.functional.conv2d(a, w, padding=1),
               [(2, 3, 8, 8), (4, 3, 3, 3)], False),
    "conv2d_bias_stride_dilation": (lambda a, w, b, L: L.nn.functional.conv2d(
        a, w, b, stride=2, padding=(2, 1), dilation=(2, 1)), [(3, 2, 9, 7), (5, 2, 3, 2), (5,)],
        False),
    "conv1d": (lambda a, w, b, L: L.nn.functional.conv1d(a, w, b, padding=2),
               [(2, 3, 11), (4, 3, 5), (4,)], False),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("seed", range(2))
def test_backward_is_bit_exact_with_torch(name, seed):
    # where the CPU has AVX512 bfloat16, torch runs its bfloat16 convolutions in oneDNN instead
    exact = not (name.startswith("conv") and ONEDNN_BFLOAT16)
    assert all(t.dtype is ember.bfloat16 for t in check_bit_exact(CASES[name], seed, exact))


@pytest.mark.parametrize("shape", [(4, 3, 5, 6), (16, 8), (5, 4, 7)])
@pytest.mark.parametrize("seed", range(2))
def test_bfloat16_batch_norm_trains_as_torch(shape, seed):
    """Full-bfloat16 BatchNorm: forward, running statistics over two steps, backward, eval."""
    results = []
    for lib in (torch, ember):
        kind = {4: lib.nn.BatchNorm2d, 2: lib.nn.BatchNorm1d, 3: lib.nn.BatchNorm1d}[len(shape)]
        norm = kind(shape[1]).to(lib.bfloat16)
        with lib.no_grad():
            norm.weight.copy_(_input(lib, (shape[1],), 5))
            norm.bias.copy_(_input(lib, (shape[1],), 6))
        outs = []
        for step in range(2):
            x = (_input(lib, shape, seed + step) + 1).requires_grad_()
            y = norm(x)
            y.backward(_input(lib, shape, 9))
            outs += [y, x.grad, norm.running_mean.clone(), norm.running_var.clone()]
        norm.eval()
        outs += [norm(_input(lib, shape, 7)), norm.weight.grad, norm.bias.grad]
        results.append(outs)
    for t, e in zip(*results):
        assert e.dtype is ember.bfloat16
        np.testing.assert_array_equal(_bits(e), _bits(t))
