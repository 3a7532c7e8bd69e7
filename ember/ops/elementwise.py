"""Element-wise primitives (arithmetic, unary math, activations, where) with their derivatives."""
import numpy as np

from .. import _dtype
from .._memory_format import contiguous_result, memory_perm
from .._tensor import Tensor
from ..autograd import _opmath
from ..autograd._math import array_math, rsqrt
from ..autograd._math import sign as _sign
from ..autograd.graph import Node, broadcast_message
from . import _bf16, _bf16_grad, _bf16_vec, _parallel

_SCALARS = (int, float, bool, complex)


def _operands(a, b):
    """Arrays/scalars for ``a`` and ``b`` such that NumPy computes torch's result dtype."""
    if type(a) is not Tensor and not isinstance(a, Tensor):
        a = _scalar_or_tensor(a)
    if isinstance(b, Tensor):
        ad, bd = a._data, b._data
        if ad.dtype is bd.dtype or ad.dtype == bd.dtype:
            return ad, bd
        dt = _dtype._result_from_operands([(ad.dtype, ad.ndim == 0), (bd.dtype, bd.ndim == 0)])
        return ad.astype(dt, copy=False), bd.astype(dt, copy=False)
    b = _scalar_or_tensor(b)
    if isinstance(b, Tensor):
        return _operands(a, b)
    ad = a._data
    kind = ad.dtype.kind
    if kind == "f" or (kind == "b" and type(b) is bool) or kind == "c":
        return ad, b
    if kind in "iu" and type(b) is int:
        return ad, _dtype.wrap_int(b, ad.dtype)  # torch wraps (int64's 2**63 too)
    if kind == "V":  # bfloat16 (ml_dtypes) promotes a Python scalar to float32: keep bfloat16
        return ad, ad.dtype.type(b)
    dt = _dtype._result_from_operands([(ad.dtype, ad.ndim == 0), b])
    return ad.astype(dt), b


def float_operand(value, converted, dt):
    """An operand of an integer op computed in float ``dt`` (true division, xlogy, ...): cast
    from its own dtype, as torch, never wrapped into the other operand's integer dtype first
    (``converted``: the operand after _operands)."""
    if isinstance(value, Tensor):
        return value._data.astype(dt)
    return converted.astype(dt) if isinstance(converted, np.ndarray) else \
        _scalar_or_tensor(value)


def _scalar_or_tensor(x):
    if isinstance(x, Tensor) or type(x) in _SCALARS:
        return x
    if isinstance(x, (np.generic, np.ndarray)) and np.ndim(x) == 0:
        return x.item()
    if isinstance(x, np.ndarray):
        return Tensor._make(x)
    raise TypeError(f"unsupported operand type: {type(x).__name__}")


def _needs(node, i):
    return node.next_functions[i][0] is not None


# ---------------------------------------------------------------- binary arithmetic
class AddBackward0(Node):
    """out = a + alpha * b;  da = g, db = alpha * g."""

    alpha = 1
    saves_scalar = False  # fastpath.scalar_op: ``a + scalar`` saves nothing

    def forward(self, a, b, alpha=1):
        x, y = _operands(a, b)
        self.alpha = alpha  # the backward's: torch multiplies by it as given (float32)
        if alpha == 1:
            return x + y
        return _scaled_sum(x, y, alpha, a, b, 1)

    def backward(self, m, g):
        if self.next_functions[1][0] is None:  # b is a scalar or needs no gradient
            return g, None
        return g, (g if self.alpha == 1 else g * self.alpha)


def _scaled_sum(x, y, alpha, a, b, sign):
    """x + sign alpha y for add/sub/rsub: alpha fed as torch feeds it (rounded to a low result
    dtype); same-shape contiguous low-dtype operands take torch's vector lanes and scalar
    tail; where one runs in C order and the other not (a transposed operand), no order makes
    both contiguous and torch's loop is its scalar one: alpha y rounded to the low dtype first."""
    fed = _opmath.fed_scalar(alpha, a, b)
    if fed is not alpha and isinstance(b, Tensor) and x.shape == y.shape:
        source, other = _opmath.source_array(a), _opmath.source_array(b)
        if source is not None and other is not None:
            if source.flags.c_contiguous and other.flags.c_contiguous:
                return _bf16_vec.scaled_sum(x, y, fed, source, sign)
            if source.flags.c_contiguous != other.flags.c_contiguous and \
                    (source.flags.forc and other.flags.forc or
                     min(source.strides[-1], other.strides[-1]) == source.itemsize !=
                     max(source.strides[-1], other.strides[-1])):
                term = _bf16.rounded(fed * y)
                return x + term if sign > 0 else x - term
    return x + fed * y if sign > 0 else x - fed * y


