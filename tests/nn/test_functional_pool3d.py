"""nn.functional's 3-D pools, adaptive max pools and instance_norm
(ember/nn/_functional_pool3d.py): torch's errors, indices and instance_norm's statistics."""
import numpy as np
import pytest
import torch
from oracle import check, close, same_error

import ember

R = np.random.default_rng(0)


def F(lib):
    return lib.nn.functional


@pytest.mark.parametrize("call", [
    lambda L: F(L).max_pool3d(L.randn(2, 3, 4), 2),
    lambda L: F(L).max_pool3d(L.randn(2, 1, 3, 4, 4, 4), 2),
    lambda L: F(L).max_pool3d(L.randn(1, 1, 1, 4, 4), 2),
    lambda L: F(L).max_pool3d(L.randn(1, 1, 4, 4, 4), 2, padding=2),
    lambda L: F(L).avg_pool3d(L.randn(1, 1, 1, 4, 4), 2),
    lambda L: F(L).avg_pool3d(L.randn(1, 1, 4, 4, 4), 2, padding=2),
    lambda L: F(L).avg_pool3d(L.randn(1, 1, 0, 4, 4), 2),
    lambda L: F(L).max_pool3d(L.randn(1, 1, 4, 4, 0), 2),
    lambda L: F(L).avg_pool3d(L.randn(0, 4, 4, 4), 2),
    lambda L: F(L).adaptive_avg_pool3d(L.randn(2, 3, 4), 2),
    lambda L: F(L).adaptive_max_pool2d(L.randn(3, 4), 2),
    lambda L: F(L).adaptive_max_pool3d(L.randn(2, 3, 4, 4, 4), (2, 2)),
    lambda L: F(L).adaptive_avg_pool3d(L.randn(2, 3, 4, 4, 4), (2, 2)),
    lambda L: F(L).adaptive_max_pool3d(L.randn(2, 3, 0, 4, 4), 2),
    lambda L: F(L).adaptive_max_pool1d(L.randn(2, 3, 4, 4, 4), 2),
    lambda L: F(L).adaptive_max_pool3d(L.ones(2, 3, 4, 4, 4, dtype=L.int64), 2),
    lambda L: F(L).instance_norm(L.ones(2, 3, 1)),
    lambda L: L.nn.InstanceNorm2d(3)(L.ones(2, 3, 1, 1)),
])
def test_errors_as_torch(call):
    same_error(call)


@pytest.mark.parametrize("call", [
    lambda L, x: F(L).max_pool3d(x, 2, return_indices=True),
    lambda L, x: F(L).avg_pool3d(x, 2), lambda L, x: F(L).adaptive_avg_pool3d(x, (1, 2, 3)),
    lambda L, x: F(L).adaptive_max_pool3d(x, 3, True),
])
def test_empty_batch_as_torch(call):
    close(call(ember, ember.zeros(0, 2, 4, 4, 4)), call(torch, torch.zeros(0, 2, 4, 4, 4)))


def test_unbatched_and_integer_max_pool3d_match_torch():
    x = R.integers(-5, 5, (3, 4, 5, 6))
    for args in ((2,), (3, 2, 1)):
        close(F(ember).max_pool3d(ember.tensor(x), *args, return_indices=True),
              F(torch).max_pool3d(torch.tensor(x), *args, return_indices=True))
    close(F(ember).adaptive_max_pool3d(ember.tensor(x * 1.0), 0),
          F(torch).adaptive_max_pool3d(torch.tensor(x * 1.0), 0))


@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 4, 5), (3, 2, 2, 3, 4)])
def test_instance_norm_matches_torch(shape):
    x, w, b = R.standard_normal(shape), R.standard_normal(shape[1]), R.standard_normal(shape[1])
    check(lambda L, x, w, b: F(L).instance_norm(x, weight=w, bias=b, eps=1e-3), x, w, b)
    check(lambda L, x: F(L).instance_norm(x), x)


def test_instance_norm_running_statistics_match_torch():
    x = R.standard_normal((4, 3, 5))
    stats = []
    for lib in (torch, ember):
        mean = lib.zeros(3, dtype=lib.float64)
        var = lib.ones(3, dtype=lib.float64)
        out = F(lib).instance_norm(lib.tensor(x), mean, var, momentum=0.3)
        fixed = F(lib).instance_norm(lib.tensor(x), mean, var, use_input_stats=False)
        stats.append([a.numpy() for a in (out, fixed, mean, var)])
    for e, t in zip(*stats[::-1]):
        np.testing.assert_allclose(e, t, rtol=1e-12)


