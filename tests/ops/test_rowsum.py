"""Row and column sums by BLAS (ember/ops/_rowsum.py): equal to np.sum within rounding, every
row's sum independent of the rows around it (the thread split's bit-identity rests on it), the
NumPy fallback for dtypes without BLAS, and empty shapes."""
import numpy as np
import pytest

from ember.ops import _rowsum


def _data(shape, dtype, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype,rtol", [(np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("shape", [(7, 5), (7, 32), (3, 4, 129), (2, 3, 4, 64)])
def test_last_sum_and_row_dots_match_numpy(dtype, rtol, shape):
    a, b = _data(shape, dtype), _data(shape, dtype, 1)
    got = _rowsum.last_sum(a)
    assert got.shape == shape[:-1] + (1,) and got.dtype == a.dtype
    np.testing.assert_allclose(got, a.astype(np.float64).sum(-1, keepdims=True), rtol=rtol,
                               atol=rtol)
    dots = _rowsum.last_sum(a, b)
    expected = (a.astype(np.float64) * b).sum(-1, keepdims=True)
    np.testing.assert_allclose(dots, expected, rtol=rtol, atol=rtol)


def test_each_rows_sum_does_not_depend_on_the_other_rows():
    a = _data((150, 257), np.float32)
    whole, dots = _rowsum.last_sum(a), _rowsum.last_sum(a, a)
    for lo, hi in [(0, 75), (75, 150), (3, 7), (148, 150)]:
        part = a[lo:hi].copy()  # a fresh buffer, as a thread's part would be
        assert _rowsum.last_sum(part).tobytes() == whole[lo:hi].tobytes()
        assert _rowsum.last_sum(part, part).tobytes() == dots[lo:hi].tobytes()


def test_non_contiguous_rows_and_non_finite_values():
    a = _data((6, 80), np.float32)[:, ::2]
    a[1, 3], a[2, 0], a[4, :] = np.nan, np.inf, -np.inf
    got = _rowsum.last_sum(a)
    np.testing.assert_allclose(got, np.sum(a, -1, keepdims=True), rtol=1e-5)


@pytest.mark.parametrize("dtype", [np.float16, np.int64])
def test_dtypes_without_blas_fall_back_to_numpy(dtype):
    a = (_data((4, 9), np.float32) * 4).astype(dtype)
    assert _rowsum.last_sum(a).tobytes() == np.sum(a, -1, keepdims=True).tobytes()
    assert _rowsum.last_sum(a, a).tobytes() == np.sum(a * a, -1, keepdims=True).tobytes()
    assert _rowsum.first_sum(a).tobytes() == np.sum(a, 0).tobytes()


@pytest.mark.parametrize("dtype,rtol", [(np.float32, 1e-5), (np.float64, 1e-12)])
def test_first_sum_matches_numpy(dtype, rtol):
    a = _data((129, 33), dtype)
    got = _rowsum.first_sum(a)
    assert got.shape == (33,) and got.dtype == a.dtype
    np.testing.assert_allclose(got, a.astype(np.float64).sum(0), rtol=rtol, atol=rtol)


@pytest.mark.parametrize("shape", [(0, 5), (3, 0), (2, 0, 4)])
def test_empty_shapes(shape):
    a = np.zeros(shape, np.float32)
    assert _rowsum.last_sum(a).shape == shape[:-1] + (1,)
    assert not _rowsum.last_sum(a).any()
    if len(shape) == 2:
        assert _rowsum.first_sum(a).shape == (shape[1],) and not _rowsum.first_sum(a).any()