class SubBackward0(Node):
    """out = a - alpha * b;  da = g, db = -alpha * g."""

    alpha = 1
    saves_scalar = False

    def forward(self, a, b, alpha=1):
        x, y = _operands(a, b)
        self.alpha = alpha
        return x - y if alpha == 1 else _scaled_sum(x, y, alpha, a, b, -1)

    def backward(self, m, g):
        if self.next_functions[1][0] is None:  # b is a scalar or needs no gradient
            return g, None
        return g, -g if self.alpha == 1 else g * -self.alpha


class RsubBackward0(Node):
    """out = b - alpha * a (``rsub(a, b)``, both tensors);  da = -alpha * g, db = g."""

    alpha = 1

    def forward(self, a, b, alpha=1):
        x, y = _operands(a, b)
        self.alpha = alpha
        return y - x if alpha == 1 else _scaled_sum(y, x, alpha, b, a, -1)

    def backward(self, m, g):
        return (-g if self.alpha == 1 else g * -self.alpha), g


class RsubBackward1(RsubBackward0):
    """out = b - alpha * a for a scalar b (``2 - x``);  da = -alpha * g."""

    def backward(self, m, g):
        return (-g if self.alpha == 1 else g * -self.alpha),


class MulBackward0(Node):
    """out = a * b;  da = g * b, db = g * a."""

    saves_scalar = True  # fastpath.scalar_op: ``a * scalar`` saves (None, scalar)

    def forward(self, a, b):
        x, y = _operands(a, b)
        self.save(a, b)
        return x * y

    def backward(self, m, g, a, b):
        edges = self.next_functions
        return (g * b if edges[0][0] is not None else None), \
            (g * a if edges[1][0] is not None else None)


class DivBackward0(Node):
    """out = a / b (true division);  da = g / b, db = -g * ((a / b) / b)."""

    saves_scalar = True

    def forward(self, a, b, rounding_mode=None):
        x, y = _operands(a, b)
        self.save(a, b)
        if rounding_mode is None:
            if x.dtype.kind not in "fVc":  # integer true division gives the default float dtype
                dt = _dtype.get_default_dtype().np
                x, y = float_operand(a, x, dt), float_operand(b, y, dt)
            return np.true_divide(x, y)
        _check_integer_divisor(x, y, "div_floor_cpu" if rounding_mode == "floor" else
                               "div_trunc_cpu")
        low = _reduced_result(a, b)
        if low is not None and isinstance(y, np.ndarray) and y.ndim:  # torch's bfloat16 steps
            out = _bf16.div_floor(x, y, low) if rounding_mode == "floor" else \
                np.trunc(_bf16.rounded(x / y, low))
        else:
            out = np.floor_divide(x, y) if rounding_mode == "floor" else np.trunc(x / y)
        self.rounding = True
        return out.astype(np.result_type(x, y), copy=False)

    def backward(self, m, g, a, b):
        if "rounding" in self.__dict__:
            return m.zeros_like(g), None
        ga = g / b if _needs(self, 0) else None
        gb = -g * (a / b / b) if _needs(self, 1) else None
        return ga, gb


def _reduced_result(a, b):
    """The bfloat16/float16 dtype a binary op's result takes (its float operands were widened
    from it for computing), else None."""
    low = None
    for t in (a, b):
        if isinstance(t, Tensor) and t._data.dtype.kind == "f":
            source = _opmath.source(t)
            if source is None and t._data.ndim:
                return None  # a float32/float64 operand: the result is that
            low = low or source
    return low


class DivBackward2(DivBackward0):
    """out = a / b with rounding_mode 'trunc' or 'floor' (zero gradient, as torch)."""


class RemainderBackward0(Node):
    """out = a mod s for a scalar s (the divisor's sign, as Python's %);  da = g."""

    def forward(self, a, b):
        x, y = _operands(a, b)
        _check_integer_divisor(x, y, "remainder_cpu")
        return _remainder(x, y)

    def backward(self, m, g):
        return g, None


def _remainder(x, y):
    """x mod y with the divisor's sign, as torch: for floats fmod(x, y), plus y where that is
    nonzero and of the other sign, so a zero keeps x's sign (-2 mod 2 is -0.0; NumPy's mod
    gives the divisor's sign, 0.0)."""
    if np.result_type(x, y).kind not in "fVc":
        return np.mod(x, y)
    with np.errstate(invalid="ignore"):
        mod = np.fmod(x, y)
        return np.where((mod != 0) & ((np.asarray(y) < 0) != (mod < 0)), mod + y, mod)


