"""Pooling primitives (ember/ops/pooling.py): max pooling (with indices, padding, dilation,
ceil_mode), average pooling (count_include_pad, divisor_override) and adaptive average pooling
against torch: values, gradients, second derivatives, grad_fn names, returned indices."""
import numpy as np
import pytest
import torch
from oracle import check, close

import ember

X = np.random.default_rng(0).standard_normal((2, 3, 7, 6))


def _f(lib):
    return lib.nn.functional


CASES = {
    "max": lambda L, x: _f(L).max_pool2d(x, 2),
    "max_stride_pad": lambda L, x: _f(L).max_pool2d(x, 3, stride=2, padding=1),
    "max_dilation_ceil": lambda L, x: _f(L).max_pool2d(x, 2, dilation=2, ceil_mode=True),
    "avg": lambda L, x: _f(L).avg_pool2d(x, 2),
    "avg_pad_exclude": lambda L, x: _f(L).avg_pool2d(x, 3, 2, 1, count_include_pad=False),
    "avg_divisor": lambda L, x: _f(L).avg_pool2d(x, (2, 3), divisor_override=4),
    "avg_ceil": lambda L, x: _f(L).avg_pool2d(x, 2, ceil_mode=True),
    "adaptive": lambda L, x: _f(L).adaptive_avg_pool2d(x, (3, 4)),
    "adaptive_1": lambda L, x: _f(L).adaptive_avg_pool2d(x, 1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    check(CASES[name], X)


def test_max_pool_indices_match_torch():
    e, ei = _f(ember).max_pool2d(ember.tensor(X), 3, 2, 1, return_indices=True)
    t, ti = _f(torch).max_pool2d(torch.tensor(X), 3, 2, 1, return_indices=True)
    close(e, t)
    close(ei, ti)


def test_kernel_larger_than_input_raises_as_torch():
    errors = []
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as info:
            _f(lib).max_pool2d(lib.ones(1, 1, 2, 2), 3)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
