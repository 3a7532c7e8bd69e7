"""ONNX conversions of element-wise ops, activations and reductions (keyed by node class).

Each converter ``convert(g, call, other)`` emits the ONNX node(s) computing ``call.out`` from
the op's inputs and returns the name of the result; ``other`` is the same op in the second trace
(or None) for converters whose attributes may follow a dynamic axis. Nothing here computes: the
values come from ember's ops at run time in onnxruntime.
"""
import math

import numpy as np

from .._tensor import Tensor
from ..ops import activation_ops as A
from ..ops import elementwise as E
from ..ops import loss_ops as L
from ..ops import matrix_ops as M
from ..ops import reduction as R
from ..ops import scan as S

CONVERTERS = {}


def converts(*classes):
    def register(fn):
        for cls in classes:
            CONVERTERS[cls] = fn
        return fn
    return register


def arg(call, index, name, default=None):
    """The op's argument at position ``index`` or keyword ``name``."""
    if len(call.inputs) > index:
        return call.inputs[index]
    return call.kwargs.get(name, default)


def out_dtype(call):
    return call.out._data.dtype


def unary(op, **attributes):
    return lambda g, call, other: g.node(op, [g.name(call.inputs[0])], **attributes)


_UNARY = {"Exp": E.ExpBackward0, "Log": E.LogBackward0, "Sqrt": E.SqrtBackward0,
          "Sin": E.SinBackward0, "Cos": E.CosBackward0, "Tan": E.TanBackward0,
          "Tanh": E.TanhBackward0, "Abs": E.AbsBackward0, "Sign": E.SignBackward0,
          "Floor": E.FloorBackward0, "Ceil": E.CeilBackward0, "Round": E.RoundBackward0,
          "Reciprocal": E.ReciprocalBackward0, "Asin": E.AsinBackward0,
          "Acos": E.AcosBackward0, "Atan": E.AtanBackward0, "Sinh": E.SinhBackward0,
          "Cosh": E.CoshBackward0, "Sigmoid": E.SigmoidBackward0, "Relu": E.ReluBackward0,
          "Neg": E.NegBackward0, "Erf": A.ErfBackward0}
for _op, _cls in _UNARY.items():
    CONVERTERS[_cls] = unary(_op)
CONVERTERS[A.HardswishBackward0] = unary("HardSwish")
CONVERTERS[A.HardsigmoidBackward0] = unary("HardSigmoid", alpha=1 / 6, beta=0.5)


@converts(E.RsqrtBackward0)
def _rsqrt(g, call, other):
    return g.node("Reciprocal", [g.node("Sqrt", [g.name(call.inputs[0])])])


def _scaled(g, value, alpha, dtype):
    return value if alpha == 1 else g.node("Mul", [value, g.scalar(alpha, dtype)])


def binary(op):
    def convert(g, call, other):
        a, b = call.inputs[:2]
        alpha = call.kwargs.get("alpha", 1)
        dtype = out_dtype(call)
        return g.node(op, [g.operand(a, dtype), _scaled(g, g.operand(b, dtype), alpha, dtype)])
    return convert


CONVERTERS.update({E.AddBackward0: binary("Add"), E.SubBackward0: binary("Sub"),
                   E.MulBackward0: binary("Mul"), E.MaximumBackward0: binary("Max"),
                   E.MinimumBackward0: binary("Min")})


@converts(E.RsubBackward0, E.RsubBackward1)
def _rsub(g, call, other):
    a, b = call.inputs[:2]
    dtype = out_dtype(call)
    alpha = call.kwargs.get("alpha", 1)
    return g.node("Sub", [g.operand(b, dtype), _scaled(g, g.operand(a, dtype), alpha, dtype)])


@converts(E.DivBackward0, E.DivBackward2)
def _div(g, call, other):
    if call.kwargs.get("rounding_mode") is not None:
        raise unsupported(call, f"rounding_mode='{call.kwargs['rounding_mode']}'")
    dtype = out_dtype(call)
    return g.node("Div", [g.operand(call.inputs[0], dtype), g.operand(call.inputs[1], dtype)])


@converts(E.PowBackward0, E.PowBackward1, E.PowBackward2)
def _pow(g, call, other):
    dtype = out_dtype(call)
    return g.node("Pow", [g.operand(call.inputs[0], dtype), g.operand(call.inputs[1], dtype)])


@converts(E.ClampBackward1, E.ClampBackward0, M.ClampMinBackward0, M.ClampMaxBackward0,
          L.ClampMinBackward0)