class RemainderBackward1(Node):
    """out = a mod b (both tensors);  da = g, db = -g * floor(a / b)."""

    def forward(self, a, b):
        x, y = _operands(a, b)
        _check_integer_divisor(x, y, "remainder_cpu")
        if _needs_any(a, b):
            self.quotient = np.floor_divide(x, y)
        return _remainder(x, y)

    def backward(self, m, g):
        return g, (-g * self.quotient if _needs(self, 1) else None)


class NoDerivative(Node):
    """An op without a derivative in torch (e.g. ``scalar % tensor``): backward raises."""

    def forward(self, a, b, op):
        self.op = op
        return RemainderBackward0.forward(self, a, b)

    def backward(self, m, g):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")


NoDerivative.__name__ = NoDerivative.__qualname__ = "NotImplemented"  # torch's node name


def _check_integer_divisor(x, y, kernel):
    """torch refuses integer division by zero (NumPy gives 0 with a warning) and bool operands."""
    kind = np.result_type(x, y).kind
    if kind in "bc" or kind in "iu" and not np.all(y):  # (torch's kernel: after the shapes)
        refuse_unbroadcastable(x, y)
    if kind == "b":
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    _dtype.refuse_complex(np.result_type(x, y), kernel)
    if kind in "iu" and not np.all(y) and 0 not in np.broadcast_shapes(np.shape(x), np.shape(y)):
        raise RuntimeError("ZeroDivisionError")  # (an empty result divides nothing: no error)


def _needs_any(*tensors):
    return any(isinstance(t, Tensor) and t._requires_grad for t in tensors)


class PowBackward0(Node):
    """out = a ** e for a scalar exponent e;  da = g * e * a^(e-1)."""

    def forward(self, a, e):
        _check_integer_exponent(a._data.dtype, e)
        x, y = _operands(a, e)
        self.save(a, e)  # the exponent as given: a bfloat16 backward's pow reads it again
        _check_integer_power(x, y)
        if x.dtype.kind == "b" and type(y) is bool:  # bool ** bool stays bool, as torch
            return x.copy() if y else np.ones_like(x)
        if type(e) is not bool:
            if _opmath.source(a) is not None:  # torch's bfloat16 or float16 kernel
                return _bf16_grad.power(x, e)
            if x.dtype.kind == "f":  # 2, 3, -2, ... by products and roots, as torch's kernel
                return _bf16_grad.scalar_power(x, e)
        return np.power(x, y)

    def backward(self, m, g, a, e):
        if e == 0:
            return (m.zeros_like(g),)
        if type(a) is np.ndarray and a.dtype.kind == "f":  # torch's grad * (e * a.pow(e - 1)),
            return (g * (e * _bf16_grad.scalar_power(a, e - 1)),)  # with pow's own kernel
        return (g * (e * a ** (e - 1)),)




def _check_integer_exponent(np_dtype, e):
    """torch's checks of a Python int exponent of an integer or bool tensor, in its order:
    not negative, an int64, held by an integer dtype (before NumPy would wrap it)."""
    if type(e) is not int or np_dtype.kind not in "biu":
        return
    if e < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if e >= 1 << 64:
        raise OverflowError("int too big to convert")
    if e >= 1 << 63:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    if np_dtype.kind != "b":
        _dtype.scalar_as(e, np_dtype)


def _check_integer_power(x, y, tensors=False):
    kind = np.result_type(x, y).kind
    if kind == "b" and tensors:
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    if kind in "biu" and not tensors and np.any(np.less(y, 0)):
        raise RuntimeError("Integers to negative integer powers are not allowed.")


def _power(x, y):
    """x ** y; integer tensor exponents below 0 give 1/x^k truncated toward 0, as torch."""
    if isinstance(y, np.ndarray) and y.dtype.kind in "iu" and np.result_type(x, y).kind in "iu" \
            and (y < 0).any():
        whole = np.power(x, np.abs(y))
        return np.where((y >= 0) | (np.abs(whole) == 1), whole, 0).astype(whole.dtype)
    return np.power(x, y)


