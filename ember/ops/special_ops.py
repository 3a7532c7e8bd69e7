"""The differentiable special functions of torch.special beyond the top-level ops: ndtri,
log_ndtr, erfcx, i0e, i1e (unary rows of elementwise's table), and the binary zeta and
igamma/igammac (gammainc/gammaincc) with torch's derivatives: zeta's and igamma's with respect
to their first argument are not implemented (backward raises, as torch)."""
import math

import numpy as np

from .. import _dtype, _meta
from .._creation import tensor
from .._tensor import Tensor
from ..autograd.graph import Node, broadcast_message, observe_untracked
from . import elementwise as E
from . import elementwise_extra as X
from . import special as S
from . import special_cdf as C

_SQRT_2PI = math.sqrt(2 * math.pi)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_through = X._through

def refuse_dtype(kernel, dtype, reduced=True):
    """torch's NotImplementedError for a dtype its ``kernel`` lacks: complex always, float16 and
    bfloat16 too when ``reduced``."""
    if dtype.is_complex or reduced and dtype in (_dtype.float16, _dtype.bfloat16):
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dtype.scalar_name}\'')


def _i0e_grad(m, g, x):
    """d i0e / dx = i1e(x) - sgn(x) i0e(x)."""
    return g * (_through(m, SpecialI1EBackward0, S.i1e)(x)
                - m.sgn(x) * _through(m, SpecialI0EBackward0, S.i0e)(x))


def _i1e_grad(m, g, x):
    """d i1e / dx = i0e(x) - i1e(x) (sgn(x) + 1 / x); 1/2 where |x| <= eps (and NaN), as
    torch."""
    tiny, safe = X.tiny_and_safe(m, x)
    slope = (_through(m, SpecialI0EBackward0, S.i0e)(safe)
             - _through(m, SpecialI1EBackward0, S.i1e)(safe) * (m.sgn(safe) + 1 / safe))
    return g * m.where(tiny, 0.5, slope)


class SpecialLogNdtrBackward0(Node):
    """y = log ndtr(x);  dx = g exp(-(y + x^2 / 2)) / sqrt(2 pi) (torch's formula, from the
    output: its values at the extremes, inf at -1e10 and NaN at -inf, included)."""

    saves_output = True

    def forward(self, a):
        self.save(a)
        return S._in_float64(C.log_ndtr)(X._float(a))

    def backward(self, m, g, x, y):
        return (g / _SQRT_2PI * m.exp(-(y + x * x / 2)),)


_u = E._unary
SpecialNdtriBackward0 = _u(
    "SpecialNdtriBackward0", S._in_float64(C.ndtri),
    lambda m, g, y: g * _SQRT_2PI * m.exp(y * y / 2), "output",
    "the standard normal quantile; dx = g sqrt(2 pi) exp(y^2 / 2)")
SpecialErfcxBackward0 = _u(
    "SpecialErfcxBackward0", S.erfcx, lambda m, g, x: g * (
        2 * x * _through(m, SpecialErfcxBackward0, S.erfcx)(x) - _TWO_OVER_SQRT_PI),
    doc="exp(x^2) erfc(x); dx = g (2 x erfcx(x) - 2 / sqrt(pi))")
SpecialI0EBackward0 = _u("SpecialI0EBackward0", S.i0e, _i0e_grad, doc="exp(-|x|) I0(x)")
SpecialI1EBackward0 = _u("SpecialI1EBackward0", S.i1e, _i1e_grad, doc="exp(-|x|) I1(x)")
for _cls in (SpecialNdtriBackward0, SpecialErfcxBackward0, SpecialI0EBackward0,
             SpecialI1EBackward0):
    _cls.__module__ = __name__


def _in_result_dtype(fn):
    def compute(x, y):
        return np.asarray(fn(x, y)).astype(np.result_type(x, y), copy=False)
    return compute


