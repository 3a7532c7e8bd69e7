"""Indexing primitives: a[index], a[index] = v, gather, scatter, index_select."""
import warnings

import numpy as np

from .. import _dtype, _meta
from .._memory_format import contiguous_result
from .._tensor import Tensor
from ..autograd import _opmath, grad_mode
from ..autograd import graph as _graph
from ..autograd._math import array_math
from ..autograd.graph import Node
from .shape import SelectBackward0, SliceBackward0, _dim, as_view, expand_error

_INDEX_DTYPES = frozenset(np.dtype(t) for t in (np.int64, np.int32, np.bool_))


def _as_tuple(index):
    """torch's (and old NumPy's) reading of a list index: a short list holding a tensor, a
    sequence, a slice, None or Ellipsis is a tuple of indices (x[[[0, 1], [1, 2]]] is
    x[[0, 1], [1, 2]]); other lists are one index array."""
    if type(index) is list and len(index) < 32 and any(
            isinstance(x, (Tensor, list, tuple, slice, np.ndarray, range)) or x is None or
            x is Ellipsis for x in index):
        warnings.warn("Using a non-tuple sequence for multidimensional indexing is deprecated "
                      "and will be changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. "
                      "In pytorch 2.9 this will be interpreted as tensor index, "
                      "x[torch.tensor(seq)], which will result either in an error or a different "
                      "result", UserWarning, stacklevel=5)
        return tuple(index)
    return index


def normalize_index(index):
    """Turn tensors inside an index into arrays; report whether the index is basic (a view)."""
    index = _as_tuple(index)
    items = index if isinstance(index, tuple) else (index,)
    basic = True
    out = []
    for item in items:
        tensor = isinstance(item, Tensor)
        if tensor:
            item = item._data
            if item.ndim == 0 and item.dtype.kind in "iu" and item.dtype != np.uint8:
                item = int(item)
        if isinstance(item, (list, np.ndarray, range)):  # torch reads a range as a list
            item = np.asarray(item) if isinstance(item, np.ndarray) or len(item) else \
                np.zeros(0, np.int64)  # x[[]], x[range(0)]: an empty long index, as torch
            if item.dtype == np.uint8:  # torch: a byte tensor (or array) is a deprecated mask
                warnings.warn("indexing with dtype torch.uint8 is now deprecated, please use a "
                              "dtype torch.bool instead.", UserWarning, stacklevel=4)
                item = item.astype(bool)
            elif item.dtype not in _INDEX_DTYPES and (tensor or item.dtype.kind not in "iu"):
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            basic = False
        elif type(item) is slice:
            if item.step is not None and item.step <= 0:  # torch has no negative steps
                raise ValueError("step must be greater than zero")
        elif not (item is None or item is Ellipsis or isinstance(item, (int, np.integer))):
            raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or "
                             f"byte Variables are valid indices (got {type(item).__name__})")
        out.append(item)
    return (tuple(out) if isinstance(index, tuple) or len(out) != 1 else out[0]), basic


class IndexBackward0(Node):
    """out = a[index] with integer arrays or masks;  da = zeros with g summed at index."""
    result_layout = contiguous_result

    def forward(self, a, index):
        self.shape, self.index = a._data.shape, index
        return a._data[index]

    def backward(self, m, g):
        return (m.index_into_zeros(g, self.shape, self.index, True),)


class MaskedSelectBackward0(IndexBackward0):
    """out = a[mask] (flattened selection by a boolean mask)."""


class IndexPutZerosBackward(Node):
    """out = zeros(shape) with g put (summed if ``accumulate``) at index;  dg = out_grad[index]."""

    def forward(self, g, shape, index, accumulate):
        self.index = index
        return array_math.index_into_zeros(g._data, shape, index, accumulate)

    def backward(self, m, grad):
        return (m.index(grad, self.index),)


# torch names a basic-indexing node after the last step it applies; inside a tuple, slices that
# cover a whole dim are skipped (a lone slice is always SliceBackward0)
_UnsqueezeIndex = type("UnsqueezeBackward0", (SliceBackward0,), {"__doc__": "a[None]"})
_AliasIndex = type("AliasBackward0", (SliceBackward0,), {"__doc__": "a[...]"})


def _basic_node(index, shape):
    if type(index) is not tuple:
        if isinstance(index, slice):
            return SliceBackward0
        index = (index,)
    dims = _item_dims(index, len(shape))
    for item, d in zip(reversed(index), reversed(dims)):
        if item is Ellipsis or (isinstance(item, slice) and item.indices(shape[d]) == (
                0, shape[d], 1)):
            continue
        if item is None:
            return _UnsqueezeIndex
        return SliceBackward0 if isinstance(item, slice) else SelectBackward0
    return _AliasIndex


def _item_dims(index, ndim):
    """The input dim each item of a basic index reads (None for None and Ellipsis)."""
    used = sum(1 for item in index if item is not None and item is not Ellipsis)
    dims, d = [], 0
    for item in index:
        if item is Ellipsis:
            d += ndim - used
            dims.append(None)
        else:
            dims.append(None if item is None else d)
            d += item is not None
    return dims


def getitem(a, index):
    """a[index]: basic indexing returns a view, advanced indexing a copy."""
    if type(index) is tuple and len(index) > 1:
        index = one_ellipsis(index, a._data.ndim)
    try:
        return _getitem(a, index)
    except IndexError as error:  # NumPy's "too many indices for array" in torch's words
        raise _too_many(index, a._data.ndim) or error from None


def one_ellipsis(index, ndim):
    """``index`` with at most one Ellipsis, read as torch reads several: each stands for the
    dims no other item indexes, so past the first one an Ellipsis is nothing when every dim is
    indexed; otherwise it moves past the tensor's last dim, where torch takes only ellipses and
    slices it skips as whole (start 0, step 1 and any stop >= 0: it reads the size there as 0)."""
    at = [k for k, item in enumerate(index) if item is Ellipsis]
    if len(at) < 2:
        return index
    spare = ndim - _dims_used(index)
    if spare <= 0:
        return tuple(item for item in index if item is not Ellipsis)
    if not all(item is Ellipsis or _skipped_slice(item) for item in index[at[1]:]):
        raise IndexError(f"an index with several ellipses ('...') indexes past the tensor's "
                         f"{ndim} dims: each ellipsis stands for the {spare} dims no other item "
                         f"indexes, so the items after the second one have no dims left")
    return index[:at[1]]


def _skipped_slice(item):
    return type(item) is slice and all(type(b) is int or b is None for b in (
        item.start, item.stop, item.step)) and item.start in (None, 0) and item.step in (
        None, 1) and (item.stop is None or item.stop >= 0)


def _dims_used(items):
    """How many of the tensor's dims the items of an index read (a mask: as many as it has)."""
    used = 0
    for item in items:
        if item is None or item is Ellipsis or type(item) is bool:
            continue
        array = item._data if isinstance(item, Tensor) else item
        used += array.ndim if isinstance(array, np.ndarray) and array.dtype == bool else 1
    return used


def _too_many(index, ndim):
    """torch's IndexError for an index with more dims than the tensor has (None if it fits):
    on a 0-d tensor a lone int or slice gets its own message."""
    if _dims_used(index if type(index) is tuple else (index,)) <= ndim:
        return None
    if ndim == 0 and type(index) is not tuple:
        if type(index) is slice:
            return IndexError("slice() cannot be applied to a 0-dim tensor.")
        if isinstance(index, (int, np.integer)):
            return IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                              "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    return IndexError(f"too many indices for tensor of dimension {ndim}")