class PowBackward1(Node):
    """out = a ** b (both tensors);  da = g * b * a^(b-1), db = g * out * log(a) (0 where a=0)."""

    saves_output = True

    def forward(self, a, b):
        x, y = _operands(a, b)
        self.save(a, b)
        _check_integer_power(x, y, tensors=True)
        return _power(x, y)

    def backward(self, m, g, a, b, out):
        # torch's formulas and order: grad * (b * a^(b-1)) and grad * (out * log a), each 0
        # where torch's condition holds (exponent 0; base 0 with exponent >= 0)
        ga = None
        if _needs(self, 0):
            exponent_zero = m.data(b) == 0
            ga = g * (b * a ** m.where(exponent_zero, 1.0, b - 1))
            ga = m.where(exponent_zero, m.zeros_like(ga), ga)
        gb = None
        if _needs(self, 1):
            zero_base = m.data(a) == 0
            gb = g * (out * m.log(a))  # (base 0, exponent < 0: inf * -inf = -inf, as torch)
            gb = m.where(zero_base & (m.data(b) >= 0), m.zeros_like(gb), gb)
        return ga, gb


class PowBackward2(Node):
    """out = s ** b for a scalar base s;  db = g * out * log(s)."""

    saves_output = True

    def forward(self, s, b):
        y, x = _operands(b, _opmath.fed_scalar(s, b))  # the backward's log reads s as given
        self.save(s)
        _check_integer_power(x, y, tensors=True)
        return _power(x, y)

    def backward(self, m, g, s, out):
        if isinstance(s, complex):  # a complex base: its principal log
            return None, g * (out * complex(np.log(s)))
        if s == 0:  # torch: 0 where the exponent is >= 0 (out is 0 or 1), else out * log(0)
            return None, g * m.where(m.data(out) <= 1, 0.0, out * -np.inf)
        return None, g * (out * float(np.log(s)) if s > 0 else out * np.nan)  # (s < 0: NaN)


class MaximumBackward0(Node):
    """out = max(a, b) element-wise; ties split the gradient in half, as torch."""

    def forward(self, a, b):
        x, y = _operands(a, b)
        self.save(a, b)
        return _against(np.maximum, x, y)  # (a 0-d operand: in blocks)

    def backward(self, m, g, a, b):
        x, y = m.data(a), m.data(b)
        return _split_ties(m, g, x < y, x > y, x == y)


class MinimumBackward0(Node):
    """out = min(a, b) element-wise; ties split the gradient in half, as torch."""

    def forward(self, a, b):
        x, y = _operands(a, b)
        self.save(a, b)
        return _against(np.minimum, x, y)

    def backward(self, m, g, a, b):
        x, y = m.data(a), m.data(b)
        return _split_ties(m, g, x > y, x < y, x == y)


def _split_ties(m, g, a_loses, b_loses, ties):
    """torch's rule: a side gets g unless it lost (so both get g where a NaN is involved), and
    ties split it in half."""
    dt = m.data(g).dtype  # (array_math.where: g's dtype at once, branch-free; 1M: 0.48 -> 0.18 ms)
    half = array_math.where(ties, np.asarray(0.5, dt), np.asarray(1.0, dt))
    g = g * half
    return m.keep(~a_loses, g), m.keep(~b_loses, g)  # a loser's +0.0, as torch's


# ---------------------------------------------------------------- unary math
class NegBackward0(Node):
    """out = -a;  da = -g."""

    saves_output = saves_input = False
    ufunc = np.negative

    def forward(self, a):
        return np.negative(a._data)

    def backward(self, m, g):
        return (-g,)


def _unary(name, np_fn, formula, saves="input", doc=""):
    """Make a unary op class whose backward is ``formula(m, g, saved)``."""
    integer_ok = name in _INTEGER_OK
    save_input = saves == "input"

    def forward(self, a):
        data = a._data
        if data.dtype.kind != "f":
            if data.dtype.kind == "b" and name in _NO_BOOL:
                _refuse_bool(name)
            if data.dtype.kind == "c":
                _check_complex(name, data.dtype)
            elif not integer_ok:
                data = data.astype(_dtype.get_default_dtype().np)
        if save_input:
            self._saved = (a,)
        return np_fn(data)

    # the formula is the backward itself (the engine wraps a single gradient in a tuple)
    cls = type(name, (Node,), {"forward": forward, "backward": staticmethod(formula),
                               "saves_output": saves == "output", "__doc__": doc,
                               "saves_input": save_input, "ufunc": staticmethod(np_fn)})
    cls.__module__ = __name__
    return cls


_INTEGER_OK = {"AbsBackward0", "SignBackward0", "FloorBackward0", "CeilBackward0", "ReluBackward0",
               "RoundBackward0", "TruncBackward0"}


_NO_BOOL = {"FloorBackward0": "floor_vml_cpu", "CeilBackward0": "ceil_vml_cpu",
            "TruncBackward0": "trunc_vml_cpu", "RoundBackward0": "round_vml_cpu",
            "AbsBackward0": "abs_cpu", "ReluBackward0": None}


