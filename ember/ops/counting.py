"""Counting, searching and index-set functions (integer results, no gradient): unique,
bincount, histc, bucketize, searchsorted, tril_indices, triu_indices; and the index-built
combinations and cartesian_prod (gathers, so their gradients flow)."""
import itertools

import numpy as np

from .. import _dtype
from .._creation import tensor as _tensor
from .._dtype import from_numpy_dtype, to_numpy_dtype
from .._tensor import Tensor
from ..autograd.graph import Node
from . import api
from .matrix_ops import meshgrid
from .shape import dim_of_0d


def _name(array):
    return from_numpy_dtype(array.dtype).scalar_name


def _long(array, int32=False):
    return Tensor._make(np.asarray(array, np.int32 if int32 else np.int64))


class _Underivable(Node):
    """An op torch records in the graph but cannot differentiate (unique's values): the values
    given, under a node whose backward raises torch's NotImplementedError, so that a gradient
    through them fails as in torch rather than being dropped."""

    op = None

    def forward(self, x, values=None):
        return values

    def backward(self, m, g):
        raise NotImplementedError(f"the derivative for '{self.op}' is not implemented.")


Unique2Backward0 = type("Unique2Backward0", (_Underivable,), {"op": "_unique2"})
UniqueDimBackward0 = type("UniqueDimBackward0", (_Underivable,), {"op": "unique_dim"})
UniqueConsecutiveBackward0 = type("UniqueConsecutiveBackward0", (_Underivable,),
                                  {"op": "unique_consecutive"})


def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values (sorted), optionally with each element's position among them and
    each value's count; with ``dim``, the distinct slices along it."""
    x = input._data
    _dtype.refuse_complex(x.dtype, "unique" if dim is None else "unique_dim")
    native, x = x.dtype, _dtype.sort_key(x)  # (bfloat16 found as float32, exact)
    if dim is not None:
        axis = dim_of_0d(x.ndim, dim)
        values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True,
                                            axis=axis, equal_nan=False)
        inverse = inverse.reshape(-1)
    else:
        # torch keeps every NaN distinct (NumPy's default merges them)
        values, inverse, counts = np.unique(x, return_inverse=True, return_counts=True,
                                            equal_nan=False)
        inverse = inverse.reshape(x.shape)
    node = Unique2Backward0 if dim is None else UniqueDimBackward0
    out = [node.apply(input, values=values.astype(native, copy=False))]
    if return_inverse:
        out.append(_long(inverse))
    if return_counts:
        out.append(_long(counts))
    return out[0] if len(out) == 1 else tuple(out)


