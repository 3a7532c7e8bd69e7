"""ONNX conversions of shape, indexing and copy ops (reshape, transpose, slicing, cat, ...).

Sizes recorded in the trace are constants; where an input axis is dynamic, the second trace
(``other``) shows which sizes follow it, and those become Reshape's 0 (copy the input's size) or
-1, Slice's open end, or the axis' size read from the input's shape at run time (``_dynamic``).
A size that follows a dynamic axis in any other way is refused.
"""
import numpy as np

from ..ops import index_ops as IX
from ..ops import indexing as I
from ..ops import linalg as LA
from ..ops import matrix_ops as M
from ..ops import pad_ops as P
from ..ops import shape as SH
from ..ops.api import copies as C
from ._builder import INT64_MAX
from ._dynamic import reshape_sizes, sizes
from ._ops import arg, converts, out_dtype, unsupported


def dynamic_error(call, what):
    return RuntimeError(f"ember.onnx.export: {call.op} uses {what} that follows a dynamic axis "
                        "in a way the export cannot express; export with fewer dynamic_axes")


def reshape_target(g, call, other):
    """The output shape, with sizes that change with a dynamic axis as 0 (the input's size on
    the same axis), a dynamic axis' size read at run time, or -1 for the one left."""
    target = list(call.out.shape)
    if other is None:
        return target
    first, second, changed = call.inputs[0].shape, other.inputs[0].shape, []
    for i, (a, b) in enumerate(zip(target, other.out.shape)):
        if a == b:
            continue
        if i < len(first) and first[i] == a and second[i] == b:
            target[i] = 0  # Reshape's 0: this axis keeps the input's size
        else:
            changed.append(i)
    for i in changed[:-1] if len(changed) > 1 else ():
        target[i] = g.dynamic_size(target[i], other.out.shape[i])
        if target[i] is None:  # (N, C, H, r, W, r) -> (N, C, H r, W r): merged axes
            grouped = reshape_sizes(g, g.name(call.inputs[0]), (first, call.out.shape),
                                    (second, other.out.shape))
            if grouped is None:
                raise dynamic_error(call, "a reshape with several sizes")
            return grouped
    for i in changed[-1:]:
        target[i] = -1
    return target


def reshape(g, call, other):
    return g.node("Reshape", [g.name(call.inputs[0]), sizes(g, reshape_target(g, call, other))])


@converts(SH.TransposeBackward0, SH.TBackward0, IX.TransposeBackward1, IX.TBackward1)
def _transpose(g, call, other):
    n = call.inputs[0].dim()
    perm = list(range(n))
    if n > 1:
        d0, d1 = call.node.d0, call.node.d1
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return g.node("Transpose", [g.name(call.inputs[0])], perm=perm)


@converts(SH.PermuteBackward0)
def _permute(g, call, other):
    n = call.inputs[0].dim()
    dims = call.inputs[1] if len(call.inputs) > 1 else call.kwargs["dims"]
    return g.node("Transpose", [g.name(call.inputs[0])], perm=[int(d) % n for d in dims])


@converts(SH.ExpandBackward0)
def _expand(g, call, other):
    source, target = call.inputs[0].shape, list(call.out.shape)
    offset = len(target) - len(source)
    for i in range(offset, len(target)):
        if source[i - offset] == target[i]:
            target[i] = 1  # Expand broadcasts: 1 keeps the input's (maybe dynamic) size
    if other is not None:
        for i, (a, b) in enumerate(zip(call.out.shape, other.out.shape)):
            if a != b and target[i] != 1:
                raise dynamic_error(call, "an expanded size")
    return g.node("Expand", [g.name(call.inputs[0]), g.ints(target)])


@converts(SH.RepeatBackward0)
def _repeat(g, call, other):
    x, repeats = g.name(call.inputs[0]), list(arg(call, 1, "repeats"))
    extra = len(repeats) - call.inputs[0].dim()
    if extra:
        x = g.axes_op("Unsqueeze", x, list(range(extra)), 13)
    return g.node("Tile", [x, g.ints(repeats)])