def _refuse_bool(name):
    kernel = _NO_BOOL[name]
    if kernel is None:
        raise RuntimeError("Boolean inputs not supported for relu")
    raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


# torch's refusals of complex inputs, per op (NotImplementedError, torch's words)
_NO_COMPLEX = {"SignBackward0": "Unlike NumPy, torch.sign is not intended to support complex "
                                "numbers. Please use torch.sgn instead.",
               "ReluBackward0": "clamp is not supported for complex types",
               **{f"{op.capitalize()}Backward0": f"{op} is not supported for complex inputs"
                  for op in ("floor", "ceil", "trunc")}}


# torch's kernels with no complex version (NotImplementedError naming the kernel)
COMPLEX_KERNELS = {"RoundBackward0": "round_vml_cpu", "ErfcBackward0": "erfc_vml_cpu",
                   "I0Backward0": "i0_vml_cpu", "ErfinvBackward0": "erfinv_vml_cpu",
                   "LgammaBackward0": "lgamma_vml_cpu", "DigammaBackward0": "digamma",
                   "ErfBackward0": "erf_vml_cpu", "LogitBackward0": "logit_cpu",
                   "Atan2Backward0": "atan2_cpu", "HypotBackward0": "hypot_cpu",
                   "Logaddexp2Backward0": "logaddexp2_cpu", "NextafterBackward0": "nextafter_cpu",
                   "CopysignBackward0": "copysign_cpu", "CopysignBackward1": "copysign_cpu",
                   **{f"XlogyBackward{i}": "xlogy_cpu" for i in range(3)}}


def refuse_unbroadcastable(x, y):
    """torch's error for operands whose shapes do not broadcast (arrays or numbers): its
    TensorIterator reports it before a kernel refuses their dtypes."""
    message = broadcast_message(np.shape(x), np.shape(y))
    if message is not None:
        raise RuntimeError(message)


def _check_complex(name, np_dtype):
    if name in COMPLEX_KERNELS:
        _dtype.refuse_complex(np_dtype, COMPLEX_KERNELS[name])
    if name in _NO_COMPLEX:
        raise NotImplementedError(_NO_COMPLEX[name])
    if name in ("FmaxBackward0", "FminBackward0"):
        raise RuntimeError(f"{name[:4].lower()} not implemented for complex tensors.")
    if name in ("Deg2RadBackward0", "Rad2DegBackward0"):
        raise RuntimeError(f"{name[:7].lower()} is not supported for complex tensors.")


def _zeros(m, g):
    return m.zeros_like(g)  # a step function: nothing saved, as torch


ExpBackward0 = _unary("ExpBackward0", np.exp, lambda m, g, y: g * y, "output", "y = e^x; dx = g*y")
LogBackward0 = _unary("LogBackward0", np.log, lambda m, g, x: g / x, doc="y = ln x; dx = g/x")
Log2Backward0 = _unary("Log2Backward0", np.log2, lambda m, g, x: g / (x * float(np.log(2))))
Log10Backward0 = _unary("Log10Backward0", np.log10, lambda m, g, x: g / (x * float(np.log(10))))
Log1PBackward0 = _unary("Log1PBackward0", np.log1p, lambda m, g, x: g / (x + 1))
Expm1Backward0 = _unary("Expm1Backward0", np.expm1, lambda m, g, y: g * (y + 1), "output")
SqrtBackward0 = _unary("SqrtBackward0", np.sqrt, lambda m, g, y: g / (2 * y), "output")
RsqrtBackward0 = _unary("RsqrtBackward0", rsqrt,
                        lambda m, g, y: (g * -0.5) * (y * y * y), "output")
_rsqrt_float = RsqrtBackward0.forward


def _rsqrt_forward(self, a):
    source = _opmath.source_array(a)
    if source is not None:  # torch's bfloat16 scalar tail rounds the square root first
        return _bf16_grad.rsqrt_forward(a._data, source)
    return _rsqrt_float(self, a)


RsqrtBackward0.forward = _rsqrt_forward
SinBackward0 = _unary("SinBackward0", np.sin, lambda m, g, x: g * m.cos(x))
CosBackward0 = _unary("CosBackward0", np.cos, lambda m, g, x: -g * m.sin(x))
TanBackward0 = _unary("TanBackward0", np.tan, lambda m, g, y: g * (1 + y * y), "output")
TanhBackward0 = _unary("TanhBackward0", np.tanh, lambda m, g, y: g * m.one_minus_square(y),
                      "output", "y = tanh x; dx = g * (1 - y*y), 1 - y*y rounded once (an fma)")