def _ints_first(index):
    """torch applies an index's integers as selections before its index arrays (NumPy treats
    them as index arrays too, which moves the arrays' dims elsewhere: x[0, :, [1, 2]] is
    (3, 2) in torch, (2, 3) in NumPy): (the selection, the rest) where both kinds meet, else
    None."""
    if type(index) is not tuple or not any(
            isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in index):
        return None
    first, rest = [], []
    for item in index:
        if isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            first.append(item)
        elif item is None:
            rest.append(None)
        elif item is Ellipsis:
            first.append(Ellipsis)
            rest.append(Ellipsis)
        else:  # (a mask spans as many dims as it has)
            spans = item.ndim if isinstance(item, np.ndarray) and item.dtype == bool else 1
            first.extend([slice(None)] * spans)
            rest.append(item)
    return tuple(first), tuple(rest)


def _getitem(a, index):
    index, basic = normalize_index(index)
    if not basic:
        split = _ints_first(index)
        if split is not None:  # a selection (a view), then the index arrays, as torch
            return _getitem(getitem(a, split[0]), split[1])
    if basic:
        return as_view(_basic_node(index, a._data.shape).apply(a, index=index), a)
    if _meta.is_meta(a._data) and _meta.has_mask(index):
        _meta.refuse("indexing with a boolean mask")
    error = _mask_error(index, a._data.shape)
    if error is not None:
        raise error
    return IndexBackward0.apply(a, index=index)


class CopySlices(Node):
    """a[index] = v recorded in place;  d(old a) = g with zeros at index, dv = g[index]."""

    def forward(self, a, v, index):
        self.index = index
        out = a._data.copy()
        _write(out, index, v._data if isinstance(v, Tensor) else v)
        return out

    def backward(self, m, g):
        ga = None
        if self.next_functions[0][0] is not None:
            keep = np.ones(g.shape, dtype=bool)
            keep[self.index] = False
            ga = g * keep
        gv = m.index(g, self.index) if self.next_functions[1][0] is not None else None
        return ga, gv


def _write(array, index, value):
    """array[index] = value, with torch's error when value's shape does not fit (torch first
    drops value's leading size-1 dims; a complex value into a real array warns as torch)."""
    if isinstance(value, np.ndarray):
        value = value.reshape(strip_leading_ones(value.shape))
        if value.dtype.kind == "c" and array.dtype.kind in "fV":
            _dtype.warn_discarding_imaginary(stacklevel=4)
            value = value.real
    try:
        array[index] = _dtype.via_float32(value, array.dtype)
    except IndexError as error:  # (NumPy's "for axis" worded as torch's, as Node.apply does)
        raise _mask_error(index, array.shape) or _graph._translate_numpy_error(error, ()) \
            or error from None
    except ValueError as error:
        text = str(error)  # (a mask's count mismatch is worded without "broadcast")
        if "broadcast" not in text and "boolean array indexing assignment" not in text:
            raise
        target, shape = array[index].shape, np.shape(value)
        if normalize_index(index)[1]:  # basic index: torch expands value to the view
            raise expand_error(shape, target, np_dtype=np.asarray(value).dtype) or error from None
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(shape)} cannot be "
                           f"broadcast to indexing result of shape {list(target)}") from None


def strip_leading_ones(shape):
    lead = 0
    while lead < len(shape) and shape[lead] == 1:
        lead += 1
    return shape[lead:]


def _mask_error(index, shape):
    """torch's IndexError for a bool mask whose shape is not that of the dims it covers (NumPy's
    message otherwise), or None."""
    items = index if isinstance(index, tuple) else (index,)
    used = sum(i.ndim if isinstance(i, np.ndarray) and i.dtype == np.bool_ else 1
               for i in items if i is not None and i is not Ellipsis)
    dim = 0
    for item in items:
        if item is Ellipsis:
            dim += len(shape) - used
        elif isinstance(item, np.ndarray) and item.dtype == np.bool_:
            for j, size in enumerate(item.shape):
                if dim + j >= len(shape) or size != shape[dim + j]:
                    return IndexError(f"The shape of the mask {list(item.shape)} at index {j} "
                                      f"does not match the shape of the indexed tensor "
                                      f"{list(shape)} at index {dim + j}")
            dim += item.ndim
        elif item is not None:
            dim += 1
    return None


class IndexPutBackward0(CopySlices):
    """a[advanced index] = v, in place."""


