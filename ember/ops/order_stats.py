"""Order statistics and paired reductions real scripts use: kthvalue, median, mode, cummax,
cummin, aminmax, nansum, nanmean, std_mean, var_mean and cdist. The indices come from NumPy;
the values are gathered at them (or composed from ember's ops), so gradients are those ops'."""
import numpy as np

from .. import _dtype
from .._creation import tensor as _tensor
from .._dtype import from_numpy_dtype
from .._memory_format import contiguous_result
from .._select import std_sort
from ..autograd.graph import Node
from . import api
from .activation_ops import _cast
from .api.reductions import _ValuesIndices
from .linalg_extra import _VectorNormExtremes, refuse_low_precision
from .reduction import LinalgVectorNormBackward0, MaxBackward1, _dims, _expand_back, check_nonempty
from .shape import ALL_DIMS, _dim, refuse_none_dim


def _named(name, values, indices):
    result = _ValuesIndices((values, indices))
    result._name = f"torch.return_types.{name}"
    return result


class _SelectAlong(Node):
    """out = a read at ``index`` (keepdim-shaped) along dim, the dim dropped unless keepdim;
    da = g added back at index (torch's value-selecting reduction backward)."""
    result_layout = contiguous_result

    def forward(self, a, dim, index, keepdim):
        x = a._data
        self.shape, self.dim, self.index, self.keepdim = x.shape, dim, index, keepdim
        if not x.ndim:
            return x.copy()
        out = np.take_along_axis(x, index, axis=dim)
        return out if keepdim else np.squeeze(out, dim)

    def backward(self, m, g):
        if not self.shape:
            return (g,)
        if not self.keepdim:
            g = m.unsqueeze(g, self.dim)
        return (m.scatter_add_zeros(g, self.shape, self.dim, self.index),)


class KthvalueBackward0(_SelectAlong):
    """kthvalue's values."""


class MedianBackward1(_SelectAlong):
    """median along a dim."""


class ModeBackward0(_SelectAlong):
    """mode's values."""


class CummaxBackward0(_SelectAlong):
    """cummax's values (index of the input's shape: keepdim)."""


class CumminBackward0(_SelectAlong):
    """cummin's values."""


class MedianBackward0(MaxBackward1):
    """out = the lower median of all elements (flat ``position``); as torch, the gradient is
    shared evenly among the elements equal to it (a NaN result: among the NaNs)."""

    def forward(self, a, position):
        x = a._data
        self.save(a)
        self.shape, self.dims, self.keepdim = x.shape, _dims(x, None), False
        return x.reshape(-1)[position].copy()


class NanmedianBackward0(MedianBackward0):
    """nanmedian of all elements (the median of the non-NaN ones)."""


_NODES = {"kthvalue": KthvalueBackward0, "median": MedianBackward1, "mode": ModeBackward0,
          "cummax": CummaxBackward0, "cummin": CumminBackward0}


def _pick(name, input, dim, keepdim, indices):
    """values = input read at ``indices`` (keepdim-shaped) along dim by torch's node for
    ``name``, and the indices."""
    if input.ndim == 0:
        indices, keepdim = np.zeros((), np.int64), True
    index = contiguous_result(indices.astype(np.int64))  # (as the values: see the node)
    values = _NODES[name].apply(input, dim=dim, index=index, keepdim=keepdim)
    return _named(name, values, _tensor(index if keepdim else np.squeeze(index, dim)))


def _no_bool(x, kernel):
    if x.dtype == np.bool_:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    _dtype.refuse_complex(x.dtype, kernel)


def kthvalue(input, k, dim=-1, keepdim=False):
    """The k-th smallest element along ``dim`` and its index."""
    d = _dim(input.ndim, dim)
    x = input._data
    _no_bool(x, "kthvalue_cpu")
    check_nonempty(x, (d,) if x.ndim else (), "kthvalue")
    size = x.shape[d] if x.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if x.ndim == 0:
        return _pick("kthvalue", input, d, keepdim, None)
    index = np.take(np.argsort(_dtype.sort_key(x), axis=d, kind="stable"), [k - 1], axis=d)
    return _pick("kthvalue", input, d, keepdim, _kth_among_ties(x, d, k - 1, index))


def _kth_among_ties(x, dim, k, index):
    """Where the k-th value is tied (NaN ties with NaN), torch's index is the one its selection
    (median-of-three partitioning, NaN sorting last) leaves at position k: replayed per such
    row; elsewhere the sort's index is the only one."""
    rows = np.moveaxis(x, dim, -1).reshape(-1, x.shape[dim])
    found = np.moveaxis(index, dim, -1).reshape(-1).copy()
    value = rows[np.arange(rows.shape[0]), found][:, None]
    same = (rows == value) | ((rows != rows) & (value != value))
    for r in np.flatnonzero(same.sum(axis=1) > 1):
        found[r] = _select(rows[r].tolist(), k)
    shape = np.moveaxis(index, dim, -1).shape
    return np.moveaxis(found.reshape(shape), -1, dim)


def _after(a, b):
    """a sorts after b: greater, or NaN against a number."""
    return a > b or (a != a and b == b)


def _select(values, k):
    """The original position of the element that quickselect with a median-of-three pivot
    (Hoare partitioning around values[lo]) leaves at position k, as torch's kthvalue does."""
    v, pos = values, list(range(len(values)))

    def swap(i, j):
        v[i], v[j] = v[j], v[i]
        pos[i], pos[j] = pos[j], pos[i]

    lo, hi = 0, len(v) - 1
    while hi > lo + 1:
        swap(lo + (hi - lo) // 2, lo + 1)  # median of three: v[lo + 1] <= v[lo] <= v[hi]
        for a, b in ((lo + 1, hi), (lo, hi), (lo + 1, lo)):
            if _after(v[a], v[b]):
                swap(a, b)
        i, j = _partition(v, lo, hi, swap)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    if hi == lo + 1 and _after(v[lo], v[hi]):
        swap(lo, hi)
    return pos[k]


def _partition(v, lo, hi, swap):
    """Hoare partitioning of v[lo+1:hi] around the pivot v[lo]; the crossing (i, j)."""
    i, j, pivot = lo + 1, hi, v[lo]
    while True:
        i += 1
        while _after(pivot, v[i]):
            i += 1
        j -= 1
        while _after(v[j], pivot):
            j -= 1
        if j < i:
            return i, j
        swap(i, j)


def median(input, dim=ALL_DIMS, keepdim=False):
    """The lower median of all elements, or (values, indices) along ``dim``; NaN propagates."""
    x = input._data
    refuse_none_dim(dim, "median")
    _no_bool(x, "median_cpu" if dim is ALL_DIMS else "median_out")
    if dim is ALL_DIMS:
        flat = api.reshape(input, (-1,))
        if x.size == 0:
            return api.to_dtype(api.sum(flat), input.dtype) * float("nan")
        position = median(flat, 0).indices.item()
        return MedianBackward0.apply(input, position=position)
    d = _dim(input.ndim, dim)
    check_nonempty(x, (d,) if x.ndim else (), "median")
    if x.ndim == 0:
        return _pick("median", input, d, keepdim, None)
    x = _dtype.sort_key(x)  # (bfloat16 as float32: NaN sorts last there too)
    order = np.argsort(x, axis=d, kind="stable")  # NaN sorts last
    index = np.take(order, [(x.shape[d] - 1) // 2], axis=d)
    nan = np.isnan(x) if x.dtype.kind == "f" else np.zeros(x.shape, bool)
    has_nan = nan.any(axis=d, keepdims=True)
    index = np.where(has_nan, np.argmax(nan, axis=d, keepdims=True), index)
    return _pick("median", input, d, keepdim, index)


def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest among ties) and the index torch
    gives it: the last of its run in torch's (unstable) sort."""
    d = _dim(input.ndim, dim)
    x = input._data
    _dtype.refuse_complex(x.dtype, "mode_cpu")
    if x.ndim == 0:
        return _pick("mode", input, d, keepdim, None)
    check_nonempty(x, (d,), "mode")
    moved = np.moveaxis(_dtype.sort_key(x), d, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    found = np.empty(rows.shape[0], np.int64)
    for r, row in enumerate(rows):
        found[r] = _mode_of_row(row)
    index = np.moveaxis(found.reshape(moved.shape[:-1] + (1,)), -1, d)
    return _pick("mode", input, d, keepdim, index)


def _mode_of_row(row):
    """torch's mode of a row: its kernel sorts with ``<`` (std::sort, not stable; a NaN equals
    nothing), takes the first longest run of == values, and the index of the run's last
    element (ember/_select.py steps the same sort)."""
    values = row.tolist()
    order = std_sort(values, lambda a, b: a < b)
    best, run, found = 0, 0, order[0]
    for i, position in enumerate(order):
        run += 1
        if i == len(order) - 1 or not values[position] == values[order[i + 1]]:
            if run > best:
                best, found = run, position
            run = 0
    return found


def _cumulative(name, accumulate, input, dim):
    if input.ndim == 0 and dim not in (0, -1):
        raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    d = _dim(input.ndim, dim)
    x = input._data
    _dtype.refuse_complex(x.dtype, f"{name}_cpu")
    if x.ndim == 0:
        return _pick(name, input, d, True, None)
    with np.errstate(invalid="ignore"):  # (bfloat16's NaN warns in NumPy; torch is silent)
        running = accumulate(x, axis=d)
        # the last position holding the running extreme (a NaN holds it from where it appears)
        hits = (x == running) | (np.isnan(x) if x.dtype.kind in "fV" else False)
    steps = np.arange(x.shape[d]).reshape((-1,) + (1,) * (x.ndim - d - 1))
    index = np.maximum.accumulate(np.where(hits, steps, 0), axis=d)
    return _pick(name, input, d, True, index)


def cummax(input, dim):
    """Running maximum along ``dim`` and where it was found."""
    return _cumulative("cummax", np.maximum.accumulate, input, dim)


def cummin(input, dim):
    """Running minimum along ``dim`` and where it was found."""
    return _cumulative("cummin", np.minimum.accumulate, input, dim)


class _MinMax(tuple):
    """torch.return_types.aminmax: (min, max)."""

    min = property(lambda self: self[0])
    max = property(lambda self: self[1])

    def __repr__(self):
        return f"torch.return_types.aminmax(\nmin={self[0]!r},\nmax={self[1]!r})"


def aminmax(input, *, dim=None, keepdim=False):
    """(amin, amax) over all elements or along ``dim``."""
    _dtype.refuse_complex(input._data.dtype, "aminmax_cpu")
    dims = () if dim is None else dim
    if dim is None and keepdim:
        dims = tuple(range(input.ndim))
    if input.numel() == 0:  # torch's own words (amin's would name amin)
        if dim is None:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as "
                               "the operation has no identity.")
        d = _dim(input.ndim, dim)
        if input.ndim and input.shape[d] == 0:
            raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    return _MinMax((api.amin(input, dims, keepdim), api.amax(input, dims, keepdim)))


class NansumBackward0(Node):
    """out = sum of a over dims, NaN read as 0;  da = g broadcast back times (a is not NaN): a
    product, as torch's, so an inf or NaN gradient gives NaN at a's NaN elements (an all-NaN
    slice of nanmean divides by a zero count: NaN there, as torch)."""
    result_layout = contiguous_result

    def forward(self, a, dim=None, keepdim=False):
        x = a._data
        self.save(a)
        self.shape, self.dims, self.keepdim = x.shape, _dims(x, dim), keepdim
        return np.sum(np.where(np.isnan(x), x.dtype.type(0), x), axis=self.dims,
                      keepdims=keepdim)

    def backward(self, m, g, x):
        kept = ~np.isnan(m.data(x))
        grad = _expand_back(m, g, self.shape, self.dims, self.keepdim)
        return (grad * _cast(kept, grad),)


def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum treating NaN as zero."""
    _dtype.refuse_complex(input._data.dtype, message="nansum on CPU does not support complex "
                          "inputs")
    if input._data.dtype.kind not in "fV":  # nothing to skip: torch sums as sum does (V:
        # bfloat16)
        total = api.sum(input, dim, keepdim) if dim is not None else api.sum(input)
    else:
        total = NansumBackward0.apply(input, dim=dim, keepdim=keepdim)
    return total if dtype is None else api.to_dtype(total, dtype)


def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean of the non-NaN elements."""
    if input._data.dtype.kind not in "fcV":  # V: bfloat16 (ml_dtypes)
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype "
                           f"but got {from_numpy_dtype(input._data.dtype).scalar_name}")
    count = api.logical_not(api.isnan(input))
    counted = api.sum(count, dim, keepdim) if dim is not None else api.sum(count)
    return api.div(nansum(input, dim, keepdim, dtype=dtype), counted)


def _paired(stat):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if isinstance(dim, bool):  # var_mean(input, unbiased)
            dim, unbiased = None, dim
        if input._data.dtype.kind not in "fVc":
            raise RuntimeError(f"{stat.__name__}_mean only support floating point and complex "
                               f"dtypes")
        spread = stat(input, dim, unbiased, keepdim, correction=correction)
        mean = api.mean(input, dim, keepdim) if dim is not None else api.mean(input)
        if dim is None and keepdim:
            mean = api.reshape(mean, (1,) * input.ndim)
        return spread, mean
    fn.__name__ = f"{stat.__name__}_mean"
    fn.__doc__ = f"({stat.__name__}, mean) over all elements or along ``dim``."
    return fn


std_mean, var_mean = _paired(api.std), _paired(api.var)


_COMPUTE_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                  "donot_use_mm_for_euclid_dist")