AbsBackward0 = _unary("AbsBackward0", np.abs, lambda m, g, x: g * m.sgn(x))
SignBackward0 = _unary("SignBackward0", _sign, _zeros, None, "sign; 0 at NaN, as torch")


class PoissonBackward0(Node):
    """torch.poisson: the counts, drawn before the node records, pass through; gradient zero."""

    def forward(self, rates, counts):
        return counts

    backward = staticmethod(_zeros)
FloorBackward0 = _unary("FloorBackward0", np.floor, _zeros, None)
CeilBackward0 = _unary("CeilBackward0", np.ceil, _zeros, None)
RoundBackward0 = _unary("RoundBackward0", np.round, _zeros, None)
TruncBackward0 = _unary("TruncBackward0", np.trunc, _zeros, None)
ReciprocalBackward0 = _unary("ReciprocalBackward0", np.reciprocal,
                             lambda m, g, y: -g * (y * y), "output")
AsinBackward0 = _unary("AsinBackward0", np.arcsin, lambda m, g, x: g * m.rsqrt(1 - x * x))
AcosBackward0 = _unary("AcosBackward0", np.arccos, lambda m, g, x: -g * m.rsqrt(1 - x * x))
AtanBackward0 = _unary("AtanBackward0", np.arctan, lambda m, g, x: g / (1 + x * x))
SinhBackward0 = _unary("SinhBackward0", np.sinh, lambda m, g, x: g * m.cosh(x))
CoshBackward0 = _unary("CoshBackward0", np.cosh, lambda m, g, x: g * m.sinh(x))


def _sigmoid(x):
    # torch's 1 / (1 + e^-x): below -ln(max) e^-x overflows to inf and the result is torch's
    # exact 0 (not a subnormal), so silu(-inf) is NaN as torch's; kernels run with NumPy quiet
    dt = x.dtype
    one = _SIGMOID_ONE32 if dt is _SIGMOID_F32 else _SIGMOID_ONES.get(dt)  # (float32: without
    # hashing its dtype, a NumPy dtype's hash is not cached)
    if one is None:
        if dt.itemsize < 4:  # half precision computes in float32, as torch's opmath
            return _sigmoid(x.astype(np.float32)).astype(dt)
        one = _SIGMOID_ONES[dt] = np.ones((), dtype=dt)
    return _divide(one, _add(_exp(_negative(x)), one))


_SIGMOID_F32 = np.dtype(np.float32)  # (NumPy's one instance: told by identity)
_SIGMOID_ONE32 = np.ones((), dtype=_SIGMOID_F32)
_SIGMOID_ONES = {_SIGMOID_F32: _SIGMOID_ONE32}  # never a half type's (computed in float32)
# NumPy's module has a __getattr__, so CPython 3.11 does not specialize ``np.<name>`` reads: each
# is a generic lookup (about 300 instructions). The per-op kernels bind their ufuncs once.
_divide, _add, _exp, _negative = np.divide, np.add, np.exp, np.negative
_maximum, _logical_not, _less_equal = np.maximum, np.logical_not, np.less_equal
_ndarray, _empty = np.ndarray, np.empty


SigmoidBackward0 = _unary("SigmoidBackward0", _sigmoid, lambda m, g, y: g * m.one_minus(y) * y,
                          "output",
                          "y = 1/(1+e^-x); dx = g*(1-y)*y")
def _relu_kernel(x):
    if x.size < _AGAINST_MIN:  # (small arrays: no second call)
        return _maximum(_zero_of(x), x)  # keeps NaN and -0.0 as torch
    return _against(_maximum, _zero_of(x), x)


def _relu_grad_kernel(y, g):
    # the gradient flows where y is not <= 0 (NaN included); +0.0 elsewhere, as torch
    # (array_math.keep: branch-free, 4.0 ms against 0.25 ms on 32x32x32x32 float32)
    return array_math.keep(_logical_not(_less_equal(y, _zero_of(y))), g)  # (0-d: scalars)


_ZEROS = {}


def _zero_of(x):
    """0 as a cached 0-d array of ``x``'s dtype: the same bits as a Python 0 operand, which
    NumPy would cast anew on every call (about as costly as the operation on a small array)."""
    zero = _ZEROS.get(x.dtype)
    if zero is None:
        zero = _ZEROS[x.dtype] = np.zeros((), x.dtype) if x.dtype.kind in "fiu" else 0
    return zero


_BLOCK = 4096  # elements of a cached block of one value (16 KiB of float32: stays in L1)
_AGAINST_MIN = 2 * _BLOCK  # below, the blocks' set-up costs what they save
_BLOCKS = {}
_AGAINST_TYPES = "?bBhHiIfd"  # (float16 and 64-bit integers: as fast against a 0-d operand)