# ------------------------------------------------------------------ max unpooling, lp_pool
def _pooled(lib, x, n, **kw):
    pool = (lib.nn.functional.max_pool1d, lib.nn.functional.max_pool2d,
            lib.nn.functional.max_pool3d)[n - 1]
    return pool(lib.tensor(x), 2, return_indices=True, **kw)


@pytest.mark.parametrize("n, shape, kw", [
    (1, (2, 3, 9), {}), (2, (2, 3, 4, 6), {}), (2, (3, 5, 7), dict(output_size=(5, 7))),
    (2, (2, 3, 4, 6), dict(output_size=(2, 3, 5, 7))), (3, (2, 2, 4, 4, 6), {}),
    (3, (2, 5, 4, 7), dict(output_size=(5, 4, 7))), (1, (3, 8), dict(output_size=[9])),
])
def test_max_unpool_matches_torch(n, shape, kw):
    """Values written back at the pool's indices; the gradient reads them back (torch's
    MaxUnpool2DBackward0/MaxUnpool3DBackward0)."""
    x = R.standard_normal(shape)
    indices = _pooled(torch, x, n)[1].numpy()
    values = R.standard_normal(indices.shape)
    unpool = lambda L: getattr(F(L), f"max_unpool{n}d")  # noqa: E731
    check(lambda L, v, i: unpool(L)(v, i, 2, **kw), values, indices)


@pytest.mark.parametrize("call", [
    lambda L: F(L).max_unpool2d(*_pooled(L, X6, 2), 2, output_size=(6, 7)),
    lambda L: F(L).max_unpool2d(*_pooled(L, X6, 2), 2, output_size=(5,)),
    lambda L: F(L).max_unpool2d(_pooled(L, X6, 2)[0], _pooled(L, X6, 2)[1].float(), 2),
    lambda L: F(L).max_unpool2d(_pooled(L, X6, 2)[0], _pooled(L, X6, 2)[1][:, :, :1], 2),
    lambda L: F(L).max_unpool2d(_pooled(L, X6, 2)[0], _one_bad(L, _pooled(L, X6, 2)[1]), 2),
    lambda L: F(L).max_unpool2d(_pooled(L, X6, 2)[0][0, 0], _pooled(L, X6, 2)[1][0, 0], 2),
    lambda L: F(L).max_unpool1d(_pooled(L, X6, 2)[0], _pooled(L, X6, 2)[1], 2),
    lambda L: F(L).max_unpool3d(L.ones(2, 3, 4, 4, 4, 4), L.ones(2, 3, 4, 4, 4, 4).long(), 2),
])
def test_unpool_errors_as_torch(call):
    same_error(call)


X6 = R.standard_normal((2, 3, 4, 6))


def _one_bad(lib, indices):
    """One index past the output (with several, torch's threads decide which it names)."""
    return lib.where(lib.arange(indices.numel()).reshape(indices.shape) == 7, indices + 100,
                     indices)


@pytest.mark.parametrize("n, shape, args, kw", [
    (1, (2, 3, 9), (2, 3), {}), (2, (2, 3, 5, 6), (2, 2), {}), (2, (3, 5, 7), (3, (2, 3)),
                                                            dict(stride=(1, 2), ceil_mode=True)),
    (3, (2, 2, 4, 4, 6), (1.5, 2), {}), (2, (2, 3, 4, 6), (1, 2), {}),
])
def test_lp_pool_matches_torch(n, shape, args, kw):
    x = np.abs(R.standard_normal(shape)) + 0.1  # fractional powers of positive values
    check(lambda L, x: getattr(F(L), f"lp_pool{n}d")(x, *args, **kw), x)


def test_integer_average_pools_as_torch():
    """torch averages int64 in avg_pool3d (sums divided with truncation toward zero) and
    refuses integers elsewhere; never a silent average of zeros."""
    x = R.integers(-9, 9, (2, 3, 5, 6, 7))
    for kw in (dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
               dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
               dict(kernel_size=2, divisor_override=3)):
        close(F(ember).avg_pool3d(ember.tensor(x), **kw), F(torch).avg_pool3d(torch.tensor(x),
                                                                                 **kw))
    for call in (lambda L: F(L).avg_pool3d(L.tensor(x).int(), 2),
                 lambda L: F(L).adaptive_avg_pool3d(L.tensor(x), (1, 1, 2)),
                 lambda L: F(L).adaptive_avg_pool2d(L.tensor(x[0]), (1, 2)),
                 lambda L: F(L).interpolate(L.tensor(x[0]), scale_factor=2, mode="bicubic")):
        same_error(call)


