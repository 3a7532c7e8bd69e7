"""The rest of torch's element-wise surface bound onto Tensor and the ember namespace: the extra
unary table, binary math, fused products, the in-place ``_`` forms (methods and torch.X_),
and Tensor's smaller attributes (storage_offset, nbytes, is_signed, resize_, fill_diagonal_,
apply_, squeeze_, the random fills bernoulli_, cauchy_, log_normal_, geometric_, ...)."""
import math

import numpy as np

from . import _autograd_state
from . import _creation as C
from ._tensor import Tensor
from ._tensor_methods import _inplace_unary, _unary
from .ops import api, fused_products, index_ops, pointwise
from .ops import elementwise_extra as X
from .ops.inplace import check_inplace
from .random import _gen

UNARY_EXTRA = {name: _unary(cls) for name, cls in {
    "acosh": X.AcoshBackward0, "asinh": X.AsinhBackward0, "atanh": X.AtanhBackward0,
    "erfc": X.ErfcBackward0, "erfinv": X.ErfinvBackward0, "lgamma": X.LgammaBackward0,
    "digamma": X.DigammaBackward0, "i0": X.I0Backward0, "sinc": X.SincBackward0,
    "frac": X.FracBackward0, "exp2": X.Exp2Backward0, "sgn": X.SgnBackward0,
    "deg2rad": X.Deg2RadBackward0, "rad2deg": X.Rad2DegBackward0}.items()}
UNARY_EXTRA.update(arccosh=UNARY_EXTRA["acosh"], arcsinh=UNARY_EXTRA["asinh"],
                   arctanh=UNARY_EXTRA["atanh"])

# public functions (ember.X and Tensor.X) besides the unary table
FUNCTIONS = {name: getattr(module, name) for module, names in (
    (pointwise, ("atan2", "arctan2", "hypot", "fmod", "copysign", "fmax", "fmin", "logaddexp",
                 "logaddexp2", "xlogy", "ldexp", "nextafter", "gcd", "lcm", "heaviside",
                 "bitwise_left_shift", "bitwise_right_shift", "float_power", "logit",
                 "mvlgamma", "positive", "signbit", "isposinf", "isneginf", "isreal",
                 "is_nonzero", "frexp", "polygamma")),
    (fused_products, ("addcmul", "addcdiv", "addmv", "addr", "addbmm"))) for name in names}
FUNCTIONS.update(UNARY_EXTRA)

# Tensor methods that get an in-place ``_`` form here (when Tensor has none yet)
_INPLACE = (*UNARY_EXTRA, "atan2", "arctan2", "hypot", "fmod", "copysign", "xlogy", "ldexp",
            "nextafter", "gcd", "lcm", "heaviside", "bitwise_left_shift", "bitwise_right_shift",
            "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "logit", "mvlgamma",
            "polygamma", "addcmul", "addcdiv", "addmv", "addr", "addbmm", "absolute", "tan",
            "exp2", "log10", "fix", "negative", "erf", "asin", "acos", "atan", "sinh", "cosh",
            "arcsin", "arccos", "arctan", "eq", "ne", "lt", "le", "gt", "ge", "greater",
            "greater_equal", "less", "less_equal", "not_equal", "logical_and", "logical_or",
            "logical_xor", "logical_not", "divide", "multiply", "subtract", "true_divide",
            "floor_divide", "sign", "sigmoid", "tanh")

# torch.X_ functions (the same as the methods: the tensor is the first argument)
TORCH_INPLACE = (
    "abs_", "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_",
    "clamp_min_", "clip_", "cos_", "cosh_", "deg2rad_", "erf_", "erfc_", "exp2_", "exp_",
    "expm1_", "fill_", "fix_", "floor_", "frac_", "gcd_", "i0_", "lcm_", "ldexp_", "log10_",
    "log1p_", "log2_", "log_", "logit_", "neg_", "negative_", "rad2deg_", "reciprocal_",
    "relu_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_", "square_",
    "tan_", "tanh_", "trunc_", "xlogy_", "zero_")


def torch_inplace(name):
    """torch.<name>(input, ...): the Tensor method ``name`` under torch's argument name."""
    method = getattr(Tensor, name)

    def fn(input, *args, **kwargs):
        return method(input, *args, **kwargs)
    fn.__name__ = name
    return fn


def _method_polygamma(self, n):
    return pointwise.polygamma(n, self)


def _bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 draws of probability p (a number or a tensor broadcast to self)."""
    if isinstance(p, Tensor):
        draws = _gen(generator).bernoulli_tensor(np.broadcast_to(p._data, self._data.shape))
    else:
        draws = _gen(generator).bernoulli(self._data.shape, p)
    return _fill(self, draws)


def _fill(self, values):
    """Write ``values`` into self (a random fill: no history, as torch's)."""
    _autograd_state.check_inplace(self._vc)  # an inference tensor refuses before the write
    check_inplace(self)
    np.copyto(self._data, values, casting="unsafe")
    self._vc[0] += 1
    return self


def _uniform(self, generator):
    return _gen(generator).uniform(self._data.shape, np.dtype(np.float64))


def _cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """median + sigma * tan(pi (u - 1/2)). ember's uniform stream, not torch's cauchy_ stream
    (torch draws 64-bit uniforms here): the distribution matches, the draws do not."""
    return _fill(self, median + sigma * np.tan(math.pi * (_uniform(self, generator) - 0.5)))


def _log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """exp of Normal(mean, std) draws (ember's normal stream; torch's log_normal_ draws are
    not reproduced)."""
    normal = _gen(generator).normal(self._data.shape, np.dtype(np.float64), mean, std)
    return _fill(self, np.exp(normal))


def _geometric_(self, p, *, generator=None):
    """ceil(log(u) / log(1 - p)): trials to the first success (ember's uniform stream; torch's
    geometric_ draws are not reproduced)."""
    u = 1 - _uniform(self, generator)  # in (0, 1]
    return _fill(self, np.maximum(np.ceil(np.log(u) / np.log1p(-p)), 1))


def _bind():
    for name, fn in FUNCTIONS.items():
        setattr(Tensor, name, fn)
    Tensor.polygamma = _method_polygamma  # x.polygamma(n): the order comes after self
    Tensor.__lshift__ = pointwise.bitwise_left_shift
    Tensor.__rshift__ = pointwise.bitwise_right_shift
    Tensor.__rlshift__ = lambda self, other: pointwise.bitwise_left_shift(other, self)
    Tensor.__rrshift__ = lambda self, other: pointwise.bitwise_right_shift(other, self)
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"):
        setattr(Tensor, name, getattr(api, name))
    for name in _INPLACE:
        if not hasattr(Tensor, name + "_"):
            setattr(Tensor, name + "_", _inplace_unary(getattr(Tensor, name)))
    for name, cls in (("asinh", X.AsinhBackward1), ("atanh", X.AtanhBackward1)):
        method = _inplace_unary(cls.apply)  # torch has no derivative for these in-place forms
        setattr(Tensor, name + "_", method)
        setattr(Tensor, "arc" + name[1:] + "_", method)
    Tensor.__ilshift__ = Tensor.bitwise_left_shift_
    Tensor.__irshift__ = Tensor.bitwise_right_shift_
    Tensor.float_power_ = pointwise.float_power_
    Tensor.swapaxes_ = Tensor.swapdims_ = index_ops.transpose_
    Tensor.bernoulli = C.bernoulli
    Tensor.bernoulli_, Tensor.cauchy_ = _bernoulli_, _cauchy_
    Tensor.log_normal_, Tensor.geometric_ = _log_normal_, _geometric_


_bind()