def _against(ufunc, a, b, out=None):
    """ufunc(a, b, out=out) where one operand is a 0-d array of the other's dtype, the same
    bits: over a large dense array (C-contiguous, or so in its memory order: transposed,
    channels-last) run as its rows of _BLOCK elements against a cached block of the value, the
    operands in their order (max(-0.0, +0.0) is not max(+0.0, -0.0)). NumPy's maximum and
    minimum against a 0-d operand run a loop 2-3x slower than against an array (1M float32:
    0.32 ms against 0.13 ms a call; ReLU's forward was 2.5% of the CIFAR step). ``out``: an
    array of the result's shape and dtype (in place: the array operand itself)."""
    value, x = (a, b) if type(a) is _ndarray and not a.ndim else (b, a)
    if type(x) is not _ndarray or x.size < _AGAINST_MIN or type(value) is not _ndarray or \
            value.ndim or x.dtype.char not in _AGAINST_TYPES or value.dtype != x.dtype:
        return ufunc(a, b) if out is None else ufunc(a, b, out=out)  # (out=None: slower)
    if out is None and x.flags.c_contiguous:
        xs = x
        out = rows_out = _empty(x.shape, x.dtype)  # (its own data, as NumPy's result: a + b
    else:  # may then run in place, with other NaN bits than into a view)
        xs, rows_out, out = _dense(x, out)
        if xs is None:
            return ufunc(a, b, out=out)
    key = (x.dtype, value.tobytes())
    block = _BLOCKS.get(key)
    if block is None:
        block = _BLOCKS[key] = np.full(_BLOCK, value, dtype=x.dtype)
    size = x.size
    flat, flat_out, whole = xs.reshape(-1), rows_out.reshape(-1), size - size % _BLOCK
    rows, out_rows = flat[:whole].reshape(-1, _BLOCK), flat_out[:whole].reshape(-1, _BLOCK)
    if value is a:
        ufunc(block, rows, out=out_rows)
        if whole < size:
            ufunc(value, flat[whole:], out=flat_out[whole:])
    else:
        ufunc(rows, block, out=out_rows)
        if whole < size:
            ufunc(flat[whole:], value, out=flat_out[whole:])
    return out


def _dense(x, out):
    """(x, out, out) seen C-contiguous in x's memory order (transposed, channels-last: laid out
    back as x), ``out`` made as x when None; (None, None, out) when they are not dense so."""
    perm = memory_perm(x)
    if out is None:
        if perm is None or not x.transpose(perm).flags.c_contiguous:
            return None, None, None
        out = np.empty_like(x)  # x's strides: dense, so C-contiguous in that order too
    elif type(out) is not np.ndarray or out.shape != x.shape or out.dtype != x.dtype:
        return None, None, out
    xs, rows_out = (x, out) if perm is None else (x.transpose(perm), out.transpose(perm))
    if not (xs.flags.c_contiguous and rows_out.flags.c_contiguous):
        return None, None, out
    return xs, rows_out, out


_SPLIT_MIN = _parallel.MIN_ELEMENTS


def _splits(*arrays):
    """C-contiguous operands (then a split keeps the one-thread result's layout too)."""
    return all(type(a) is np.ndarray and a.flags.c_contiguous for a in arrays)


def _relu(x):
    if x.size < _SPLIT_MIN or not _splits(x):  # tiny tensors: one size check
        return _relu_kernel(x)
    return _parallel.compute(_relu_kernel, (x,))


def _relu_grad(m, g, y):
    if m.is_graph:
        return m.tie(m.keep(~(m.data(y) <= 0), g), y)
    y = m.data(y)
    if y.size < _SPLIT_MIN or not _splits(y, g):
        return _relu_grad_kernel(y, g)
    return _parallel.compute(_relu_grad_kernel, (y, g))


ReluBackward0 = _unary("ReluBackward0", _relu, _relu_grad, "output", "y = max(x, 0)")


class RoundBackward1(Node):
    """out = a rounded to ``decimals`` places (half to even);  da = 0."""

    def forward(self, a, decimals):
        return np.round(a._data, decimals)

    def backward(self, m, g):
        return (m.zeros_like(g),)