@converts(SH.CatBackward0)
def _cat(g, call, other):
    dim = call.kwargs.get("dim", 0) % call.out.dim()
    return g.node("Concat", [g.name(t) for t in call.inputs], axis=dim)


@converts(SH.StackBackward0)
def _stack(g, call, other):
    dim = call.kwargs.get("dim", 0) % call.out.dim()
    parts = [g.axes_op("Unsqueeze", g.name(t), [dim], 13) for t in call.inputs]
    return g.node("Concat", parts, axis=dim)


@converts(C.CloneBackward0, LA.CloneBackward0)
def _clone(g, call, other):
    if len(call.inputs) > 1:  # linalg's CloneBackward0: a matmul, named as torch's
        return g.node("MatMul", [g.name(call.inputs[0]), g.name(call.inputs[1])])
    return g.node("Identity", [g.name(call.inputs[0])])


@converts(C.ToCopyBackward0)
def _to_copy(g, call, other):
    return g.node("Cast", [g.name(call.inputs[0])], to=g.elem(out_dtype(call)))


@converts(M.TrilBackward0, M.TriuBackward0)
def _tril(g, call, other):
    diagonal = (list(call.inputs[1:]) + [call.kwargs.get("diagonal", 0)])[0]
    upper = int(type(call.node) is M.TriuBackward0)
    k = g.const(np.asarray(diagonal, dtype=np.int64))
    return g.node("Trilu", [g.name(call.inputs[0]), k], upper=upper)


@converts(P.ConstantPadNdBackward0)
def _pad(g, call, other):
    x, pad = call.inputs[0], list(call.inputs[1])
    value = (list(call.inputs[2:]) + [call.kwargs.get("value", 0.0)])[0]
    n = x.dim()
    begins, ends = [0] * n, [0] * n
    for i in range(len(pad) // 2):
        begins[n - 1 - i], ends[n - 1 - i] = pad[2 * i], pad[2 * i + 1]
    return g.node("Pad", [g.name(x), g.ints(begins + ends), g.scalar(value, out_dtype(call))],
                  mode="constant")


@converts(I.GatherBackward0)
def _gather(g, call, other):
    a, dim, index = call.inputs[0], arg(call, 1, "dim"), arg(call, 2, "index")
    return g.node("GatherElements", [g.name(a), g.name(index)], axis=int(dim) % max(a.dim(), 1))


@converts(I.IndexSelectBackward0)
def _index_select(g, call, other):
    a, dim, index = call.inputs[0], arg(call, 1, "dim"), arg(call, 2, "index")
    return g.node("Gather", [g.name(a), g.name(index)], axis=int(dim) % max(a.dim(), 1))


def _index_items(call, index, ndim):
    """The basic index as a tuple with the Ellipsis spelled out as full slices."""
    items = list(index) if isinstance(index, tuple) else [index]
    if any(isinstance(i, np.ndarray) or isinstance(i, (list, bool)) for i in items):
        raise unsupported(call, "an index of arrays or lists")
    used = sum(1 for i in items if i is not None and i is not Ellipsis)
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at:at + 1] = [slice(None)] * (ndim - used)
        return items
    return items + [slice(None)] * (ndim - used)