def _euclid_by_mm(compute_mode, rows1, rows2):
    """torch's choice of the matrix-product route for p=2 (by default when either side has more
    than 25 rows)."""
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if compute_mode == _COMPUTE_MODES[0]:
        return rows1 > 25 or rows2 > 25
    return compute_mode == _COMPUTE_MODES[1]


class CdistBackward0(Node):
    """Euclidean cdist by one matrix product, as torch: [-2 x1, |x1|^2, 1] @ [x2, 1, |x2|^2]^T,
    clamped at 0, square-rooted (no (P, R, M) tensor of gaps);  with w = g / out (0 where
    out = 0): dx1 = x1 * sum_j w - w @ x2, dx2 = x2 * sum_i w - w^T @ x1."""
    result_layout = contiguous_result
    saves_output = True

    def forward(self, x1, x2):
        a, b = x1._data, x2._data
        self.save(x1, x2)
        a_sq, b_sq = np.sum(a * a, axis=-1, keepdims=True), np.sum(b * b, axis=-1, keepdims=True)
        left = np.concatenate([a * a.dtype.type(-2), a_sq, np.ones_like(a_sq)], axis=-1)
        right = np.concatenate([b, np.ones_like(b_sq), b_sq], axis=-1)
        return np.sqrt(np.maximum(np.matmul(left, np.swapaxes(right, -1, -2)), 0))

    def backward(self, m, g, x1, x2, out):
        safe = m.where(m.data(out) == 0, 1.0, out)
        w = m.where(m.data(out) == 0, 0.0, g / safe)
        wt = m.mT(w)
        return (x1 * m.sum(w, (-1,), True) - m.matmul(w, x2),
                x2 * m.sum(wt, (-1,), True) - m.matmul(wt, x1))


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """p-norm distances between each row of x1 (..., P, M) and each row of x2 (..., R, M)."""
    refuse_low_precision(x1._data, "cdist")
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    for t, name in ((x1, "X1"), (x2, "X2")):
        if t._data.dtype.kind not in "fV":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{t.dtype.scalar_name}")
    if x1._data.dtype != x2._data.dtype:
        raise RuntimeError(f"expected scalar type {x1.dtype.scalar_name} but found "
                           f"{x2.dtype.scalar_name}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if p == 2 and _euclid_by_mm(compute_mode, x1.shape[-2], x2.shape[-2]):
        return CdistBackward0.apply(x1, x2)
    gaps = api.sub(api.unsqueeze(x1, -2), api.unsqueeze(x2, -3))
    if p == 0:  # the count of nonzero gaps: a zero gradient, as torch's cdist (not none)
        return _VectorNormExtremes.apply(gaps, p=0, dim=-1, zero_grad=True)
    if p == float("inf"):  # torch's cdist gives every tied gap the whole gradient
        return LinalgVectorNormBackward0.apply(gaps, p=p, dim=-1, each_tie=True)
    return api.norm(gaps, p, -1)

