"""The public functions of the extra element-wise ops (ember.atan2, ember.xlogy, ember.logit,
ember.frexp, ...): torch's argument names and checks over the nodes of elementwise_extra."""

import numpy as np

from .. import _dtype
from .._creation import tensor
from .._tensor import Tensor
from ..autograd.graph import Node
from . import api, special_ops
from . import elementwise_extra as X
from .inplace import apply_inplace


def _need_tensor(name, value, argument="other", position=2):
    if not isinstance(value, Tensor):
        raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be Tensor, "
                        f"not {type(value).__name__}")


def _as_tensor(value):
    return value if isinstance(value, Tensor) else tensor(value)


def _binary(name, cls, scalar_cls=None, scalars=False, scalar_input_cls=None):
    """torch.<name>(input, other): ``other`` a tensor (or, with ``scalars``, a number, and then
    ``input`` may be a number too); ``scalar_cls`` / ``scalar_input_cls`` record a number
    ``other`` / ``input`` (torch's overload nodes)."""
    def fn(input, other):
        node = cls
        if not scalars:
            _need_tensor(name, input, "input", 1)
            _need_tensor(name, other)
        elif not isinstance(input, Tensor):
            input = _as_tensor(input)
            node = scalar_input_cls or cls
        if scalar_cls is not None and not isinstance(other, Tensor):
            node = scalar_cls
        return node.apply(input, other)
    fn.__name__ = name
    fn.__doc__ = cls.__doc__
    return fn


atan2 = _binary("atan2", X.Atan2Backward0)
hypot = _binary("hypot", X.HypotBackward0)
fmod = _binary("fmod", X.FmodBackward1, X.FmodBackward0, scalars=True)
copysign = _binary("copysign", X.CopysignBackward0, X.CopysignBackward1, scalars=True)
fmax = _binary("fmax", X.FmaxBackward0)
fmin = _binary("fmin", X.FminBackward0)
logaddexp = _binary("logaddexp", X.LogaddexpBackward0)
logaddexp2 = _binary("logaddexp2", X.Logaddexp2Backward0)
xlogy = _binary("xlogy", X.XlogyBackward0, X.XlogyBackward2, scalars=True,
                scalar_input_cls=X.XlogyBackward1)
ldexp = _binary("ldexp", X.LdexpBackward0)
nextafter = _binary("nextafter", X.NextafterBackward0)
gcd = _binary("gcd", X.GcdBackward0)
lcm = _binary("lcm", X.LcmBackward0)
bitwise_left_shift = _binary("bitwise_left_shift", X.LshiftBackward0, scalars=True)
bitwise_right_shift = _binary("bitwise_right_shift", X.RshiftBackward0, scalars=True)
arctan2 = atan2


def _float_kernel(name, cls, kernel):
    """torch.<name>(input, other) of two tensors whose kernel takes real floating dtypes."""
    def fn(input, other):
        _need_tensor(name, input, "input", 1)
        _need_tensor(name, other)
        special_ops.refuse_operands(kernel, input, other, reduced=False)
        return cls.apply(input, other)
    fn.__name__, fn.__doc__ = name, cls.__doc__
    return fn


igamma = _float_kernel("igamma", special_ops.IgammaBackward0, "igamma_cpu")
igammac = _float_kernel("igammac", special_ops.IgammacBackward0, "igammac_cpu")


def heaviside(input, values):
    """0 where input < 0, ``values`` where input == 0, 1 where input > 0."""
    _need_tensor("heaviside", values, "values")
    if input._data.dtype != values._data.dtype and "c" not in (
            input._data.dtype.kind, values._data.dtype.kind):  # (the node refuses complex first)
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    return X.HeavisideBackward0.apply(input, values)


def _float_power_dtype(input, exponent):
    """float64, or complex128 when either operand is complex (as torch)."""
    def is_complex(v):
        return v._data.dtype.kind == "c" if isinstance(v, Tensor) else isinstance(v, complex)
    return _dtype.complex128 if is_complex(input) or is_complex(exponent) else _dtype.float64