@pytest.mark.parametrize("name,shape,args", [
    ("max_pool3d_with_indices", (2, 2, 4, 5, 6), (2,)),
    ("adaptive_max_pool1d_with_indices", (2, 3, 7), (3,)),
    ("adaptive_max_pool2d_with_indices", (2, 3, 7, 5), ((3, 2),)),
    ("adaptive_max_pool3d_with_indices", (2, 3, 4, 7, 5), ((2, 3, 2),)),
])
def test_with_indices_names_always_return_indices(name, shape, args):
    x = np.random.default_rng(0).standard_normal(shape)
    ours = getattr(ember.nn.functional, name)(ember.tensor(x), *args)
    theirs = getattr(torch.nn.functional, name)(torch.tensor(x), *args)
    assert isinstance(ours, tuple) and len(ours) == len(theirs) == 2
    close(ours[0], theirs[0])
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.max_pool3d(L.tensor([[[1, 0, 1, 1]]])[None].bool(), (1, 1, 2)),
    lambda L: L.nn.functional.adaptive_max_pool3d(L.tensor([[[1, 0, 1, 1]]])[None], 2),
    lambda L: L.nn.functional.avg_pool3d(L.tensor([[[1, 0, 1, 1]]])[None].bool(), (1, 1, 2))])
def test_3d_pools_refuse_the_dtypes_torch_has_no_kernel_for(call):
    """(max_pool3d computed on bool)"""
    same_error(call)


def test_adaptive_max_pool3d_takes_bfloat16_as_torch():
    """(ember refused bfloat16 as if it were an integer dtype)"""
    x = np.random.RandomState(0).randn(1, 2, 4, 4, 4).astype(np.float32)
    out = [lib.nn.functional.adaptive_max_pool3d(lib.tensor(x).bfloat16(), 2).float().tolist()
           for lib in (torch, ember)]
    assert out[1] == out[0]


_ADAPTIVE = [("avg", 1), ("avg", 2), ("avg", 3), ("max", 1), ("max", 2), ("max", 3)]


@pytest.mark.parametrize("kind, n", _ADAPTIVE)
@pytest.mark.parametrize("input_shape", ["empty_spatial", "empty_channels", "empty_batch",
                                         "unbatched", "too_few_dims"])
@pytest.mark.parametrize("output", [2, 0, -1])
def test_adaptive_pools_of_empty_inputs_and_sizes_as_torch(kind, n, input_shape, output):
    """ember averaged an empty input into zeros (3-d) or divided by zero (1-d, 2-d), gave an
    empty output for a negative size and took None for a 1-d size"""
    shape = {"empty_spatial": (1, 1) + (4,) * (n - 1) + (0,), "empty_channels": (1, 0) + (4,) * n,
             "empty_batch": (0, 1) + (4,) * n, "unbatched": (1,) + (4,) * n,
             "too_few_dims": (4,) * n}[input_shape]

    def call(L):
        pool = getattr(L.nn.functional, f"adaptive_{kind}_pool{n}d")
        out = pool(L.ones(shape), output if n == 1 else (output,) * n)
        return out[0] if isinstance(out, tuple) else out
    try:
        expected = call(torch)
    except (RuntimeError, ValueError, TypeError):
        same_error(call)
    else:
        assert call(ember).shape == expected.shape


@pytest.mark.parametrize("kind", ["avg", "max"])
def test_adaptive_pool1d_refuses_none_as_torch(kind):
    same_error(lambda L: getattr(L.nn.functional, f"adaptive_{kind}_pool1d")(L.ones(1, 1, 4),
                                                                            None))


@pytest.mark.parametrize("kind, n", _ADAPTIVE)
def test_adaptive_pool_backward_of_an_empty_output_is_torchs_error(kind, n):
    """ember gave zero gradients where torch's backward refuses the empty grad_output"""
    def backward(L):
        x = L.ones((2, 3) + (4,) * n, requires_grad=True)
        pool = getattr(L.nn.functional, f"adaptive_{kind}_pool{n}d")
        pool(x, 0 if n == 1 else (2,) * (n - 1) + (0,)).sum().backward()
    same_error(backward)
