"""nn.functional activations: thin wrappers over the primitives in ember.ops.activation_ops."""
import warnings

import numpy as np

import ember

from .. import _dtype
from ..ops import activation_ops as A
from ..ops import api
from ..ops import elementwise as E
from ..ops.inplace import apply_inplace
from ..random import _gen

__all__ = ["rrelu", "rrelu_", "elu_", "selu_", "celu_", "leaky_relu_", "hardtanh_", "threshold_",
           "relu", "relu_", "leaky_relu", "hardtanh", "relu6", "threshold", "elu", "selu", "celu",
           "gelu", "silu", "mish", "softplus", "logsigmoid", "hardsigmoid", "hardswish",
           "hardshrink", "softshrink", "softsign", "tanhshrink", "sigmoid", "tanh", "glu", "prelu",
           "softmax", "softmin", "log_softmax", "gumbel_softmax"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _maybe_inplace(fn, input, inplace, *args):
    if inplace:
        return apply_inplace(input, lambda x, *a: fn(x, *a), *args)
    return fn(input, *args)


def relu(input, inplace=False):
    """max(x, 0)."""
    return _maybe_inplace(E.ReluBackward0.apply, input, inplace)


def relu_(input):
    return relu(input, inplace=True)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """x if x > 0 else negative_slope * x."""
    _dtype.refuse_complex(input._data.dtype, "leaky_relu_cpu")
    return _maybe_inplace(lambda x: A.LeakyReluBackward0.apply(x, negative_slope), input, inplace)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU with a random slope U(lower, upper) per element (training) or their mean."""
    if lower > upper:  # before any draw, as torch
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if training:  # torch draws a double U(lower, upper) for each x <= 0, in order
        negative = input._data <= 0
        slope = np.ones(input._data.shape, input._data.dtype)
        count = int(negative.sum())
        slope[negative] = _gen(None)._doubles(count) * (upper - lower) + lower
    else:
        slope = (lower + upper) / 2
    return _maybe_inplace(lambda x: A.RreluWithNoiseBackward0.apply(x, slope), input, inplace)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """clamp(x, min_val, max_val)."""
    _dtype.refuse_complex(input._data.dtype, message="clamp is not supported for complex types",
                          error=NotImplementedError)
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _maybe_inplace(lambda x: A.HardtanhBackward0.apply(x, min_val, max_val), input,
                          inplace)


def relu6(input, inplace=False):
    """min(max(x, 0), 6)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def threshold(input, threshold, value, inplace=False):
    """x if x > threshold else value."""
    return _maybe_inplace(lambda x: A.ThresholdBackward0.apply(x, threshold, value), input,
                          inplace)


def elu(input, alpha=1.0, inplace=False):
    """x if x > 0 else alpha * (exp(x) - 1)."""
    _dtype.refuse_complex(input._data.dtype, "elu_cpu")
    return _maybe_inplace(lambda x: A.EluBackward0.apply(x, alpha), input, inplace)


def selu(input, inplace=False):
    """scale * elu(x, alpha) with the self-normalising constants."""
    return _maybe_inplace(lambda x: A.EluBackward0.apply(x, _SELU_ALPHA, _SELU_SCALE), input,
                          inplace)


def celu(input, alpha=1.0, inplace=False):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _maybe_inplace(lambda x: A.CeluBackward0.apply(x, alpha, 1.0, 1.0 / alpha), input,
                          inplace)


def gelu(input, approximate="none"):
    """x * Phi(x), or its tanh approximation when approximate='tanh'."""
    _dtype.refuse_complex(input._data.dtype, "GeluKernelImpl")
    return A.GeluBackward0.apply(input, approximate)


def silu(input, inplace=False):
    """x * sigmoid(x)."""
    if input.is_complex() and input.requires_grad and ember.is_grad_enabled():
        raise RuntimeError("silu does not support automatic differentiation for outputs with "
                           "complex dtype.")
    return _maybe_inplace(A.SiluBackward0.apply, input, inplace)


def mish(input, inplace=False):
    """x * tanh(softplus(x))."""
    _dtype.refuse_complex(input._data.dtype, "mish_cpu")
    return _maybe_inplace(A.MishBackward0.apply, input, inplace)


def softplus(input, beta=1.0, threshold=20.0):
    """log(1 + exp(beta x)) / beta, linear above the threshold."""
    _dtype.refuse_complex(input._data.dtype, "softplus_cpu")
    return A.SoftplusBackward0.apply(input, beta, threshold)


def logsigmoid(input):
    return A.LogSigmoidBackward0.apply(input)


def hardsigmoid(input, inplace=False):
    return _maybe_inplace(A.HardsigmoidBackward0.apply, input, inplace)


def hardswish(input, inplace=False):
    return _maybe_inplace(A.HardswishBackward0.apply, input, inplace)


def hardshrink(input, lambd=0.5):
    return A.HardshrinkBackward0.apply(input, lambd)


def softshrink(input, lambd=0.5):
    return A.SoftshrinkBackward0.apply(input, lambd)


def softsign(input):
    """x / (1 + |x|)."""
    return api.div(input, api.add(E.AbsBackward0.apply(input), 1))


def tanhshrink(input):
    """x - tanh(x)."""
    return api.sub(input, E.TanhBackward0.apply(input))


def sigmoid(input):
    return E.SigmoidBackward0.apply(input)


def tanh(input):
    return E.TanhBackward0.apply(input)


def glu(input, dim=-1):
    """a * sigmoid(b) for the two halves a, b of input along dim."""
    _dtype.refuse_complex(input._data.dtype, "glu_cpu")
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return A.GluBackward0.apply(input, dim)


def prelu(input, weight):
    """x if x > 0 else weight * x, weight broadcast along the channel dim (dim 1)."""
    return A.PreluKernelBackward0.apply(input, weight)


def _inplace_form(fn):
    def inplace(input, *args, **kwargs):
        return fn(input, *args, inplace=True, **kwargs)
    inplace.__name__ = fn.__name__ + "_"
    inplace.__doc__ = f"In-place {fn.__name__}."
    return inplace


elu_, selu_, celu_, leaky_relu_, hardtanh_, threshold_, rrelu_ = (
    _inplace_form(f) for f in (elu, selu, celu, leaky_relu, hardtanh, threshold, rrelu))


def _softmax_dim(name, ndim):
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def _prepare(input, dim, dtype, name):
    if dim is None:
        dim = _softmax_dim(name, input.ndim)
    dim = input._wrap_dim(dim)  # IndexError naming the valid range, as torch
    if dtype is not None:
        input = api.to_dtype(input, dtype)
    return input, dim


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """exp(x) / sum(exp(x)) along dim (computed max-shifted)."""
    input, dim = _prepare(input, dim, dtype, "softmax")
    return A.SoftmaxBackward0.apply(input, dim)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(-x) along dim."""
    input, dim = _prepare(input, dim, dtype, "softmin")
    return A.SoftmaxBackward0.apply(api.neg(input), dim)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """x - logsumexp(x) along dim."""
    input, dim = _prepare(input, dim, dtype, "log_softmax")
    return A.LogSoftmaxBackward0.apply(input, dim)


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """softmax((logits + g) / tau) with g ~ Gumbel(0, 1) drawn as torch draws it (-log of an
    exponential_ sample); hard: the one-hot argmax in the forward, the soft sample's gradient
    (straight through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -ember.empty_like(logits).exponential_().log()
    soft = softmax((logits + gumbels) / tau, dim)
    if not hard:
        return soft
    index = soft.max(dim, keepdim=True)[1]
    one_hot = ember.zeros_like(logits).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft
