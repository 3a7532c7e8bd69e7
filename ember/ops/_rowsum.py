"""Sums over an array's last axis, or a matrix's first, by BLAS dot products.

np.sum over a short last axis (a layer norm's 128 features, an attention row's 64 keys) runs one
pairwise reduction loop per row. Here each row's sum is one BLAS dot product with ones (or with
the matching row of a second array, without the product's temporary): measured on this
machine, float32, one thread, (1024, 128) 55 -> 31 us and (16, 4, 64, 64) 148 -> 88 us. A
row's dot product depends on that row alone, so splitting rows over threads (``_parallel``)
leaves every sum bit-identical; one matrix-vector product over all rows would be faster still
(15 and 36 us) but rounds the rows of its last, incomplete block differently. A column sum (a
bias gradient, never split) is one matrix-vector product: (1024, 512) 91 -> 48 us. Other
dtypes (float16: NumPy has no BLAS for it; integers) fall back to np.sum.
"""
import functools

import numpy as np

BLAS_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))
MIN_WIDTH = 32  # narrower rows: a BLAS call per row costs what it saves (cross-entropy's 10)


@functools.lru_cache(maxsize=64)
def _ones(n, dtype):
    """A read-only vector of ones, made once per (length, dtype): a layer's sums ask for the
    same few lengths every step (np.ones cost ~1 us a call, ~30 calls a GPT step)."""
    ones = np.ones(n, dtype=dtype)
    ones.flags.writeable = False
    return ones


def last_sum(a, b=None):
    """sum(a, -1), or sum(a * b, -1) for b of a's shape, keeping the axis."""
    if a.dtype not in BLAS_DTYPES or a.ndim == 0 or a.shape[-1] < MIN_WIDTH or \
            (b is not None and b.dtype != a.dtype):
        return np.add.reduce(a if b is None else a * b, axis=-1, keepdims=True)  # (np.sum's)
    right = _ones(a.shape[-1], a.dtype)[:, None] if b is None else b[..., :, None]
    return np.matmul(a[..., None, :], right)[..., 0]


def first_sum(a):
    """sum(a, 0) of a matrix (a bias gradient: the rows of the output gradient added)."""
    if a.dtype not in BLAS_DTYPES or a.ndim != 2:
        return np.sum(a, axis=0)
    return np.matmul(_ones(a.shape[0], a.dtype), a)
