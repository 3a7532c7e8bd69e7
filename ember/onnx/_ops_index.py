"""ONNX conversion of advanced indexing, ``a[index]`` with integer or boolean arrays: the index's
slices first (Slice), then Gather for one index array, GatherND for several, and NonZero for a
boolean mask computed in the model (masked_select too).

An index array the trace did not make must be the same in the second trace (a constant: a
LongTensor or a fixed mask); one computed by traced ops is read at run time. As in NumPy,
several index arrays are broadcast together, and their result axes go where the first of them
stood when they are next to each other, else in front.
"""
import numpy as np

from ..ops import indexing as I
from ._dynamic import sizes
from ._ops import converts, unsupported
from ._ops_shape import _slice_bounds


def _is_bool(item):
    return isinstance(item, np.ndarray) and item.dtype == np.bool_


def _expand_items(call, index, ndim):
    """The index as a list of (item, first dim it reads), Ellipsis spelled out."""
    items = list(index) if isinstance(index, tuple) else [index]
    if any(i is None for i in items):
        raise unsupported(call, "None in an index of arrays")
    used = sum(i.ndim if _is_bool(i) else 1 for i in items if i is not Ellipsis)
    at = next((k for k, i in enumerate(items) if i is Ellipsis), None)  # no ==: arrays
    if at is not None:
        items[at:at + 1] = [slice(None)] * (ndim - used)
    else:
        items += [slice(None)] * (ndim - used)
    placed, dim = [], 0
    for item in items:
        placed.append((item, dim))
        dim += item.ndim if _is_bool(item) else 1
    return placed


def _constant_index(g, call, other, item, twin, dim):
    """A constant index array (or int): the same in both traces; masks become int arrays."""
    if not (isinstance(twin, (int, np.integer, np.ndarray)) and
            np.array_equal(np.asarray(item), np.asarray(twin))):
        raise RuntimeError(f"ember.onnx.export: the index on dim {dim} of {call.op} was "
                           "computed from the model's inputs by an op the export does not trace, "
                           "or it follows a dynamic axis; it cannot be stored as a constant")
    array = np.asarray(item)
    if array.dtype == np.bool_:
        return [(dim + k, g.const(rows), 1) for k, rows in enumerate(np.nonzero(array))]
    return [(dim, g.const(array.astype(np.int64)), array.ndim)]


def _index_plan(g, call, other):
    """(slices as (dim, bounds), index arrays as (dim, name, ndim), a traced mask or None)."""
    a, index = call.inputs[0], call.kwargs["index"]
    placed = _expand_items(call, index, a.dim())
    twins = _expand_items(other, other.kwargs["index"], a.dim()) if other else placed
    slices, arrays, mask = [], [], None
    for (item, dim), (twin, _) in zip(placed, twins):
        if isinstance(item, slice):
            bounds = _slice_bounds(g, call, other, item, twin, dim)
            if bounds != (0, np.iinfo(np.int64).max, 1):
                slices.append((dim, bounds))
        elif g.traced(item) is not None and _is_bool(item):
            mask = (dim, item.ndim, g.traced(item))
        elif g.traced(item) is not None:
            name = g.traced(item)
            if item.dtype != np.int64:
                name = g.node("Cast", [name], to=g.elem(np.int64))
            arrays.append((dim, name, item.ndim))
        else:
            arrays += _constant_index(g, call, other, item, twin, dim)
    if mask is not None and arrays:
        raise unsupported(call, "a boolean mask computed by the model next to other index arrays")
    return slices, arrays, mask


def _sliced(g, call, other, slices):
    x = g.name(call.inputs[0])
    if not slices:
        return x
    starts, ends, steps = zip(*(b for _, b in slices))
    return g.node("Slice", [x, sizes(g, starts), sizes(g, ends),
                            g.ints([d for d, _ in slices]), g.ints(steps)])


def _gather_nd(g, x, ndim, dims, points, rank):
    """x gathered at ``points`` ((count.., len(dims)) int64) over ``dims``; the result's
    ``rank`` index axes go where dims[0] stood when the dims are adjacent, else in front."""
    rest = [d for d in range(ndim) if d not in dims]
    if dims != list(range(len(dims))):
        x = g.node("Transpose", [x], perm=dims + rest)
    out = g.node("GatherND", [x, points])
    adjacent = dims == list(range(dims[0], dims[0] + len(dims)))
    if adjacent and dims[0]:
        front = list(range(rank, rank + dims[0]))
        tail = list(range(rank + dims[0], rank + len(rest)))
        out = g.node("Transpose", [out], perm=front + list(range(rank)) + tail)
    return out


@converts(I.IndexBackward0, I.MaskedSelectBackward0)
def _index(g, call, other):
    slices, arrays, mask = _index_plan(g, call, other)
    x, ndim = _sliced(g, call, other, slices), call.inputs[0].dim()
    if mask is not None:
        dim, k, name = mask
        points = g.node("Transpose", [g.node("NonZero", [name])], perm=[1, 0])
        return _gather_nd(g, x, ndim, list(range(dim, dim + k)), points, 1)
    if len(arrays) == 1:
        return g.node("Gather", [x, arrays[0][1]], axis=arrays[0][0])
    total = arrays[0][1]  # the arrays' broadcast shape, read at run time from their sum
    for _, name, _ in arrays[1:]:
        total = g.node("Add", [total, name])
    shape, rank = g.node("Shape", [total]), max(n for _, _, n in arrays)
    parts = [g.axes_op("Unsqueeze", g.node("Expand", [name, shape]), [rank], 13)
             for _, name, _ in arrays]
    points = g.node("Concat", parts, axis=-1)
    return _gather_nd(g, x, ndim, [d for d, _, _ in arrays], points, rank)


_index.shape_aware = True