def setitem(a, index, value, masked_fill=False):
    """a[index] = value, in place; recorded by autograd as CopySlices when needed.
    ``masked_fill``: index_put_'s rule, where a 0-d bool index is a mask too."""
    if type(index) is tuple and len(index) > 1:
        index = one_ellipsis(index, a._data.ndim)
    try:
        return _setitem(a, index, value, masked_fill)
    except IndexError as error:  # NumPy's "too many indices for array" in torch's words
        raise _too_many(index, a._data.ndim) or error from None


def _setitem(a, index, value, masked_fill=False):
    if type(index) is slice and type(value) is Tensor and not (
            a._requires_grad or value._requires_grad) and _graph._dual is None:
        x, v = a._data, value._data  # the common case (a dataset filling a buffer): a slice,
        if type(x) is np.ndarray and type(v) is np.ndarray and v.dtype == x.dtype:  # no graph
            grad_mode.check_inplace(a._vc)
            _write(x, index, v)
            a._vc[0] += 1
            return
    if type(index) is int and not a._requires_grad and _graph._dual is None and \
            not isinstance(value, Tensor):  # x[i] = number (a per-sample buffer), no graph:
        value = _setitem_scalar(value, a._data.dtype)  # the steps below that an int index
        grad_mode.check_inplace(a._vc)  # and a number take (the mask and index checks pass
        _write(a._data, index, value)  # an int as it is)
        a._vc[0] += 1
        return
    from .inplace import check_inplace, commit_inplace  # inplace builds on indexing (a cycle)
    _refuse_byte_mask_fill(index, value, a._data.shape)
    index, basic = normalize_index(index)
    if not basic:
        split = _ints_first(index)
        if split is not None:  # written through the selection (a view), as torch
            return _setitem(getitem(a, split[0]), split[1], value, masked_fill)
    if isinstance(value, Tensor):
        if not basic:
            _check_put_dtype(a, index, value, masked_fill)
    else:
        value = _setitem_scalar(value, a._data.dtype)
    needs_graph = grad_mode._state.enabled and (
        a._requires_grad or (isinstance(value, Tensor) and value._requires_grad))
    if not needs_graph and _graph._dual is None:  # (forward AD: the node gives the tangent)
        v = value._data if isinstance(value, Tensor) else value
        grad_mode.check_inplace(a._vc)  # an inference tensor refuses before the write
        _write(a._data, index, v)
        a._vc[0] += 1
        return
    check_inplace(a, view=True)  # torch writes through a view a[index]
    commit_inplace(a, (CopySlices if basic else IndexPutBackward0).apply(a, value, index=index))


def _refuse_byte_mask_fill(index, value, shape):
    """torch fills one value through a lone mask with masked_fill_ (after its mask shape
    check), which takes no byte mask."""
    items = index if isinstance(index, tuple) else (index,)
    advanced = [i for i in items if isinstance(i, (list, np.ndarray)) or isinstance(i, Tensor)
                and not (i.ndim == 0 and i._data.dtype.kind in "i")]
    if len(advanced) == 1 and isinstance(advanced[0], Tensor) and \
            advanced[0]._data.dtype == np.uint8 and \
            (not isinstance(value, Tensor) or value._data.size == 1):
        error = _mask_error(tuple(i._data.astype(bool) if i is advanced[0] else i
                                  for i in items), shape)
        raise error or RuntimeError("masked_fill_ only supports boolean masks, but got mask "
                                    "with dtype unsigned char")


def _setitem_scalar(value, np_dtype):
    """A Python number as a[index] = number reads it: torch's TypeError for anything else,
    its overflow errors (float16 and bfloat16 take an overflowing float as inf, as torch)."""
    if isinstance(value, np.generic) and not isinstance(value, (np.integer, float, complex)) \
            or not isinstance(value, (int, float, complex, np.integer)):
        kind = type(value)
        name = kind.__name__ if kind.__module__ == "builtins" else \
            f"{kind.__module__}.{kind.__qualname__}"
        legacy = _dtype.from_numpy_dtype(np_dtype).scalar_name
        raise TypeError(f"can't assign a {name} to a torch.{legacy}Tensor")
    if isinstance(value, int) and not -1 << 63 <= value < 1 << 63:
        raise ValueError("Overflow when unpacking long long")
    return _dtype.scalar_as(value, np_dtype, half_inf=True)


