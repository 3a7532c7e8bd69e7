"""Indexing primitives: a[index], a[index] = v, gather, scatter, index_select."""
import numpy as np

from .. import _dtype, _meta
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd import graph as _graph
from ..autograd._math import array_math
from ..autograd.graph import Node
from .shape import SelectBackward0, SliceBackward0, as_view, expand_error


def normalize_index(index):
    """Turn tensors inside an index into arrays; report whether the index is basic (a view)."""
    items = index if isinstance(index, tuple) else (index,)
    basic = True
    out = []
    for item in items:
        if isinstance(item, Tensor):
            item = item._data
            if item.ndim == 0 and item.dtype.kind in "iu":
                item = int(item)
        if isinstance(item, (list, np.ndarray)):
            item = np.asarray(item)
            if item.dtype.kind == "f":
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
    index, basic = normalize_index(index)
    if basic:
        return as_view(_basic_node(index, a._data.shape).apply(a, index=index), a)
    if _meta.is_meta(a._data) and _meta.has_mask(index):
        _meta.refuse("indexing with a boolean mask")
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
    """array[index] = value, with torch's error when value's shape does not fit."""
    try:
        array[index] = _dtype.via_float32(value, array.dtype)
    except ValueError as error:
        if "broadcast" not in str(error):
            raise
        target, shape = array[index].shape, np.shape(value)
        if normalize_index(index)[1]:  # basic index: torch expands value to the view
            raise expand_error(shape, target) or error from None
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(shape)} cannot be "
                           f"broadcast to indexing result of shape {list(target)}") from None


class IndexPutBackward0(CopySlices):
    """a[advanced index] = v, in place."""


def setitem(a, index, value):
    """a[index] = value, in place; recorded by autograd as CopySlices when needed."""
    from .inplace import check_inplace, commit_inplace  # inplace builds on indexing (a cycle)
    index, basic = normalize_index(index)
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


class GatherBackward0(Node):
    """out[i][j] = a[i][index[i][j]] (dim=1);  da = scatter_add of g at index."""

    def forward(self, a, dim, index):
        x = a._data
        self.shape, self.dim = x.shape, dim % max(x.ndim, 1)
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
        if isinstance(src, Tensor) and src._data.dtype != x.dtype:
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

    def forward(self, a, src, dim, index):
        return super().forward(a, src, dim, index, reduce="add")


class IndexSelectBackward0(Node):
    """out = a.index_select(dim, index);  da = g summed back at index."""

    def forward(self, a, dim, index):
        x = a._data
        self.shape, self.dim = x.shape, dim % max(x.ndim, 1)
        idx = index._data if isinstance(index, Tensor) else np.asarray(index)
        if idx.dtype != np.int64 and idx.dtype != np.int32:
            raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
        if idx.ndim > 1:
            raise IndexError("index_select(): Index is supposed to be a vector")
        size = x.shape[self.dim] if x.ndim else 1
        bad = _out_of_bounds(idx, size)
        if bad is not None:  # torch's two index_select kernels word it differently
            if self.dim == 0:
                raise IndexError("index out of range in self")
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} "
                               f"axis_dim={size}")
        self.index = (slice(None),) * self.dim + (idx.reshape(-1),)
        return x[self.index]

    def backward(self, m, g):
        return (m.index_into_zeros(g, self.shape, self.index, True),)
