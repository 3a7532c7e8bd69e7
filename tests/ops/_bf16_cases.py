"""Shared by the bfloat16 kernel tests (test_bf16_grad.py, test_bf16_nn.py): one thread in both
libraries (torch's reduction order depends on its thread count), bit views, seeded inputs."""
import numpy as np
import pytest
import torch

import ember


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
