"""ONNX conversions of variance, selections along a dim and sorting: var/std, max/min with dim,
argmax/argmin, sort, argsort and topk (keyed by node class, or by name for untracked ops).

An op that returns values and indices (max with dim, sort, topk) converts its values; the
indices tensor is seen as the untracked op ``indices`` of those values, and is the second output
of the same ONNX node (or an ArgMax/ArgMin made when it is used).
"""
import numpy as np

from ..ops import reduction as R
from ..ops import sorting as SO
from ._dynamic import size_of
from ._ops import UNTRACKED, _dims_of, arg, converts, out_dtype, unsupported


def _denominator(g, call, other, x, dims):
    """N - correction as a scalar of the output's dtype: a constant, or computed from the input's
    shape when a reduced axis is dynamic (the count changed in the second trace)."""
    dtype = out_dtype(call)
    if other is None or call.node.denominator == other.node.denominator:
        return g.scalar(float(call.node.denominator), dtype)
    counted = g.node("Gather", [g.node("Shape", [x]), g.ints(dims)], axis=0)
    count = g.node("Cast", [g.axes_op("ReduceProd", counted, [0], 18, keepdims=0)],
                   to=g.elem(dtype))
    correction = arg(call, 2, "correction", 1)
    less = g.node("Sub", [count, g.scalar(float(correction), dtype)])
    return g.node("Max", [less, g.scalar(0.0, dtype)])


@converts(R.VarBackward0, R.StdBackward0)
def _var(g, call, other):
    """sum((x - mean)^2) / (N - correction), and its square root for std."""
    a = call.inputs[0]
    if a.dim() == 0:
        raise unsupported(call, "a 0-d input")
    x = g.name(a)
    dims = _dims_of(call, arg(call, 1, "dim"))
    keepdim = int(bool(arg(call, 3, "keepdim", False)))
    centered = g.node("Sub", [x, g.axes_op("ReduceMean", x, dims, 18, keepdims=1)])
    squares = g.node("Mul", [centered, centered])
    total = g.axes_op("ReduceSum", squares, dims, 13, keepdims=keepdim)
    out = g.node("Div", [total, _denominator(g, call, other, x, dims)])
    return g.node("Sqrt", [out]) if type(call.node) is R.StdBackward0 else out


def _arg_node(g, op, x, dim, keepdim):
    return g.node(op, [x], axis=int(dim), keepdims=int(bool(keepdim)), select_last_index=0)


@converts(R.MaxBackward0, R.MinBackward0)
def _max_dim(g, call, other):
    """Values of max/min along dim (ReduceMax/Min); their indices an ArgMax/Min when used."""
    a = call.inputs[0]
    if a.dim() == 0:
        raise unsupported(call, "a 0-d input")
    x, dim = g.name(a), call.node.dim
    keepdim = arg(call, 2, "keepdim", False)
    top = type(call.node) is R.MaxBackward0
    values = g.axes_op("ReduceMax" if top else "ReduceMin", x, [dim], 18,
                       keepdims=int(bool(keepdim)))
    g.second[values] = lambda: _arg_node(g, "ArgMax" if top else "ArgMin", x, dim, keepdim)
    return values


def _top_k(g, call, other, x, dim, k, largest):
    """(values, indices) of TopK along ``dim``; ``k`` None takes the whole axis (a sort)."""
    if k is None:
        first = call.inputs[0].shape[dim]
        k = size_of(g, first, other.inputs[0].shape[dim] if other is not None else first)
        if k is None:
            raise unsupported(call, "a sorted dim whose size follows an ambiguous dynamic axis")
    count = g.ints([k]) if isinstance(k, (int, np.integer)) else k
    return g.node_outputs("TopK", [x, count], 2, axis=int(dim), largest=int(bool(largest)),
                          sorted=1)


@converts(SO.SortBackward0, SO.SortBackward1, SO.TopkBackward0)
def _sort(g, call, other):
    """sort and topk as TopK: ties keep the lower index first in both, as ember's stable sort."""
    a = call.inputs[0]
    if a.dim() == 0:
        raise unsupported(call, "a 0-d input")
    values, indices = _top_k(g, call, other, g.name(a), call.node.dim, call.kwargs.get("k"),
                             call.kwargs.get("descending", False))
    g.second[values] = lambda: indices
    return values


def _indices(g, call, other):
    values = g.traced(call.inputs[0])
    make = g.second.get(values)
    if make is None:
        raise unsupported(call, "values that were not computed by max, min, sort or topk")
    return make()


def _argsort(g, call, other):
    a, dim, descending = call.inputs
    if a.dim() == 0:
        raise unsupported(call, "a 0-d input")
    return _top_k(g, call, other, g.name(a), dim % a.dim(), None, descending)[1]


def _arg_reduce(op):
    def convert(g, call, other):
        a, dim, keepdim = call.inputs
        x = g.name(a)
        if dim is None or a.dim() == 0:  # over all elements: a 0-d index into the flat input
            return _arg_node(g, op, g.node("Reshape", [x, g.ints([-1])]), 0, False)
        return _arg_node(g, op, x, dim % a.dim(), keepdim)
    return convert


UNTRACKED.update({"indices": _indices, "argsort": _argsort, "argmax": _arg_reduce("ArgMax"),
                  "argmin": _arg_reduce("ArgMin")})
