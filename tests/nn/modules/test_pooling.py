"""Pooling modules vs torch: outputs, gradients, indices and repr."""
import numpy as np
import pytest
import torch
from layer_oracle import check_module, rand

import ember


@pytest.mark.parametrize("cls,args,kw,shape", [
    ("MaxPool2d", (2,), {}, (2, 3, 8, 8)),
    ("MaxPool2d", (3, 2, 1), dict(ceil_mode=True), (2, 3, 7, 8)),
    ("MaxPool2d", ((2, 3),), dict(dilation=2, stride=1), (3, 7, 8)),
    ("MaxPool1d", (3, 2), dict(padding=1), (2, 3, 9)),
    ("AvgPool2d", (3, 2, 1), dict(count_include_pad=False), (2, 3, 7, 8)),
    ("AvgPool2d", (2,), dict(divisor_override=3), (2, 3, 6, 6)),
    ("AvgPool1d", (3,), dict(stride=2, ceil_mode=True), (2, 3, 10)),
    ("AdaptiveAvgPool2d", ((3, 2),), {}, (2, 3, 7, 8)),
    ("AdaptiveAvgPool2d", (1,), {}, (2, 3, 7, 8)),
    ("AdaptiveAvgPool1d", (4,), {}, (2, 3, 10)),
])
def test_pool_modules(cls, args, kw, shape):
    check_module(lambda lib: getattr(lib.nn, cls)(*args, **kw), rand(*shape))
    assert repr(getattr(ember.nn, cls)(*args, **kw)) == repr(getattr(torch.nn, cls)(*args, **kw))


def test_max_pool_return_indices():
    x = rand(2, 3, 6, 6)
    e_out, e_idx = ember.nn.MaxPool2d(2, return_indices=True)(ember.tensor(x))
    t_out, t_idx = torch.nn.MaxPool2d(2, return_indices=True)(torch.tensor(x))
    assert np.array_equal(e_idx.numpy(), t_idx.numpy())
    np.testing.assert_array_equal(e_out.numpy(), t_out.numpy())
