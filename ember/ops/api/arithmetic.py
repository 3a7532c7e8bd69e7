"""The public arithmetic, comparison and logic functions (ember.add, ember.eq, ...)."""
import numbers

import numpy as np

from ... import _dtype
from ..._creation import tensor
from ..._tensor import Tensor
from ...autograd import graph as _graph
from .. import elementwise as E
from .._legacy_overloads import scalar_first
from ..fastpath import binary_operator, unary_function
from .selection import nonzero

# The one table of the four arithmetic operators: the ufunc of each (also the in-place forms')
UFUNCS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide}
# with a Python scalar or a tensor of the input's dtype and shape; None: take the general path
_fast_add = binary_operator(E.AddBackward0, UFUNCS["add"], False)
_fast_sub = binary_operator(E.SubBackward0, UFUNCS["sub"], False)
_fast_mul = binary_operator(E.MulBackward0, UFUNCS["mul"], True)
_fast_div = binary_operator(E.DivBackward0, UFUNCS["div"], True)
_fast_neg = unary_function(E.NegBackward0)


def _t(x):
    if isinstance(x, Tensor):
        return x
    return tensor(x)


def add(input, other, *deprecated, alpha=1):
    """input + alpha * other, broadcasting (also torch's deprecated add(alpha, other))."""
    if deprecated:
        alpha, (other,) = scalar_first("add", "alpha", ("other",), (other, *deprecated),
                                       alpha != 1)
    if alpha == 1:
        out = _fast_add(input, other)
        if out is not None:
            return out
    if not isinstance(input, Tensor):
        return E.AddBackward0.apply(other, input, alpha=1) if alpha == 1 else \
            E.AddBackward0.apply(_t(input), other, alpha=alpha)
    return E.AddBackward0.apply(input, other, alpha=alpha)


def sub(input, other, *deprecated, alpha=1):
    """input - alpha * other, broadcasting (also torch's deprecated sub(alpha, other))."""
    if deprecated:
        alpha, (other,) = scalar_first("sub", "alpha", ("other",), (other, *deprecated),
                                       alpha != 1)
    if alpha == 1:
        out = _fast_sub(input, other)
        if out is not None:
            return out
    if not isinstance(input, Tensor):
        return rsub(other, input, alpha=alpha)
    if _is_bool(input) or _is_bool(other):
        _no_bool_sub(input, other)
    return E.SubBackward0.apply(input, other, alpha=alpha)


def _is_bool(x):
    return type(x) is bool or isinstance(x, Tensor) and x._data.dtype.kind == "b"


def _no_bool_sub(input, other):
    if _is_bool(input) and _is_bool(other):  # (a Python bool counts as a bool tensor)
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                           "supported. Use the `^` or `logical_xor()` operator instead.")
    raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                       "If you are trying to invert a mask, use the `~` or `logical_not()` "
                       "operator instead.")


def rsub(input, other, *, alpha=1):
    if _is_bool(input) or _is_bool(other):
        _no_bool_sub(input, other)
    cls = E.RsubBackward0 if isinstance(other, Tensor) else E.RsubBackward1
    return cls.apply(input, other, alpha=alpha)


def mul(input, other):
    """input * other, broadcasting."""
    out = _fast_mul(input, other)
    if out is not None:
        return out
    if not isinstance(input, Tensor):
        input, other = other, input
    return E.MulBackward0.apply(input, other)