def float_power(input, exponent):
    """input ** exponent computed in float64, or complex128 when either is complex (the result
    has that dtype whatever the inputs)."""
    target = _float_power_dtype(input, exponent)

    def wide(v):
        return api.to_dtype(v, target) if isinstance(v, Tensor) else v
    if not isinstance(input, Tensor):
        return api.pow(complex(input) if target is _dtype.complex128 else float(input),
                       wide(exponent))
    return api.pow(wide(input), wide(exponent))


def float_power_(input, exponent):
    """In place: the base must already have the result's dtype (float64 or complex128)."""
    target = _float_power_dtype(input, exponent)
    if input._data.dtype != target.np:
        raise RuntimeError(f"the base given to float_power_ has dtype "
                           f"{input.dtype.scalar_name} but the operation's result requires dtype "
                           f"{target.scalar_name}")
    return apply_inplace(input, float_power, exponent)


def polygamma(n, input):
    """The n-th derivative of digamma."""
    return X.PolygammaBackward0.apply(input, n)


def logit(input, eps=None):
    """log(p / (1 - p)), p = input clamped to [eps, 1 - eps] when eps is given."""
    return X.LogitBackward0.apply(input, eps)


def mvlgamma(input, p):
    """The multivariate log-gamma of dimension p: sum_i<p lgamma(input - i/2) + const."""
    if input._data.dtype.kind == "b":
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    _dtype.refuse_complex(input._data.dtype, "arange_cpu")  # torch's kernel for the i/2 terms
    return X.MvlgammaBackward0.apply(input, p)


def positive(input):
    """``input`` itself (the unary plus); bool tensors are refused, as torch."""
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def _mask(fn, complex_error=None, complex_message=None):
    """A boolean predicate of each element; with ``complex_error``, complex input refused."""
    def predicate(input):
        if complex_error is not None:
            _dtype.refuse_complex(input._data.dtype, message=complex_message, error=complex_error)
        return Tensor._make(np.asarray(fn(input._data)))
    predicate.__name__ = fn.__name__
    return predicate


signbit = _mask(lambda x: np.signbit(x) if x.dtype.kind in "fV" else x < 0, NotImplementedError,
                "signbit is not implemented for complex tensors.")
isposinf = _mask(lambda x: np.isposinf(x) if x.dtype.kind in "fV" else np.zeros(x.shape, bool),
                 RuntimeError, "isposinf does not support complex inputs.")
isneginf = _mask(lambda x: np.isneginf(x) if x.dtype.kind in "fV" else np.zeros(x.shape, bool),
                 RuntimeError, "isneginf does not support complex inputs.")
isreal = _mask(lambda x: x.imag == 0 if x.dtype.kind == "c" else np.ones(x.shape, bool))
signbit.__name__, isposinf.__name__, isneginf.__name__, isreal.__name__ = (
    "signbit", "isposinf", "isneginf", "isreal")


def is_nonzero(input):
    """The truth of a one-element tensor."""
    size = input._data.size
    if size != 1:
        raise RuntimeError("Boolean value of Tensor with "
                           f"{'no values' if size == 0 else 'more than one value'} is ambiguous")
    return bool(input._data.reshape(()) != 0)


class _Frexp(tuple):
    """torch.return_types.frexp: (mantissa, exponent)."""

    mantissa = property(lambda self: self[0])
    exponent = property(lambda self: self[1])

    def __repr__(self):
        return f"torch.return_types.frexp(\nmantissa={self[0]!r},\nexponent={self[1]!r})"


class FrexpBackward0(Node):
    """mantissa = x / 2^exponent;  dx = g / 2^exponent (2^exponent in x's dtype, as torch's
    exponent.exp2(): inf past the dtype's range, so the gradient there is 0)."""

    def forward(self, x, mantissa=None, exponent=None):
        """(np.frexp(x) is taken once, by frexp(): its mantissa and exponent come in.)"""
        self.save(np.exp2(exponent).astype(mantissa.dtype))
        return mantissa

    def backward(self, m, g, scale):
        return (g / scale,)


def frexp(input):
    """Mantissa in [0.5, 1) (differentiable) and int32 exponent with input = mantissa *
    2 ** exponent."""
    if input._data.dtype.kind not in "fV":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = np.frexp(input._data)
    mantissa = FrexpBackward0.apply(input, mantissa=np.asarray(mantissa), exponent=exponent)
    return _Frexp((mantissa, Tensor._make(np.asarray(exponent, dtype=np.int32))))