def _clamp(g, call, other):
    a, *bounds = call.inputs
    if type(call.node) is M.ClampMaxBackward0:
        bounds = [None, bounds[0]]
    bounds = (bounds + [call.kwargs.get("min"), call.kwargs.get("max")])[:2]
    dtype = out_dtype(call)
    x = g.name(a)
    for op, bound in zip(("Max", "Min"), bounds):
        if bound is not None:
            x = g.node(op, [x, g.operand(bound, dtype)])
    return x


@converts(E.WhereBackward0)
def _where(g, call, other):
    cond, a, b = call.inputs
    dtype = out_dtype(call)
    return g.node("Where", [g.name(cond), g.operand(a, dtype), g.operand(b, dtype)])


@converts(E.MaskedFillBackward0, E.MaskedFillBackward1)
def _masked_fill(g, call, other):
    a, mask, value = call.inputs
    dtype = out_dtype(call)
    return g.node("Where", [g.name(mask), g.operand(value, dtype), g.name(a)])


@converts(A.GeluBackward0)
def _gelu(g, call, other):
    x, approximate = g.name(call.inputs[0]), arg(call, 1, "approximate", "none")
    if g.opset >= 20:
        return g.node("Gelu", [x], approximate=approximate)
    dtype = out_dtype(call)
    if approximate == "tanh":  # x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = g.node("Mul", [g.node("Pow", [x, g.scalar(3.0, dtype)]),
                              g.scalar(0.044715, dtype)])
        inner = g.node("Mul", [g.node("Add", [x, cube]), g.scalar(math.sqrt(2 / math.pi), dtype)])
        cdf = g.node("Tanh", [inner])
    else:  # x/2 (1 + erf(x / sqrt 2))
        cdf = g.node("Erf", [g.node("Div", [x, g.scalar(math.sqrt(2), dtype)])])
    # x (1 + cdf) / 2, written so that onnxruntime's GELU fusion (which breaks the graph when
    # both forms share an input) does not match it
    half = g.node("Mul", [g.node("Add", [cdf, g.scalar(1.0, dtype)]), g.scalar(0.5, dtype)])
    return g.node("Mul", [x, half])


@converts(A.SiluBackward0)
def _silu(g, call, other):
    x = g.name(call.inputs[0])
    return g.node("Mul", [x, g.node("Sigmoid", [x])])


@converts(A.LeakyReluBackward0)
def _leaky_relu(g, call, other):
    slope = arg(call, 1, "negative_slope", 0.01)
    return g.node("LeakyRelu", [g.name(call.inputs[0])], alpha=float(slope))


@converts(A.HardtanhBackward0)
def _hardtanh(g, call, other):
    low, high = arg(call, 1, "min_val", -1.0), arg(call, 2, "max_val", 1.0)
    dtype = out_dtype(call)
    return g.node("Clip", [g.name(call.inputs[0]), g.scalar(low, dtype), g.scalar(high, dtype)])


@converts(A.EluBackward0)
def _elu(g, call, other):
    alpha, scale = arg(call, 1, "alpha", 1.0), arg(call, 2, "scale", 1.0)
    input_scale = arg(call, 3, "input_scale", 1.0)
    if scale != 1 or input_scale != 1:
        raise unsupported(call, "scale or input_scale other than 1 (selu)")
    return g.node("Elu", [g.name(call.inputs[0])], alpha=float(alpha))


@converts(A.SoftmaxBackward0, A.LogSoftmaxBackward0)
def _softmax(g, call, other):
    op = "Softmax" if type(call.node) is A.SoftmaxBackward0 else "LogSoftmax"
    return g.node(op, [g.name(call.inputs[0])], axis=int(arg(call, 1, "dim")))


def _dims(call):
    """The reduced dims of a reduction, as non-negative ints."""
    return _dims_of(call, arg(call, 1, "dim"))


def _dims_of(call, dim):
    ndim = call.inputs[0].dim()
    if dim is None or dim == ():
        return list(range(ndim))
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    return sorted(d % ndim if ndim else 0 for d in dims)


def _keepdim(call):
    return int(bool(arg(call, 2, "keepdim", False)))


def reduce(op, since):
    def convert(g, call, other):
        if call.kwargs.get("dtype") is not None:
            raise unsupported(call, "dtype=")
        x = g.name(call.inputs[0])
        if call.inputs[0]._data.dtype != out_dtype(call):
            x = g.node("Cast", [x], to=g.elem(out_dtype(call)))
        if call.inputs[0].dim() == 0:
            return g.node("Identity", [x])
        return g.axes_op(op, x, _dims(call), since, keepdims=_keepdim(call))
    return convert