def bincount(input, weights=None, minlength=0):
    """Counts (or summed weights) of each non-negative integer of a 1-D tensor."""
    x = input._data
    if x.dtype.kind not in "iu":
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{_name(x)}'")
    if x.ndim != 1 or (x.size and x.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return _long(np.bincount(x, minlength=minlength))
    w = weights._data
    if w.shape != x.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dtype = np.float32 if w.dtype == np.float32 else np.float64  # (torch: float, else double)
    return Tensor._make(np.bincount(x, w.astype(np.float64), minlength).astype(dtype))


def histc(input, bins=100, min=0, max=0):
    """Counts in ``bins`` equal bins over [min, max] (the data's range when min == max);
    elements outside are ignored."""
    x = input._data
    if x.dtype.kind not in "fV":  # (complex is refused by torch's min/max pass first)
        kernel = "aminmax_cpu" if x.dtype.kind == "c" else "histogram_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(x)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histc(): bins must be > 0, but got {bins} for dimension 0")
    lo, hi = float(min), float(max)
    if lo == hi and x.size:
        lo, hi = float(_dtype.sort_key(x).min()), float(_dtype.sort_key(x).max())
    if not (np.isfinite(lo) and np.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError(f"torch.histc(): max must be larger than min, but got min {lo} "
                           f"max {hi}")
    return Tensor._make(_linear_bins(x, bins, lo, hi).astype(x.dtype))


def _linear_bins(x, bins, lo, hi):
    """torch's histc counts: each element's bin is (x - min) * bins / (max - min) truncated,
    every step rounded in x's dtype (0.3 of [0, 1] in 10 bins is in bin 3 there, in NumPy's
    edge search in bin 2), max itself in the last bin; NaN and elements outside: not counted."""
    dt = x.dtype
    low, high = np.asarray(lo, dt), np.asarray(hi, dt)
    key = _dtype.sort_key(x)  # (bfloat16 compared as float32: exact, NaN compares false)
    inside = x[(key >= _dtype.sort_key(low)) & (key <= _dtype.sort_key(high))]
    with np.errstate(over="ignore", invalid="ignore"):
        position = (inside - low) * np.asarray(bins, dt) / (high - low)
    return np.bincount(np.minimum(position.astype(np.int64), bins - 1), minlength=bins)


def _search(sequence, values, out_int32, right, sorter=None):
    v = values._data if isinstance(values, Tensor) else np.asarray(values)
    _check_search(sequence, v)
    # the values meet the boundaries in torch's promoted dtype: a number or a 0-d tensor is cast
    # to the boundaries' dtype of its category (bfloat16's 1.999 is 2.0), a dimensioned tensor
    # promotes as in arithmetic (int64 with float32 is float32)
    common = _dtype.result_np_dtype((sequence.dtype, False), (v.dtype, v.ndim == 0)
                                    if isinstance(values, Tensor) else values)
    if v.size == 0:  # (torch returns before its kernel's dtype dispatch)
        return _long(np.zeros(v.shape), out_int32)
    _dtype.refuse_kinds(common, "searchsorted_out_cpu", "bc")  # (the kernel has no loop)
    if sorter is not None:
        sequence = np.take_along_axis(sequence, sorter, -1)
    with np.errstate(over="ignore"):  # (a number past the dtype: an int wraps, a float is inf)
        sequence, v = (_dtype.sort_key(x.astype(common)) for x in (sequence, v))
    rows = sequence.reshape(int(np.prod(sequence.shape[:-1])), sequence.shape[-1])
    if len(rows) == 1 and _ordered(rows[0]):  # NumPy's search takes torch's steps' result here
        found = np.searchsorted(rows[0], v.reshape(-1), "right" if right else "left")
        return _long(found.reshape(v.shape), out_int32)
    return _long(_bisect(rows, v.reshape(len(rows), -1), right).reshape(v.shape), out_int32)


def _ordered(row):
    """Non-decreasing and free of NaN (a NaN fails every comparison, the first one is tested
    apart): where np.searchsorted lands where torch's binary search does, NaN queries included
    (past the end in both)."""
    return bool((row[1:] >= row[:-1]).all()) and not (row.size and row[0] != row[0])


def _check_search(sequence, v):
    if v.ndim == 0 and sequence.ndim != 1:
        raise RuntimeError(f"torch.searchsorted(): input value can be a scalar only when "
                           f"boundaries tensor dimension is 1, but we got boundaries tensor "
                           f"dim({sequence.ndim}) and input value's dim({v.ndim}) "
                           f"numel({v.size})")
    if sequence.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    if sequence.ndim != 1 and sequence.shape[:-1] != v.shape[:-1]:
        raise RuntimeError(f"torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           f"the first N-1 dimensions of boundaries tensor and input value "
                           f"tensor must match, but we got boundaries tensor "
                           f"{list(sequence.shape)} and input value tensor {list(v.shape)}")


def _bisect(rows, queries, right):
    """torch's binary search, step for step, on each row of boundaries for the queries of the
    same row: a boundary goes before a query unless it is >= it (> for ``right``), so a NaN
    boundary (which compares false) always sends the search right, and a NaN query lands past
    the end; an unsorted row gives torch's answer too."""
    n = rows.shape[-1]
    start = np.zeros(queries.shape, np.int64)
    end = np.full(queries.shape, n, np.int64)
    row_start = np.arange(rows.shape[0])[:, None] * n
    flat = rows.reshape(-1)
    live = start < end
    while live.any():
        mid = start + ((end - start) >> 1)
        pivot = flat[row_start + np.minimum(mid, n - 1)]  # (a settled query's mid may be n)
        stop = pivot > queries if right else pivot >= queries
        start = np.where(live & ~stop, mid + 1, start)
        end = np.where(live & stop, mid, end)
        live = start < end
    return start


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """Where each value would go in the (last dim of the) sorted sequence to keep it sorted."""
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError(f"torch.searchsorted(): side and right can't be set to "
                               f"opposites, got side of {side} while right was True")
        right = side == "right"
    seq = sorted_sequence._data
    if sorter is not None:
        _check_sorter(seq, sorter._data)
    return _search(seq, input, out_int32, right, None if sorter is None else sorter._data)


def _check_sorter(seq, order):
    if order.shape != seq.shape:
        raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, "
                           f"but got boundary tensor {list(seq.shape)}and got sorter tensor "
                           f"{list(order.shape)}")
    if order.dtype != np.int64:
        raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got "
                           f"dtype {_name(order)}")
    if order.size and (order.min() < 0 or order.max() >= order.shape[-1]):
        raise RuntimeError("torch.searchsorted(): sorter index out of range")


def bucketize(input, boundaries, *, out_int32=False, right=False):
    """The bucket of each element among the 1-D sorted ``boundaries``."""
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.ndim})")
    return _search(boundaries._data, input, out_int32, right)


def _triangle(which, row, col, offset, dtype):
    rows, cols = which(row, offset, col)
    data = np.stack([rows, cols]).astype(np.int64 if dtype is None else to_numpy_dtype(dtype))
    return Tensor._make(data.reshape(2, -1))


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """(2, N) row and column indices of the lower triangle of a row x col matrix."""
    return _triangle(np.tril_indices, row, col, offset, dtype)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """(2, N) row and column indices of the upper triangle of a row x col matrix."""
    return _triangle(np.triu_indices, row, col, offset, dtype)


def combinations(input, r=2, with_replacement=False):
    """All r-element combinations of a 1-D tensor's elements, one per row."""
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return Tensor._make(np.zeros((0,), input._data.dtype))
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    index = np.array(list(pick(range(input.shape[0]), r)), np.int64).reshape(-1, r)
    return api.reshape(api.index_select(input, 0, _tensor(index.reshape(-1))), (-1, r))


def cartesian_prod(*tensors):
    """Every combination of one element from each 1-D tensor, one per row."""
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return api.stack([api.reshape(g, (-1,)) for g in grids], 1)