def _check_put_dtype(a, index, value, masked_fill):
    """index_put_'s rule: value's dtype is a's, unless value has one element and the index's
    only tensor is a bool mask (torch then fills through masked_fill_: the element is cast,
    with its overflow checks)."""
    if value._data.dtype == a._data.dtype:
        return
    arrays = [i for i in (index if isinstance(index, tuple) else (index,))
              if isinstance(i, np.ndarray)]
    if (value._data.size == 1 and len(arrays) == 1 and arrays[0].dtype == np.bool_
            and (arrays[0].ndim or masked_fill)):
        _dtype.scalar_as(value._data.reshape(()).item(), a._data.dtype)
        return
    check_put_shape(value._data.shape, a._data[index].shape)  # torch: shapes first
    raise put_dtype_error(a, value)


def check_put_shape(shape, target):
    """index_put_'s error for a value whose shape (less leading 1s) does not expand to the
    indexing result's."""
    stripped = strip_leading_ones(shape)
    if len(stripped) > len(target) or any(
            v not in (1, t) for v, t in zip(stripped[::-1], target[::-1])):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(shape)} cannot be "
                           f"broadcast to indexing result of shape {list(target)}")


def put_dtype_error(a, value):
    """index_put_'s error for a value of another dtype than a's."""
    return RuntimeError(f"Index put requires the source and destination dtypes match, got "
                        f"{a.dtype.scalar_name} for the destination and "
                        f"{value.dtype.scalar_name} for the source.")


class GatherBackward0(Node):
    """out[i][j] = a[i][index[i][j]] (dim=1);  da = scatter_add of g at index."""
    result_layout = contiguous_result

    def forward(self, a, dim, index):
        x = a._data
        self.shape, self.dim = x.shape, _dim(x.ndim, dim)
        self.index = _index_array(index, "gather")
        if self.index.ndim != x.ndim:
            raise RuntimeError("Index tensor must have the same number of dimensions as input "
                               "tensor")
        _check_index_shape(self.index.shape, x.shape, self.dim, gather=True)
        # torch reads only index.shape[d] entries along the other dims (no broadcasting)
        part = tuple(slice(None) if d == self.dim else slice(0, n)
                     for d, n in enumerate(self.index.shape))
        _check_bounds(self.index, x.shape[self.dim] if x.ndim else 1, self.dim)
        return np.take_along_axis(x[part], self.index, axis=self.dim)

    def backward(self, m, g):
        return (m.scatter_add_zeros(g, self.shape, self.dim, self.index),)


def _out_of_bounds(index, size):
    """The first index outside [0, size), or None (NumPy would wrap a negative one silently)."""
    if index.size:
        bad = index[(index < 0) | (index >= size)]
        if bad.size:
            return bad.flat[0]
    return None


def _check_bounds(index, size, dim):
    """torch's error for an index outside [0, size) along ``dim`` (gather, scatter)."""
    bad = _out_of_bounds(index, size)
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")


def _check_index_shape(index, shape, dim, src=None, gather=False):
    """torch's gather/scatter rule: index no larger than self along every dim but ``dim``, and
    no larger than src (scatter) along every dim (NumPy would broadcast a smaller src)."""
    if len(index) != len(shape):
        return  # (a 0-d self, or the dims error raised elsewhere)
    too_big = [d for d in range(len(shape)) if d != dim and index[d] > shape[d]]
    if gather and too_big:
        raise RuntimeError(f"Size does not match at dimension {too_big[0]} expected index "
                           f"{list(index)} to be no larger than self {list(shape)} apart from "
                           f"dimension {dim}")
    bad_src = src is not None and len(src) == len(index) and any(
        i > s for i, s in zip(index, src))
    if too_big or bad_src:
        tail = f" and to be no larger size than src {list(src)}" if src is not None else ""
        raise RuntimeError(f"Expected index {list(index)} to be no larger than self "
                           f"{list(shape)} apart from dimension {dim}{tail}")


