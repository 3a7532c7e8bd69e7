"""Shared by the bfloat16 kernel tests (test_bf16_grad.py, test_bf16_nn.py): one thread in both
libraries (torch's reduction order depends on its thread count), bit views, seeded inputs."""
import numpy as np
import pytest
import torch

import ember
from tests.kernels import assert_as_torch_kernel


@pytest.fixture(autouse=True)
def one_thread():
    before = torch.get_num_threads(), ember.get_num_threads()
    torch.set_num_threads(1)
    ember.set_num_threads(1)
    yield
    torch.set_num_threads(before[0])
    ember.set_num_threads(before[1])


def bits(x):
    """The raw 16 bits of a bfloat16 tensor of either library (bit-exact comparisons)."""
    x = x.detach()
    return x.view(torch.int16).numpy() if isinstance(x, torch.Tensor) else \
        x.numpy().view(np.int16)


def bf16_input(lib, shape, seed, positive=False):
    """Seeded normal values (times 3; |x| + 0.1 when ``positive``) as a bfloat16 tensor."""
    x = (np.random.RandomState(seed).randn(*shape) * 3).astype(np.float32)
    if positive:
        x = np.abs(x) + 0.1
    return lib.tensor(x).to(lib.bfloat16)


def check_bit_exact(case, seed, exact=True):
    """case = (fn(*inputs, lib), input shapes, positive inputs): the output and every input
    gradient (a seeded output gradient unless the output is 0-d) have torch's dtype and bits."""
    fn, shapes, positive = case
    results = []
    for lib in (torch, ember):
        inputs = [bf16_input(lib, s, seed + 10 * i, positive).requires_grad_()
                  for i, s in enumerate(shapes)]
        out = fn(*inputs, lib)
        out.backward(bf16_input(lib, out.shape, seed + 99) if out.ndim else None)
        results.append([out] + [x.grad for x in inputs])
    for t, e in zip(*results):
        assert str(e.dtype) == str(t.dtype).replace("torch", "ember")
        assert_as_torch_kernel(e, t, bits, exact=exact, rtol=2 ** -7, atol=0, of_max=2 ** -6)
    return results[1]
