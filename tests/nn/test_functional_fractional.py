"""F.fractional_max_pool2d/3d vs torch: with given _random_samples (exact values, indices and
gradients), torch's own draws under the same seed, output_ratio, unbatched input, and errors."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember


def _samples(batch, channels, ndim, dtype=np.float64, seed=1):
    return np.random.default_rng(seed).random((batch, channels, ndim)).astype(dtype)


@pytest.mark.parametrize("shape,kernel,out", [((2, 3, 7, 8), (2, 3), (4, 5)),
                                              ((2, 3, 9, 8), 2, (8, 3)),
                                              ((3, 9, 9), 3, 4)])
def test_2d_with_samples(shape, kernel, out):
    samples = _samples(shape[0] if len(shape) == 4 else 1, shape[-3], 2)
    check(lambda lib, x: lib.nn.functional.fractional_max_pool2d(
        x, kernel, output_size=out, _random_samples=lib.tensor(samples)),
        np.random.default_rng(0).standard_normal(shape))


@pytest.mark.parametrize("shape,kernel,out", [((2, 3, 5, 6, 7), (2, 2, 3), (3, 4, 4)),
                                              ((3, 5, 6, 7), 2, (2, 3, 4))])
def test_3d_with_samples_and_indices(shape, kernel, out):
    samples = _samples(shape[0] if len(shape) == 5 else 1, shape[-4], 3, np.float32)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    results = [lib.nn.functional.fractional_max_pool3d(
        lib.tensor(x), kernel, output_size=out, return_indices=True,
        _random_samples=lib.tensor(samples)) for lib in (ember, torch)]
    np.testing.assert_array_equal(results[0][0].numpy(), results[1][0].numpy())
    np.testing.assert_array_equal(results[0][1].numpy(), results[1][1].numpy())
    assert results[0][1].dtype == ember.int64
    check(lambda lib, x: lib.nn.functional.fractional_max_pool3d(
        x, kernel, output_size=out, _random_samples=lib.tensor(samples.astype(np.float64))),
        x.astype(np.float64), same_grad_fn=len(shape) == 5)


@pytest.mark.parametrize("ndim,ratio", [(2, (0.5, 0.7)), (3, 0.5)])
def test_draws_as_torch_under_the_same_seed(ndim, ratio):
    x = np.random.default_rng(0).standard_normal((2, 3, 9, 8, 7)[:ndim + 2]).astype(np.float32)
    results = []
    for lib in (ember, torch):
        lib.manual_seed(5)
        pool = getattr(lib.nn.functional, f"fractional_max_pool{ndim}d")
        results.append((pool(lib.tensor(x), 2, output_ratio=ratio).numpy(), lib.rand(1).item()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    assert results[0][1] == results[1][1]


def _pool2d(x_shape=(2, 3, 7, 8), kernel=2, samples=(2, 3, 2), **kw):
    def call(lib):
        extra = {} if samples is None else {"_random_samples": lib.rand(*samples)}
        return lib.nn.functional.fractional_max_pool2d(lib.zeros(*x_shape), kernel, **extra,
                                                       **kw)
    return call


@pytest.mark.parametrize("call", [
    _pool2d(output_size=7),
    _pool2d(output_size=(3, 8), kernel=(2, 2)),
    _pool2d(output_size=3, samples=(2, 3, 3)),
    _pool2d(output_size=3, samples=(1, 3, 2)),
    _pool2d(),
    _pool2d(output_ratio=(0.5, 0.5, 0.5)),
    _pool2d(output_ratio=0.5),
    _pool2d(x_shape=(7, 8), output_size=3, samples=None),
    lambda lib: lib.nn.functional.fractional_max_pool3d(
        lib.zeros(2, 3, 5, 6, 7), 2, output_size=(3, 4, 7)),
    lambda lib: lib.nn.functional.fractional_max_pool2d(
        lib.zeros(2, 3, 7, 8), 2, output_size=3, _random_samples=lib.rand(2, 3, 2).double()),
])
def test_errors_as_torch(call):
    same_error(call)