def _index_array(index, op):
    arr = index._data if isinstance(index, Tensor) else np.asarray(index)
    if arr.dtype != np.int64 and arr.dtype != np.int32:
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")
    return arr


def _scatter_positions(index, dim):
    pos = list(np.indices(index.shape, sparse=True))
    pos[dim] = index
    return tuple(pos)


class ScatterBackward0(Node):
    """out = a with src written at index along dim;  da = g zeroed there, dsrc = g gathered."""

    def forward(self, a, src, dim, index, reduce=None):
        x = a._data.copy()
        self.dim = dim % max(x.ndim, 1)
        self.index = _index_array(index, "scatter")
        if isinstance(src, Tensor) and _opmath.given_dtype(src) != _opmath.given_dtype(a):
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        _check_index_shape(self.index.shape, x.shape, self.dim,
                           src._data.shape if isinstance(src, Tensor) else None)
        _check_bounds(self.index, x.shape[self.dim] if x.ndim else 1, self.dim)
        pos = _scatter_positions(self.index, self.dim)
        s = src._data[tuple(slice(0, n) for n in self.index.shape)] if isinstance(
            src, Tensor) else src
        if reduce == "add":
            np.add.at(x, pos, s)
        elif reduce == "multiply":
            np.multiply.at(x, pos, s)
        else:
            x[pos] = s
        self.accumulate = reduce == "add"
        self.src_shape = src._data.shape if isinstance(src, Tensor) else None
        return x

    def backward(self, m, g):
        ga = g
        if not self.accumulate:
            mask = np.ones(g.shape, dtype=bool)
            mask[_scatter_positions(self.index, self.dim)] = False
            ga = m.where(mask, g, m.zeros_like(g))  # 0, not g * 0 (-0.0 where g < 0)
        gs = None
        if self.next_functions[1][0] is not None:
            gs = m.gather(g, self.dim, self.index)
            if self.src_shape != self.index.shape:  # src entries beyond index's get no gradient
                part = tuple(slice(0, n) for n in self.index.shape)
                gs = m.index_into_zeros(gs, self.src_shape, part, False)
        return ga, gs


class ScatterBackward1(ScatterBackward0):
    """scatter of a scalar ``value``."""


class ScatterAddBackward0(ScatterBackward0):
    """out = a with src added at index along dim;  da = g, dsrc = g gathered at index."""

    reduced_computes = True  # torch adds bfloat16 and float16 in float32, rounding once

    def forward(self, a, src, dim, index):
        return super().forward(a, src, dim, index, reduce="add")


class IndexSelectBackward0(Node):
    """out = a.index_select(dim, index);  da = g summed back at index."""
    result_layout = contiguous_result

    def forward(self, a, dim, index):
        x = a._data
        self.shape, self.dim = x.shape, _dim(x.ndim, dim)
        idx = index._data if isinstance(index, Tensor) else np.asarray(index)
        if idx.dtype != np.int64 and idx.dtype != np.int32:
            raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
        if idx.ndim > 1:
            raise IndexError("index_select(): Index is supposed to be a vector")
        if not x.ndim and idx.size != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                               f"{idx.size} value(s)")
        size = x.shape[self.dim] if x.ndim else 1
        bad = _out_of_bounds(idx, size)
        if bad is not None:  # torch's two index_select kernels word it differently
            if self.dim == 0:
                raise IndexError("index out of range in self")
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} "
                               f"axis_dim={size}")
        if not x.ndim:  # a 0-d tensor's one element, 0-d
            self.index = None
            return x.copy()
        self.index = (slice(None),) * self.dim + (idx.reshape(-1),)
        return x[self.index]

    def backward(self, m, g):
        if self.index is None:
            return (g,)
        return (m.index_into_zeros(g, self.shape, self.index, True),)
