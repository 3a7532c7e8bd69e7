"""nn.functional pieces composed from other ops as torch composes them: rms_norm, pdist,
channel_shuffle, local_response_norm, alpha dropout, the deprecated upsample_* and the
``*_with_indices`` pooling names."""
import warnings

import numpy as np

from ember import _dtype
from ember._tensor import Size as ember_size
from ember._tensor import Tensor
from ember.ops import api
from ember.ops.counting import triu_indices
from ember.ops.linalg_extra import refuse_low_precision
from ember.ops.order_stats import cdist
from ember.random import _gen

from ._functional_layers import max_pool1d, max_pool2d
from ._functional_misc import check_dropout_dtype, check_dropout_p, pad
from ._functional_spatial import interpolate

__all__ = ["rms_norm", "pdist", "channel_shuffle", "native_channel_shuffle",
           "local_response_norm", "alpha_dropout", "feature_alpha_dropout", "upsample",
           "upsample_nearest", "upsample_bilinear", "max_pool1d_with_indices",
           "max_pool2d_with_indices"]


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """x / sqrt(mean(x^2 over the last len(normalized_shape) dims) + eps) * weight; eps None is
    the dtype's machine epsilon (torch's default)."""
    if not isinstance(normalized_shape, (tuple, list, ember_size)):
        raise TypeError(f"rms_norm(): argument 'normalized_shape' (position 2) must be tuple of "
                        f"ints, not {type(normalized_shape).__name__}")
    shape = tuple(normalized_shape)
    if tuple(input.shape[input.dim() - len(shape):]) != shape or len(shape) > input.dim():
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*{', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got "
                           f"weight of shape {list(weight.shape)} and normalized_shape = "
                           f"{list(shape)}")
    low = input.dtype in (_dtype.float16, _dtype.bfloat16) and (
        weight is None or weight.dtype == input.dtype)
    x = api.to_dtype(input, _dtype.float32) if low else input  # torch: in float32 (eps
    if low and weight is not None:  # float32's), the result rounded once
        weight = api.to_dtype(weight, _dtype.float32)
    if eps is None:
        eps = _dtype.finfo(x.dtype).eps
    dims = tuple(range(input.dim() - len(shape), input.dim()))
    scale = api.mean(api.pow(x, 2), dims, keepdim=True).add(eps).rsqrt()
    out = api.mul(x, scale)
    out = out if weight is None else api.mul(out, weight)
    return api.to_dtype(out, input.dtype) if low else out


def pdist(input, p=2):
    """Distances between every pair of rows i < j of a 2-D input, in row-major pair order."""
    refuse_low_precision(input._data, "pdist")
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.shape[0]
    rows, cols = triu_indices(n, n, 1)
    return cdist(input, input, p)[rows, cols]


def channel_shuffle(input, groups):
    """(N, g*k, *) -> channels regrouped as (N, k*g, *): channel c*g+j takes j*k+c."""
    if input.dim() < 3:
        raise RuntimeError(f"channel_shuffle expects input with > 2 dims, but got input with "
                           f"sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    n, c = input.shape[:2]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    rest = tuple(input.shape[2:])
    grouped = api.reshape(input, (n, groups, c // groups) + rest)
    return api.reshape(api.transpose(grouped, 1, 2).contiguous(), (n, c) + rest)


native_channel_shuffle = channel_shuffle


def local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0):
    """x / (k + alpha * mean of x^2 over ``size`` neighbouring channels)^beta (channels past
    either end count as zeros)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    channels = input.shape[1]
    squares = api.mul(input, input)
    flat = api.reshape(squares, (input.shape[0], 1, channels, -1))
    padded = api.squeeze(pad(flat, (0, 0, size // 2, (size - 1) // 2)), 1)
    total = api.narrow(padded, 1, 0, channels)
    for shift in range(1, size):  # the window's squares summed in order, as an average pool
        total = api.add(total, api.narrow(padded, 1, shift, channels))
    div = api.reshape(api.div(total, size), tuple(input.shape))
    div = api.pow(api.add(api.mul(div, alpha), k), beta)
    return api.div(input, div)


_SELU_ALPHA = 1.7580993408473766  # -SELU's scale * alpha: where SELU sends -inf


def _alpha_dropout(input, p, training, inplace, feature):
    check_dropout_p(p)
    if not training or p == 0:
        return input
    if feature and input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    check_dropout_dtype(input, bool_as="Long")
    dtype = input._data.dtype
    if p == 1:
        zero = Tensor._make(np.zeros((), dtype))
        return api.mul_(input, zero) if inplace else api.mul(input, zero)
    shape = (tuple(input.shape[:2]) + (1,) * (input.dim() - 2) if feature
             else tuple(input.shape))
    keep = _gen(None).bernoulli(shape, 1.0 - p).astype(dtype)
    a = 1.0 / np.sqrt((_SELU_ALPHA * _SELU_ALPHA * p + 1) * (1 - p))
    shift = (keep - dtype.type(1)) * dtype.type(_SELU_ALPHA * a) + dtype.type(_SELU_ALPHA * a * p)
    scaled = Tensor._make(keep * dtype.type(a))
    out = api.mul_(input, scaled) if inplace else api.mul(input, scaled)
    return out.add_(Tensor._make(shift.astype(dtype, copy=False)))


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout that keeps SELU's self-normalising mean and variance (dropped values go to SELU's
    negative saturation, then an affine map restores mean 0 and variance 1)."""
    return _alpha_dropout(input, p, training, inplace, False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """alpha_dropout of whole channels (every dim after the first two together)."""
    return _alpha_dropout(input, p, training, inplace, True)


def _deprecated(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated in torch: F.interpolate."""
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated in torch: F.interpolate(mode='nearest')."""
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated in torch: F.interpolate(mode='bilinear', align_corners=True)."""
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, True)
