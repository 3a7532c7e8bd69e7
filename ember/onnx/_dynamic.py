"""Values whose sizes follow a dynamic axis, rebuilt at run time from the inputs' shapes.

A tensor the trace did not make (``zeros(x.size(0), 1)``, ``arange(x.size(1))``) is seen as two
arrays, one per trace (see ember.onnx). When both are filled with one number, count
``start, start + step, ...`` along a dynamic axis, or hold one number on and below a diagonal and
another above it (the causal mask of scaled_dot_product_attention), the graph computes the value
from the input's shape instead of storing it; a size that follows a dynamic axis (a slice's
end ``:T``) likewise becomes that axis' size read at run time. Anything else stays refused by
the caller.
"""
import numpy as np


def sizes(g, values):
    """A 1-D int64 value holding ``values``: ints, or names of 1-D int64 run-time sizes."""
    if all(isinstance(v, (int, np.integer)) for v in values):
        return g.ints(values)
    parts = [g.ints([v]) if isinstance(v, (int, np.integer)) else v for v in values]
    return g.node("Concat", parts, axis=0)


def size_of(g, n, m):
    """The size ``n`` of the trace (``m`` in the second one): an int when they agree, else the
    name of the dynamic axis' size read at run time, or None when no single axis had them."""
    return int(n) if n == m else g.dynamic_size(n, m)


def rebuild(g, value, a, b):
    """Name ``value`` (arrays ``a`` and ``b`` in the two traces) by a run-time computation from
    the dynamic sizes, if it is a fill or a count that follows them; return whether it is."""
    if a.ndim != b.ndim or a.dtype != b.dtype or a.shape == b.shape:
        return False
    return _fill(g, value, a, b) or _count(g, value, a, b) or _triangle(g, value, a, b)


def _fill(g, value, a, b):
    """One number expanded to the sizes read at run time (a zero state made with x.size(0))."""
    if not a.size or not b.size:
        return False
    fill = a.reshape(-1)[0]
    if not (np.all(a == fill) and np.all(b == fill)):
        return False
    shape = [size_of(g, n, m) for n, m in zip(a.shape, b.shape)]
    if any(s is None for s in shape):
        return False
    g.bind(value, g.node("Expand", [g.const(np.asarray(fill)), sizes(g, shape)]))
    return True


def _count(g, value, a, b):
    """``start + step * i`` for i below a dynamic size (``arange(x.size(1))``), computed as
    onnxruntime will compute it, and equal to both traces' values."""
    if a.ndim != 1 or a.dtype.kind not in "iuf" or len(b) < 2:
        return False
    size = g.dynamic_size(len(a), len(b))
    if size is None:
        return False
    start, step = b[0], b[1] - b[0]
    made = np.arange(len(b)).astype(a.dtype) * step + start
    if not (np.array_equal(made, b) and np.array_equal(made[:len(a)], a)):
        return False
    count = g.node("Range", [g.scalar(0, np.int64), g.axes_op("Squeeze", size, [0], 13),
                             g.scalar(1, np.int64)])
    if a.dtype != np.int64:
        count = g.node("Cast", [count], to=g.elem(a.dtype))
    if step != 1:
        count = g.node("Mul", [count, g.scalar(step, a.dtype)])
    if start != 0:
        count = g.node("Add", [count, g.scalar(start, a.dtype)])
    g.bind(value, count)
    return True


def _triangle(g, value, a, b):
    """``where(tril(ones(n, m), k), inside, outside)`` of sizes read at run time."""
    if a.ndim != 2 or not a.size or not b.size:
        return False
    inside, outside = b[0, 0], b[0, -1]
    k = int(np.count_nonzero(b[0] == inside)) - 1
    for array in (a, b):
        lower = np.tril(np.ones(array.shape, dtype=bool), k)
        if not np.array_equal(array, np.where(lower, inside, outside).astype(array.dtype),
                              equal_nan=array.dtype.kind == "f"):
            return False
    shape = [size_of(g, n, m) for n, m in zip(a.shape, b.shape)]
    if any(s is None for s in shape):
        return False
    ones = g.node("Expand", [g.scalar(1, np.int64), sizes(g, shape)])
    lower = g.node("Trilu", [ones, g.const(np.asarray(k, dtype=np.int64))], upper=0)
    mask = g.node("Cast", [lower], to=g.elem(np.bool_))
    g.bind(value, g.node("Where", [mask, g.scalar(inside, a.dtype), g.scalar(outside, a.dtype)]))
    return True


def _groups(source, target):
    """Consecutive axes of ``source`` and ``target`` with equal products, as ((i0, i1), (j0, j1))
    slices, as a reshape merges and splits them; None for zero sizes or no such grouping."""
    if 0 in source or 0 in target or int(np.prod(source)) != int(np.prod(target)):
        return None
    groups, i, j = [], 0, 0
    while i < len(source) and j < len(target):
        start, p, q = (i, j), source[i], target[j]
        i, j = i + 1, j + 1
        while p != q:
            if p < q:
                p, i = p * source[i], i + 1
            else:
                q, j = q * target[j], j + 1
        groups.append(((start[0], i), (start[1], j)))
    if i < len(source) or j < len(target):  # trailing ones join the last group
        if not groups:
            return None
        (i0, _), (j0, _) = groups.pop()
        groups.append(((i0, len(source)), (j0, len(target))))
    return groups


def _fits(groups, source, target):
    return all(int(np.prod(source[i0:i1])) == int(np.prod(target[j0:j1]))
               for (i0, i1), (j0, j1) in groups)


def reshape_sizes(g, x, shapes, probe_shapes):
    """The sizes of a reshape of the graph value ``x`` (shapes: input and output in the trace,
    probe_shapes: in the second) computed from x's run-time shape, group by group of merged or
    split axes; None when a group is neither a merge nor a split with one changing size."""
    groups = _groups(*shapes)
    if groups is None or not _fits(groups, *probe_shapes):
        return None
    out, out2 = shapes[1], probe_shapes[1]
    shape, found = g.node("Shape", [x]), []
    for (i0, i1), (j0, j1) in groups:
        moving = [j for j in range(j0, j1) if out[j] != out2[j]]
        if not moving:
            found += [int(n) for n in out[j0:j1]]
        elif j1 - j0 == 1:  # a merge (or the same axis): the product of the input's sizes
            part = g.node("Slice", [shape, g.ints([i0]), g.ints([i1])])
            found.append(g.axes_op("ReduceProd", part, [0], 18, keepdims=1))
        elif i1 - i0 == 1 and len(moving) == 1:  # a split: the input's size over the others
            rest = int(np.prod([out[j] for j in range(j0, j1) if j != moving[0]]))
            size = g.node("Div", [g.node("Slice", [shape, g.ints([i0]), g.ints([i1])]),
                                  g.ints([rest])])
            found += [size if j == moving[0] else int(out[j]) for j in range(j0, j1)]
        else:
            return None
    return found
