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
    ("MaxPool3d", (3, 2, 1), dict(ceil_mode=True), (2, 3, 5, 6, 7)),
    ("MaxPool3d", ((2, 1, 2),), {}, (3, 4, 4, 6)),
    ("AvgPool3d", (3, 2, 1), dict(count_include_pad=False), (2, 3, 5, 6, 7)),
    ("AvgPool3d", (2,), dict(divisor_override=3), (3, 4, 4, 6)),
    ("AdaptiveAvgPool3d", ((1, None, 2),), {}, (2, 3, 5, 6, 7)),
    ("AdaptiveMaxPool3d", (2,), {}, (2, 3, 5, 6, 7)),
    ("AdaptiveMaxPool3d", ((3, 2, 4),), dict(return_indices=True), (3, 5, 6, 7)),
    ("AdaptiveMaxPool2d", ((3, None),), {}, (2, 3, 7, 8)),
    ("AdaptiveMaxPool1d", (4,), dict(return_indices=True), (2, 3, 10)),
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


@pytest.mark.parametrize("shape,ceil_mode", [((2, 3, 8, 8), False), ((2, 3, 7, 9), False),
                                             ((3, 7, 9), True)])
def test_max_pool_2x2_ties_match_torch(shape, ceil_mode):
    # few distinct values: most windows hold tied maxima; torch picks the first in raster order
    x = np.random.default_rng(0).integers(0, 3, shape).astype(np.float32)
    g = np.random.default_rng(1).standard_normal(
        torch.nn.functional.max_pool2d(torch.tensor(x), 2, ceil_mode=ceil_mode).shape)
    results = []
    for lib in (torch, ember):
        xt = lib.tensor(x, requires_grad=True)
        out, idx = lib.nn.functional.max_pool2d(xt, 2, ceil_mode=ceil_mode, return_indices=True)
        out.backward(lib.tensor(g.astype(np.float32)))
        results.append((out.detach().numpy(), idx.numpy(), xt.grad.numpy()))
    for got, expected in zip(results[1], results[0]):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("cls, shape, kw", [
    ("MaxUnpool1d", (2, 3, 8), {}), ("MaxUnpool2d", (2, 3, 4, 6), dict(stride=2)),
    ("MaxUnpool3d", (1, 2, 4, 4, 6), {})])
def test_max_unpool_modules(cls, shape, kw):
    n = int(cls[-2])
    x = rand(*shape)
    pool = getattr(torch.nn, f"MaxPool{n}d")(2, return_indices=True)
    values, indices = (a.detach().numpy() for a in pool(torch.tensor(x)))
    check_module(lambda lib: getattr(lib.nn, cls)(2, **kw), values, indices)
    assert repr(getattr(ember.nn, cls)(2, **kw)) == repr(getattr(torch.nn, cls)(2, **kw))


@pytest.mark.parametrize("cls, args, kw, shape", [
    ("LPPool1d", (2, 3), dict(stride=2), (2, 3, 9)), ("LPPool2d", (2, 2), {}, (2, 3, 4, 6)),
    ("LPPool3d", (1.5, 2), dict(ceil_mode=True), (1, 2, 5, 4, 5))])
def test_lp_pool_modules(cls, args, kw, shape):
    check_module(lambda lib: getattr(lib.nn, cls)(*args, **kw), np.abs(rand(*shape)) + 0.1)
    assert repr(getattr(ember.nn, cls)(*args, **kw)) == repr(getattr(torch.nn, cls)(*args, **kw))
