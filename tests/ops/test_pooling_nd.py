"""The separable pools of ember/ops/pooling_nd.py (3-D max/average, adaptive max/average)
against torch: values, indices, gradients, second derivatives, grad_fn names, ties and NaN."""
import numpy as np
import pytest
import torch
from oracle import check, close

import ember
from ember.ops import pooling_nd

R = np.random.default_rng(0)
V = R.standard_normal((2, 3, 5, 6, 7))


def F(lib):
    return lib.nn.functional


@pytest.mark.parametrize("args, kw", [
    ((2,), {}), ((3, 2, 1), dict(ceil_mode=True)), (((2, 3, 2),), dict(stride=1)),
    ((2,), dict(dilation=2, padding=1)), (((1, 3, 3),), dict(stride=(1, 2, 3), padding=(0, 1, 1))),
])
def test_max_pool3d_matches_torch(args, kw):
    check(lambda L, x: F(L).max_pool3d(x, *args, **kw), V)
    check(lambda L, x: F(L).max_pool3d(x, *args, return_indices=True, **kw)[1], V)


@pytest.mark.parametrize("args, kw", [
    ((2,), {}), ((3, 2, 1), dict(ceil_mode=True)), ((3, 2, 1), dict(count_include_pad=False)),
    ((3, 2, 1), dict(ceil_mode=True, count_include_pad=False)), ((2,), dict(divisor_override=3)),
    (((2, 3, 2),), dict(stride=(1, 2, 1), padding=(1, 0, 1))),
])
def test_avg_pool3d_matches_torch(args, kw):
    check(lambda L, x: F(L).avg_pool3d(x, *args, **kw), V)
    check(lambda L, x: F(L).avg_pool3d(x, *args, **kw), V[0].astype(np.float32), rtol=1e-5)


@pytest.mark.parametrize("size", [(2, 4, 3), 3, (None, 2, 5), (5, 6, 7), (4, 1, 2), 1])
def test_adaptive_pools_3d_match_torch(size):
    check(lambda L, x: F(L).adaptive_avg_pool3d(x, size), V)
    check(lambda L, x: F(L).adaptive_max_pool3d(x, size), V)
    check(lambda L, x: F(L).adaptive_max_pool3d(x, size, return_indices=True)[1], V[1])


@pytest.mark.parametrize("size", [(2, 4), 3, (None, 5), (6, 7), (4, 1)])
def test_adaptive_max_pool_1d_2d_match_torch(size):
    check(lambda L, x: F(L).adaptive_max_pool2d(x, size), V[0])
    check(lambda L, x: F(L).adaptive_max_pool2d(x, size, True)[1], V[:, 0])
    one = size[0] if isinstance(size, tuple) and size[0] else 3
    check(lambda L, x: F(L).adaptive_max_pool1d(x, one), V[0, 0])
    check(lambda L, x: F(L).adaptive_max_pool1d(x, (one,), True)[1], V[0, :, 0])


@pytest.mark.parametrize("seed", range(6))
def test_max_pools_pick_torch_index_among_ties_and_nan(seed):
    """Small integers tie often; NaN entries: torch keeps the first maximum in raster order and
    the last NaN; the indices (and so the gradients) must be torch's."""
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 3, (2, 2, 5, 5, 6)).astype(np.float64)
    if seed % 2:
        x[rng.random(x.shape) < 0.1] = np.nan
    for call in (lambda L, t: F(L).max_pool3d(t, 3, 2, 1, return_indices=True, ceil_mode=True),
                 lambda L, t: F(L).max_pool3d(t, 2, 1, dilation=(1, 2, 2), return_indices=True),
                 lambda L, t: F(L).adaptive_max_pool3d(t, (3, 2, 4), True),
                 lambda L, t: F(L).adaptive_max_pool2d(t[0], (3, 4), True)):
        close(call(ember, ember.tensor(x)), call(torch, torch.tensor(x)))


def test_pool_grad_fn_names_are_torch():
    for call in (lambda L, t: F(L).max_pool3d(t, 2), lambda L, t: F(L).avg_pool3d(t, 2),
                 lambda L, t: F(L).adaptive_avg_pool3d(t, 2),
                 lambda L, t: F(L).adaptive_max_pool3d(t, 2),
                 lambda L, t: F(L).adaptive_max_pool2d(t[0], 2),
                 lambda L, t: F(L).adaptive_max_pool1d(t[0, 0], 2)):
        names = [type(call(lib, lib.tensor(V, requires_grad=True)).grad_fn).__name__
                 for lib in (torch, ember)]
        assert names[1] == names[0]


def test_windows_cover_torch_extents():
    """The averaging matrices' rows sum to (window extent / divisor), each row's support is the
    window: checked against the pure definitions."""
    pos, valid = pooling_nd.adaptive_windows(7, 3)
    for i in range(3):
        start, end = i * 7 // 3, -(-(i + 1) * 7 // 3)
        assert list(pos[i][valid[i]]) == list(range(start, end))
    pos, valid = pooling_nd.regular_windows(5, 3, 2, 1, 1, True)
    mat = pooling_nd.average_matrix(pos, valid, 5, 1, count_include_pad=True)
    np.testing.assert_allclose(mat.sum(1), valid.sum(1) / 3)


@pytest.mark.parametrize("pool", [lambda L, x: F(L).avg_pool3d(x, 2),
                                  lambda L, x: F(L).adaptive_avg_pool3d(x, (3, 2, 3))])
@pytest.mark.parametrize("channels_last", [False, True])
def test_average_pool_layouts_as_torch(pool, channels_last):
    """torch's CPU average pools make contiguous results and gradients, whatever the input's
    layout (the contraction along each axis leaves NumPy's axes transposed in memory)."""
    strides = []
    for lib in (torch, ember):
        x = lib.tensor(V, requires_grad=True)
        y = pool(lib, x.contiguous(memory_format=lib.channels_last_3d) if channels_last else x)
        y.backward(lib.ones_like(y))
        strides.append((y.stride(), x.grad.stride()))
    assert strides[1] == strides[0]