def _zeta_grad(self, m, g, x, q):
    """dq = -g x zeta(x + 1, q); dx is not implemented (as torch)."""
    if E._needs(self, 0):
        raise NotImplementedError("the derivative for 'zeta' is not implemented.")
    if m.is_graph:
        return None, -g * x * SpecialZetaBackward0.apply(x + 1, q)
    return None, -g * x * S.zeta(x + 1, q)


def _igamma_grad(name, sign):
    def grad(self, m, g, a, x):
        """dx = +-g exp((a - 1) log x - x - lgamma(a)); da is not implemented (as torch)."""
        if E._needs(self, 0):
            raise NotImplementedError(f"the derivative for '{name}: input' is not implemented.")
        lgamma = _through(m, X.LgammaBackward0, S.lgamma)(a)
        return None, sign * g * m.exp((a - 1) * m.log(x) - x - lgamma)
    return grad


_zeta = _in_result_dtype(S.zeta)
SpecialZetaBackward0 = X._binary("SpecialZetaBackward0", _zeta, _zeta_grad)
SpecialZetaBackward1 = X._binary("SpecialZetaBackward1", _zeta, _zeta_grad)  # a number x
SpecialZetaBackward2 = X._binary("SpecialZetaBackward2", _zeta, _zeta_grad)  # a number q
IgammaBackward0 = X._binary("IgammaBackward0", _in_result_dtype(C.gammainc),
                            _igamma_grad("igamma", 1), integers="igamma_cpu")
IgammacBackward0 = X._binary("IgammacBackward0", _in_result_dtype(C.gammaincc),
                             _igamma_grad("igammac", -1), integers="igammac_cpu")
for _cls in (SpecialZetaBackward0, SpecialZetaBackward1, SpecialZetaBackward2, IgammaBackward0,
             IgammacBackward0):
    _cls.__module__ = __name__


def refuse_operands(kernel, *operands, reduced=True):
    """``refuse_dtype`` for the dtype torch's promotion gives the operands (tensors or
    numbers)."""
    described = [(t._data.dtype, t._data.ndim == 0) if hasattr(t, "_data") else t
                 for t in operands]
    try:
        refuse_dtype(kernel, _dtype.from_numpy_dtype(_dtype._result_from_operands(described)),
                     reduced)
    except NotImplementedError:  # (torch's kernel: after the shapes)
        E.refuse_unbroadcastable(*(getattr(t, "_data", t) for t in operands))
        raise


def without_derivative(name, compute, input, other):
    """torch.special.<name>(input, other) for a binary kernel torch gives no derivative (the
    result never requires grad): either argument may be a number, not both."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError(f"special_{name}() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}), but expected one "
                        "of:\n * (Tensor x, Tensor n, *, Tensor out = None)\n"
                        " * (Number x, Tensor n, *, Tensor out = None)\n"
                        " * (Tensor x, Number n, *, Tensor out = None)\n")
    refuse_operands(name + "_cpu", input, other)
    if not isinstance(input, Tensor):
        input = tensor(input)  # (torch's wrapped number: the lowest priority in promotion)
    x, y = E._operands(input, other)
    mismatch = broadcast_message(np.shape(x), np.shape(y))
    if mismatch is not None:
        raise RuntimeError(mismatch)
    dt = np.result_type(x, y)
    if dt.kind != "f":
        dt = _dtype.get_default_dtype().np
    return _untracked(name, np.asarray(compute(x, y)).astype(dt, copy=False), input, other)


def unary_without_derivative(name, compute, input):
    """torch.special.<name>(input) for a float64 kernel torch gives no derivative (the result
    never requires grad; integer and bool inputs give the default float dtype)."""
    refuse_dtype(name + "_cpu", input.dtype)
    data = input._data
    dt = data.dtype if data.dtype.kind == "f" else _dtype.get_default_dtype().np
    return _untracked(name, np.asarray(compute(data)).astype(dt, copy=False), input)


def _untracked(name, data, *inputs):
    """The result tensor of an op without a node (meta when an input is)."""
    if _meta.in_use:
        data = _meta.recheck(data, inputs)
    return observe_untracked(name, inputs, Tensor._make(data))
