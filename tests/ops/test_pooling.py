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
    "max_tiled": lambda L, x: _f(L).max_pool2d(x[:, :, :6], 2),  # windows cover every position
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


def _max_pool_results(lib, x, g, **kw):
    """(values, indices, input gradient) of max_pool2d in ``lib`` for float32 data ``x``."""
    xt = lib.tensor(x, requires_grad=True)
    out, idx = lib.nn.functional.max_pool2d(xt, return_indices=True, **kw)
    out.backward(lib.tensor(g))
    return out.detach().numpy(), idx.numpy(), xt.grad.numpy()


def _assert_max_pool_as_torch(x, **kw):
    shape = torch.nn.functional.max_pool2d(torch.tensor(x), **kw).shape
    g = np.random.default_rng(1).standard_normal(shape).astype(x.dtype)
    expected = _max_pool_results(torch, x, g, **kw)
    got = _max_pool_results(ember, x, g, **kw)
    for name, e, t in zip(("values", "indices", "grad"), got, expected):
        np.testing.assert_array_equal(e, t, err_msg=name)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=2, stride=1, dilation=2)])
def test_max_pool_nan_windows_pick_torchs_index(kw):
    # every NaN pattern of a 2x2 window (torch's scan takes the last NaN, else the first max),
    # with tied maxima among the numbers
    patterns = np.array(np.meshgrid(*[[0, 1]] * 4, indexing="ij")).reshape(4, -1).T
    values = np.array([1.0, 2.0, 2.0, 0.5], dtype=np.float32)
    x = np.where(patterns == 1, np.nan, values).astype(np.float32)  # (16, 4)
    x = x.reshape(16, 2, 2).transpose(1, 0, 2).reshape(1, 2, 32)  # 16 windows side by side
    x = np.concatenate([x, x[:, ::-1]], axis=1)[None]  # and their mirror images below
    _assert_max_pool_as_torch(x, **kw)


@pytest.mark.parametrize("shape", [(2, 3, 9, 7), (3, 5, 6), (1, 1, 2, 2), (2, 1, 3, 3)])
def test_max_pool_2x2_odd_sizes_and_leading_dims_match_torch(shape):
    x = np.random.default_rng(0).integers(-2, 3, shape).astype(np.float32)
    _assert_max_pool_as_torch(x, kernel_size=2)


@pytest.mark.parametrize("shape", [(3, 4, 6, 10), (5, 8, 4), (2, 2, 64, 2), (1, 1, 2, 2)])
def test_max_pool_2x2_even_planes_values_bits_as_torch(shape):
    # a contiguous float32 input tiled by its windows gathers its corners in contiguous passes
    # (the odd columns read one float off): every value's bits kept, NaN included
    rng = np.random.default_rng(0)
    x = rng.integers(-2, 3, shape).astype(np.float32)
    x.ravel()[3::11], x.ravel()[5::13] = np.inf, -np.inf
    x.ravel()[2::17] = np.nan
    x.ravel()[-1] = 7.0  # the last element: the odd columns' last, copied apart
    g = rng.standard_normal(torch.nn.functional.max_pool2d(torch.tensor(x), 2).shape)
    expected = _max_pool_results(torch, x, g.astype(np.float32), kernel_size=2)
    got = _max_pool_results(ember, x, g.astype(np.float32), kernel_size=2)
    for name, e, t in zip(("values", "indices", "grad"), got, expected):
        np.testing.assert_array_equal(e.view(np.uint8), t.view(np.uint8), err_msg=name)


@pytest.mark.parametrize("view", [lambda t: t.transpose(2, 3), lambda t: t[:, :, ::2, 1:],
                                  lambda t: t.permute(1, 0, 2, 3)[:, :, 1:, :-1]])
def test_max_pool_2x2_non_contiguous_input_matches_torch(view):
    base = np.random.default_rng(0).integers(-3, 4, (4, 3, 10, 12)).astype(np.float32)
    results = []
    for lib in (torch, ember):
        leaf = lib.tensor(base, requires_grad=True)
        x = view(leaf)
        assert not x.is_contiguous()
        out, idx = lib.nn.functional.max_pool2d(x, 2, return_indices=True)
        g = np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(np.float32)
        out.backward(lib.tensor(g))
        results.append((out.detach().numpy(), idx.numpy(), leaf.grad.numpy()))
    for e, t in zip(results[1], results[0]):
        np.testing.assert_array_equal(e, t)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=2, stride=2, padding=1)])
def test_max_pool_grad_of_inf_nan_and_negative_values_bits_as_torch(kw):
    # positions that are no window's maximum get +0.0, whatever the gradient: not NaN (inf * 0)
    # nor -0.0 (a negative gradient times 0). (Disjoint windows: where windows overlap, torch
    # sums a position's gradients in another order, which can differ in the last bit.)
    x = np.random.default_rng(0).standard_normal((2, 3, 8, 9)).astype(np.float32)
    shape = torch.nn.functional.max_pool2d(torch.tensor(x), **kw).shape
    g = -np.abs(np.random.default_rng(1).standard_normal(shape)).astype(np.float32)
    g.ravel()[::5], g.ravel()[1::7], g.ravel()[2::11] = np.inf, -np.inf, np.nan
    expected = _max_pool_results(torch, x, g, **kw)[2]
    got = _max_pool_results(ember, x, g, **kw)[2]
    np.testing.assert_array_equal(got.view(np.int32), expected.view(np.int32))


@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d"])
def test_channels_last_input_keeps_its_layout_like_torch(pool):
    data = np.random.default_rng(4).standard_normal((2, 3, 8, 8)).astype(np.float32)
    seen = []
    for lib in (ember, torch):
        x = lib.tensor(data).to(memory_format=lib.channels_last).requires_grad_()
        y = getattr(lib.nn.functional, pool)(x, 2)
        y.sum().backward()
        seen.append((y.stride(), y.detach().numpy(), x.grad.numpy()))
    assert seen[0][0] == seen[1][0]
    for a, b in zip(seen[0][1:], seen[1][1:]):
        np.testing.assert_allclose(a, b, rtol=1e-6)