class ClampBackward1(Node):
    """out = min(max(a, lo), hi);  da = g where lo <= a <= hi, else 0."""

    def forward(self, a, min=None, max=None):
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        self.save(a)
        self.lo, self.hi = min, max
        x = a._data
        bounds = [(b._data.dtype, b._data.ndim == 0) if isinstance(b, Tensor) else b
                  for b in (min, max) if b is not None]
        dt = _dtype._result_from_operands([(x.dtype, x.ndim == 0)] + bounds)
        x = x.astype(dt, copy=False)
        for bound, fn in ((min, np.maximum), (max, np.minimum)):
            if bound is not None:  # the bound first: NumPy then keeps x where they are equal,
                # as torch (clamp(-0.0, min=0.0) is -0.0)
                v = bound._data if isinstance(bound, Tensor) else bound
                x = _against(fn, v.astype(dt, copy=False) if isinstance(v, np.ndarray)
                             else _dtype.scalar_as(v, dt), x)
        return x

    def backward(self, m, g, a):
        x = m.data(a)
        mask = np.ones(x.shape, dtype=bool)
        lo = self.lo._data if isinstance(self.lo, Tensor) else self.lo
        hi = self.hi._data if isinstance(self.hi, Tensor) else self.hi
        if lo is not None:
            mask &= x >= lo
        if hi is not None:
            mask &= x <= hi
        return (m.keep(mask, g),)


class ClampBackward0(Node):
    """clamp with tensor bounds;  da = g inside [lo, hi], dlo = g where a < lo, dhi where a > hi."""

    def forward(self, a, lo=None, hi=None):
        out = ClampBackward1.forward(self, a, lo, hi)
        self.save(a, lo, hi)
        return out

    def backward(self, m, g, a, lo, hi):
        # torch's rule: a bound gets g where it binds; where lo > hi, hi wins (out = hi)
        x, low, high = m.data(a), m.data(lo), m.data(hi)
        inside = np.ones(x.shape, dtype=bool)
        if low is not None:
            inside = inside & (x >= low)
        if high is not None:
            inside = inside & (x <= high)
        g_low = g_high = None
        if low is not None:
            g_low = m.keep((x < low) & (low < high) if high is not None else x < low, g)
        if high is not None:
            g_high = m.keep((x > high) | (high < low) if low is not None else x > high, g)
        return m.keep(inside, g), g_low, g_high


class WhereBackward0(Node):
    """out = cond ? a : b;  da = g where cond, db = g where not cond."""

    def forward(self, cond, a, b):
        if type(a) is int or type(b) is int:  # torch's range check and wrap into an int dtype
            a, b = _int_scalar_as(a, b), _int_scalar_as(b, a)
        x, y = _operands(a, b) if isinstance(a, Tensor) else _operands_rev(a, b)
        self.cond = cond._data if isinstance(cond, Tensor) else np.asarray(cond)
        return array_math.where(self.cond, _branch(x, y), _branch(y, x))

    def backward(self, m, g):
        zero = m.zeros_like(g)
        return None, m.where(self.cond, g, zero), m.where(self.cond, zero, g)


def _branch(value, other):
    """A number branch against a float array as a 0-d array of its dtype (the value NumPy casts
    it to), so that array_math.where selects branch-free (np.where mispredicts a branch per
    element of a mixed mask: 3.8 ms against 0.33 ms on 1M float32)."""
    if (type(value) is float or type(value) is int) and type(other) is np.ndarray and \
            other.dtype.kind == "f":
        with np.errstate(over="ignore"):  # (past float16's range: inf, as torch, no warning)
            return np.asarray(value, other.dtype)
    return value


def _int_scalar_as(value, other):
    if type(value) is int and isinstance(other, Tensor) and other._data.dtype.kind in "iu":
        return int(_dtype.scalar_as(value, other._data.dtype))
    return value


def _operands_rev(a, b):
    y, x = _operands(b, a)
    return x, y


class MaskedFillBackward0(Node):
    """out = a with a scalar ``value`` where mask;  da = g where not mask."""
    result_layout = contiguous_result

    def forward(self, a, mask, value):
        self.mask = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
        if self.mask.dtype != np.bool_:
            raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with "
                               f"dtype {_dtype.from_numpy_dtype(self.mask.dtype).c_name}")
        v = value._data if isinstance(value, Tensor) else value
        return array_math.where(self.mask, _dtype.scalar_as(v, a._data.dtype), a._data)

    def backward(self, m, g):
        # keep: g's bits times the 0/1 mask, one pass (where's branch-free select takes three)
        vg = m.sum(m.keep(self.mask, g), None) if _needs(self, 2) else None
        return m.keep(~self.mask, g), None, vg


class MaskedFillBackward1(MaskedFillBackward0):
    """masked_fill with a 0-dim tensor ``value``;  dvalue = sum of g where mask."""