def div(input, other, *, rounding_mode=None):
    """input / other (true division unless rounding_mode is 'trunc' or 'floor')."""
    if rounding_mode not in (None, "trunc", "floor"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    if rounding_mode is None:
        out = _fast_div(input, other)
        if out is not None:
            return out
    if not isinstance(input, Tensor):
        if rounding_mode is None:  # s / x is reciprocal(x) * s, as torch records it
            return E.MulBackward0.apply(E.ReciprocalBackward0.apply(other), input)
        input = _t(input)
    cls = E.DivBackward0 if rounding_mode is None else E.DivBackward2
    return cls.apply(input, other, rounding_mode=rounding_mode)


def floor_divide(input, other):
    return div(input, other, rounding_mode="floor")


def remainder(input, other):
    """Python-style modulus (sign of the divisor)."""
    if not isinstance(input, Tensor):  # scalar % tensor: torch has no derivative for it
        return E.NoDerivative.apply(_t(input), other, op="remainder")
    if isinstance(other, Tensor):
        return E.RemainderBackward1.apply(input, other)
    return E.RemainderBackward0.apply(input, other)


def pow(input, exponent):
    """input ** exponent (either may be a scalar)."""
    if not isinstance(input, Tensor):
        return E.PowBackward2.apply(input, exponent)
    if isinstance(exponent, Tensor):
        return E.PowBackward1.apply(input, exponent)
    return E.PowBackward0.apply(input, exponent)


def neg(input):
    out = _fast_neg(input)
    if out is not None:
        return out
    if input._data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    return E.NegBackward0.apply(input)


def _refuse_complex_clamp(input):
    _dtype.refuse_complex(input._data.dtype, message="clamp is not supported for complex types",
                          error=NotImplementedError)


def clamp(input, min=None, max=None):
    """Limit values to [min, max] (scalars, or tensors that also get gradients)."""
    _refuse_complex_clamp(input)
    for bound in (min, max):
        if bound is not None and not isinstance(bound, (Tensor, numbers.Number, np.generic)):
            got = ", ".join(f"{k}={type(v).__name__}" for k, v in (("min", min), ("max", max))
                            if v is not None)
            raise TypeError(f"clamp() received an invalid combination of arguments - got ({got}, "
                            "), but expected one of:\n * (Tensor min = None, Tensor max = None)\n"
                            " * (Number min = None, Number max = None)\n")
        if type(bound) is float and input._data.dtype.itemsize == 2 and \
                input._data.dtype.kind in "fV":  # torch's overflow check in the input's
            _dtype.scalar_as(bound, input._data.dtype)  # dtype (float16/bfloat16 compute widened)
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        return E.ClampBackward0.apply(input, min, max)
    return E.ClampBackward1.apply(input, min=min, max=max)


def where(condition, input=None, other=None):
    """Elements of input where condition holds, else of other; one argument: nonzero indices."""
    if input is None and other is None:
        return nonzero(_t(condition), as_tuple=True)
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if cond.dtype != np.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {_dtype.from_numpy_dtype(cond.dtype)}")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        input = _t(input)
    return E.WhereBackward0.apply(cond, input, other)


def masked_fill(input, mask, value):
    """Replace elements where ``mask`` is True by ``value`` (a scalar or 0-dim tensor)."""
    if isinstance(value, Tensor):
        if value._data.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value._data.ndim} dimension(s).")
        return E.MaskedFillBackward1.apply(input, mask, value)
    return E.MaskedFillBackward0.apply(input, mask, value)


def need_tensors(name, *args):
    """torch's TypeError for a number given where ``name`` takes tensors (input, other)."""
    for position, (argument, value) in enumerate(zip(("input", "other"), args), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{argument}' (position {position}) must be "
                            f"Tensor, not {type(value).__name__}")


def maximum(input, other):
    need_tensors("maximum", input, other)
    _refuse_complex_pair(input, other, "maximum")
    return E.MaximumBackward0.apply(input, other)


def minimum(input, other):
    need_tensors("minimum", input, other)
    _refuse_complex_pair(input, other, "minimum")
    return E.MinimumBackward0.apply(input, other)


def _refuse_complex_pair(input, other, name):
    for t in (input, other):
        if isinstance(t, Tensor):
            _dtype.refuse_complex(t._data.dtype,
                                  message=f"{name} not implemented for complex tensors.")


def _broadcasting(function, x, y, *args):
    """``function(x, y, *args)`` of an op outside the graph, with torch's error for operands
    that do not broadcast (NumPy's ValueError otherwise)."""
    try:
        return function(x, y, *args)
    except ValueError as error:
        translated = _graph._translate_numpy_error(error, (x, y))
        if translated is None:
            raise
        raise translated from None