# the opset from which each reduction takes its axes as an input
for _op, _since, _classes in (
        ("ReduceSum", 13, (R.SumBackward0, R.SumBackward1)),
        ("ReduceMean", 18, (R.MeanBackward0, R.MeanBackward1)),
        ("ReduceProd", 18, (R.ProdBackward0, R.ProdBackward1)),
        ("ReduceMax", 18, (R.AmaxBackward0, R.MaxBackward1)),
        ("ReduceMin", 18, (R.AminBackward0, R.MinBackward1)),
        ("ReduceLogSumExp", 18, (R.LogsumexpBackward0,))):
    for _cls in _classes:
        CONVERTERS[_cls] = reduce(_op, _since)


@converts(R.LinalgVectorNormBackward0)
def _vector_norm(g, call, other):
    p = arg(call, 1, "p", 2)
    ops = {1: "ReduceL1", 2: "ReduceL2"}
    if p not in ops:
        raise unsupported(call, f"p={p!r}")
    x = g.name(call.inputs[0])
    dims, keepdim = _dims_of(call, arg(call, 2, "dim")), int(bool(arg(call, 3, "keepdim", False)))
    return g.axes_op(ops[p], x, dims, 18, keepdims=keepdim)


def _softplus_of(g, x, beta, dtype):
    """softplus(beta x) / beta; torch's switch to x past ``threshold`` differs from it by less
    than exp(-threshold) relative, below float32's resolution for the default 20."""
    if beta == 1:
        return g.node("Softplus", [x])
    scaled = g.node("Softplus", [g.node("Mul", [x, g.scalar(beta, dtype)])])
    return g.node("Div", [scaled, g.scalar(beta, dtype)])


@converts(A.SoftplusBackward0)
def _softplus(g, call, other):
    return _softplus_of(g, g.name(call.inputs[0]), arg(call, 1, "beta", 1.0), out_dtype(call))


@converts(A.LogSigmoidBackward0)
def _log_sigmoid(g, call, other):
    x = g.node("Neg", [g.name(call.inputs[0])])
    return g.node("Neg", [_softplus_of(g, x, 1, out_dtype(call))])


@converts(A.MishBackward0)
def _mish(g, call, other):
    x = g.name(call.inputs[0])
    if g.opset >= 18:
        return g.node("Mish", [x])
    return g.node("Mul", [x, g.node("Tanh", [_softplus_of(g, x, 1, out_dtype(call))])])


@converts(S.CumsumBackward0)
def _cumsum(g, call, other):
    if arg(call, 2, "dtype") is not None:
        raise unsupported(call, "dtype=")
    axis = g.const(np.asarray(arg(call, 1, "dim"), dtype=np.int64))
    return g.node("CumSum", [g.name(call.inputs[0]), axis])


def _comparison(op, negate=False):
    def convert(g, call, other):
        a, b = call.inputs
        pair = (a, b) if isinstance(a, Tensor) else (b, a)
        dtype = np.result_type(*E._operands(*pair))  # compared in torch's promoted dtype
        out = g.node(op, [g.operand(a, dtype), g.operand(b, dtype)])
        return g.node("Not", [out]) if negate else out
    return convert


def _logical(op):
    def convert(g, call, other):
        values = [v for v in call.inputs if v is not None]
        return g.node(op, [g.operand(v, np.bool_) for v in values])
    return convert


# ops that make no node (see autograd.graph.Untracked), by name
UNTRACKED = {"equal": _comparison("Equal"), "not_equal": _comparison("Equal", negate=True),
             "less": _comparison("Less"), "less_equal": _comparison("LessOrEqual"),
             "greater": _comparison("Greater"), "greater_equal": _comparison("GreaterOrEqual"),
             "logical_and": _logical("And"), "logical_or": _logical("Or"),
             "logical_xor": _logical("Xor"), "logical_not": _logical("Not"),
             "inplace": lambda g, call, other: g.name(call.inputs[0])}  # a holds new's value


def unsupported(call, what=None):
    """The error for an op (or one of its options) that has no ONNX conversion here."""
    op = call.op
    cut = op.find("Backward")
    plain = op[:cut].lower() if cut > 0 else op
    detail = f" with {what}" if what else ""
    return RuntimeError(f"ember.onnx.export: the op '{plain}' ({op}){detail} has no ONNX "
                        "conversion; the model cannot be exported")