def _slice_bounds(g, call, other, item, other_item, dim):
    """(start, end, step) of a slice on ``dim``, as written (ONNX clamps them as Python does).

    A bound that changed in the second trace is an end at the axis' size in both (``:T`` on the
    dynamic axis T itself: it stays open), or the size of a dynamic axis (``bias[:T]`` with T the
    input's length: read from its shape at run time); any other change is refused.
    """
    step = 1 if item.step is None else int(item.step)
    if step < 1:
        raise unsupported(call, "a negative slice step")
    bounds = [0 if item.start is None else int(item.start),
              INT64_MAX if item.stop is None else int(item.stop), step]
    if other is None or other_item == item:
        return tuple(bounds)
    sizes = (call.inputs[0].shape[dim], other.inputs[0].shape[dim])
    if item.step != other_item.step:
        raise dynamic_error(call, f"a slice step on dim {dim}")
    for i, pair in enumerate(((item.start, other_item.start), (item.stop, other_item.stop))):
        if pair[0] == pair[1]:
            continue
        if i and all(e is not None and e >= n for e, n in zip(pair, sizes)):
            bounds[i] = INT64_MAX
        elif None in pair:
            raise dynamic_error(call, f"a slice bound on dim {dim}")
        else:
            bounds[i] = _moving_index(g, call, pair, sizes, f"a slice bound on dim {dim}")
    return tuple(bounds)


def _moving_index(g, call, pair, sizes, what):
    """An index or bound that changed in the second trace: counted from the end of its axis
    (``T - 1`` on the axis T: -1), or a dynamic axis' size read at run time (``:T`` on another
    axis); refused when it is neither, or could be both."""
    from_end = pair[0] - sizes[0]
    ends = from_end == pair[1] - sizes[1] and from_end < 0
    size = g.dynamic_size(*pair) if min(pair) >= 0 else None
    if ends == (size is not None):
        raise dynamic_error(call, what)
    return from_end if ends else size


def _index_of(call):
    return call.inputs[1] if len(call.inputs) > 1 else call.kwargs["index"]


def _index_plan(g, call, other):
    """(slices as (dim, bounds), picked ints as (dim, index), new axes) of a basic index."""
    ndim = call.inputs[0].dim()
    items = _index_items(call, _index_of(call), ndim)
    twins = _index_items(other, _index_of(other), ndim) if other is not None else items
    dim, out_axis, slices, picks, news = 0, 0, [], [], []
    for item, twin in zip(items, twins):
        if item is None:
            news.append(out_axis)
            out_axis += 1
            continue
        if isinstance(item, slice):
            bounds = _slice_bounds(g, call, other, item, twin, dim)
            if bounds != (0, INT64_MAX, 1):
                slices.append((dim, bounds))
            out_axis += 1
        elif int(item) != int(twin):
            sizes = (call.inputs[0].shape[dim], other.inputs[0].shape[dim])
            at = _moving_index(g, call, (int(item), int(twin)), sizes, f"an index on dim {dim}")
            if not isinstance(at, int):
                raise dynamic_error(call, f"an index on dim {dim}")
            picks.append((dim, at))
        else:
            picks.append((dim, int(item)))
        dim += 1
    return slices, picks, news


def _basic_index(g, call, other):
    slices, picks, news = _index_plan(g, call, other)
    source = name = g.name(call.inputs[0])
    if slices:
        starts, ends, steps = zip(*(b for _, b in slices))
        name = g.node("Slice", [name, sizes(g, starts), sizes(g, ends),
                                g.ints([d for d, _ in slices]), g.ints(steps)])
    for d, i in reversed(picks):  # from the last dim: the earlier dims keep their numbers
        name = g.node("Gather", [name, g.const(np.asarray(i, dtype=np.int64))], axis=d)
    if news:
        name = g.axes_op("Unsqueeze", name, news, 13)
    return name if name != source else g.node("Identity", [name])


def shape_converter(cls):
    """The converter for a node class of the reshape or basic-index families, else None."""
    if issubclass(cls, SH.ViewBackward0):
        return reshape
    if issubclass(cls, SH.SliceBackward0):
        return _basic_index
    if issubclass(cls, LA.MmBackward0):
        return _matmul
    return None


def _matmul(g, call, other):
    return g.node("MatMul", [g.name(call.inputs[0]), g.name(call.inputs[1])])


reshape.shape_aware = _basic_index.shape_aware = _expand.shape_aware = True