def _compare(ufunc):
    kernel = {"less": "lt_cpu", "less_equal": "le_cpu", "greater": "gt_cpu",
              "greater_equal": "ge_cpu"}.get(ufunc.__name__)  # orderings: not for complex

    def compare(input, other):
        x, y = E._operands(_t(input), other)
        if kernel is not None and np.result_type(x, y).kind == "c":
            E.refuse_unbroadcastable(x, y)  # (before the dtype, as torch)
            _dtype.refuse_complex(np.result_type(x, y), kernel)
        with np.errstate(invalid="ignore"):  # (bfloat16's NaN warns in NumPy; torch is silent)
            out = Tensor._make(np.asarray(_broadcasting(ufunc, x, y)))
        if _graph._observer is not None:  # a trace (onnx export) sees it as an op
            _graph.observe_untracked(ufunc.__name__, (input, other), out)
        return out
    compare.__name__ = ufunc.__name__
    compare.__doc__ = f"Element-wise {ufunc.__name__} (bool result)."
    return compare


eq, ne, lt, le, gt, ge = (_compare(f) for f in (np.equal, np.not_equal, np.less, np.less_equal,
                                                 np.greater, np.greater_equal))
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


def _logical(ufunc):
    def logical(input, other=None):
        need_tensors(ufunc.__name__, *((input,) if other is None and ufunc.nin == 1 else
                                       (input, other)))
        if other is None:
            out = Tensor._make(np.asarray(ufunc(_t(input)._data)))
        else:
            out = Tensor._make(np.asarray(_broadcasting(ufunc, _t(input)._data,
                                                        _t(other)._data)))
        if _graph._observer is not None:  # a trace (onnx export) sees it as an op
            _graph.observe_untracked(ufunc.__name__, (input, other), out)
        return out
    logical.__name__ = ufunc.__name__
    return logical


logical_and, logical_or, logical_xor, logical_not = (
    _logical(f) for f in (np.logical_and, np.logical_or, np.logical_xor, np.logical_not))


def _bitwise(ufunc, kernel):
    def bitwise(input, other=None):
        if other is None:
            x = _t(input)._data
            _integers_only(x.dtype, kernel)
            return Tensor._make(np.asarray(ufunc(x)))
        x, y = E._operands(_t(input), other)
        if np.result_type(x, y).kind not in "biu":
            E.refuse_unbroadcastable(x, y)  # (before the dtype, as torch)
        _integers_only(np.result_type(x, y), kernel)
        return Tensor._make(np.asarray(_broadcasting(ufunc, x, y)))
    return bitwise


def _integers_only(dtype, kernel):
    if dtype.kind not in "biu":
        raise NotImplementedError(f"\"{kernel}_cpu\" not implemented for "
                                  f"'{_dtype.of_numpy(dtype).scalar_name}'")


bitwise_and, bitwise_or, bitwise_xor, bitwise_not = (
    _bitwise(f, k) for f, k in ((np.bitwise_and, "bitwise_and"), (np.bitwise_or, "bitwise_or"),
                                (np.bitwise_xor, "bitwise_xor"), (np.invert, "bitwise_not")))


def equal(input, other):
    """True if both tensors have the same shape and elements."""
    need_tensors("equal", input, other)
    if input.is_meta or other.is_meta:  # no elements to compare, as torch's
        raise NotImplementedError("aten::equal: attempted to run this operator with Meta "
                                  "tensors, but there was no fake impl or Meta kernel registered")
    return input.shape == other.shape and bool(np.array_equal(input._data, other._data))


def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    need_tensors("allclose", input, other)
    if input.is_meta or other.is_meta:
        raise RuntimeError("Tensor.item() cannot be called on meta tensors")
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    need_tensors("isclose", input, other)
    x, y = input._data, other._data
    if x.dtype != y.dtype:  # torch compares like with like only
        raise RuntimeError(f"{_dtype.of_numpy(x.dtype).scalar_name} did not match "
                           f"{_dtype.of_numpy(y.dtype).scalar_name}")
    return Tensor._make(np.asarray(_broadcasting(np.isclose, x, y, rtol, atol, equal_nan)))


def isnan(input):
    return Tensor._make(np.isnan(input._data))


def isinf(input):
    return Tensor._make(np.isinf(input._data))


def isfinite(input):
    return Tensor._make(np.isfinite(input._data))
