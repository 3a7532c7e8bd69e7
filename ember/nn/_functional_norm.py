"""nn.functional for normalization, embedding, channel dropout and attention."""
import math
import warnings

import numpy as np

import ember
from ember import _dtype
from ember.backends import cuda as _cuda
from ember.nn.attention.bias import CausalBias
from ember.ops import autocast as _autocast
from ember.ops.embedding import EmbeddingBackward0, attention_node
from ember.ops.normalization import (
    NativeBatchNormBackward0,
    NativeGroupNormBackward0,
    NativeLayerNormBackward0,
)

from ._functional_misc import _dropout_noise, check_dropout_dtype, check_dropout_p

__all__ = ["batch_norm", "layer_norm", "group_norm", "embedding", "dropout1d", "dropout2d",
           "dropout3d", "scaled_dot_product_attention"]


def _shape(t):
    return list(t._data.shape)


def empty_affine(input, weight, bias):
    """A normalization of an empty batch, as torch's: empty, the running statistics untouched,
    zero gradients for weight and bias (no statistics exist to normalize by)."""
    view = (1, -1) + (1,) * (input.dim() - 2)
    out = input * weight.reshape(view) if weight is not None else input.clone()
    return out + bias.reshape(view) if bias is not None else out


_FLOAT32 = np.dtype(np.float32)


def _refuse_mixed_dtypes(input, *params):
    """torch's CPU rule for a normalization's parameters (weight, bias, running statistics):
    the input's dtype, or float32 for a bfloat16/float16 input."""
    dtype = input._data.dtype
    given = [t._data.dtype for t in params if t is not None]
    if all(d == dtype for d in given):
        return
    if any(d != _FLOAT32 for d in given):  # mixed: every parameter must be float32 ...
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    if dtype.itemsize > 2:  # ... for a bfloat16 or float16 input
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-05):
    """Normalize each channel of (N, C, *) by batch statistics (training; running stats are
    updated in place, variance unbiased) or by the running statistics (eval)."""
    _dtype.refuse_kinds(input._data.dtype, "batch_norm", "biuc")
    channels = input.shape[1] if input.dim() > 1 else 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    if training:
        if input.numel() // max(channels, 1) == 1:
            raise ValueError("Expected more than 1 value per channel when training, got input "
                             f"size ember.Size({_shape(input)})")
    elif running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    _refuse_mixed_dtypes(input, weight, bias, running_mean, running_var)
    if input.numel() == 0:
        return empty_affine(input, weight, bias)
    return NativeBatchNormBackward0.apply(input, weight, bias, eps, running_mean=running_mean,
                                          running_var=running_var, training=training,
                                          momentum=momentum)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """Normalize over the trailing dims given by normalized_shape, then scale and shift."""
    shape = [int(normalized_shape)] if isinstance(normalized_shape, int) else \
        [int(s) for s in normalized_shape]
    if not shape:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., "
                           "containing at least one element, but got normalized_shape = []")
    if _shape(input)[input.dim() - len(shape):] != shape or input.dim() < len(shape):
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{_shape(input)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and _shape(t) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {_shape(t)} and normalized_shape = {shape}")
    # shapes first, as torch; NumPy would normalize integers in float64
    _dtype.refuse_kinds(input._data.dtype, "LayerNormKernelImpl", "biuc")
    _refuse_mixed_dtypes(input, weight, bias)
    return NativeLayerNormBackward0.apply(input, weight, bias, eps, normalized_ndim=len(shape))


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Normalize each group of channels of (N, C, *) per sample, then scale and shift."""
    _dtype.refuse_kinds(input._data.dtype, "GroupNormKernelImpl", "biuc")
    if input.dim() < 2 or input.shape[1] % num_groups:
        raise RuntimeError("Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {_shape(input)} and num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and _shape(t) != [input.shape[1]]:
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {_shape(t)} and "
                               f"input of shape {_shape(input)}")
    _refuse_mixed_dtypes(input, weight, bias)
    if input.numel() == 0:
        return empty_affine(input, weight, bias)
    return NativeGroupNormBackward0.apply(input, weight, bias, eps, num_groups=num_groups)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of weight picked by integer indices; padding_idx's row gets no gradient."""
    indices = input._data if isinstance(input, ember.Tensor) else np.asarray(input)
    if indices.dtype not in (np.int64, np.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           "following scalar types: Long, Int; but got "
                           f"{input.type()} instead (while checking arguments for embedding)")
    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= num
    if indices.size and (indices.min() < 0 or indices.max() >= num):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        _renorm_rows(weight, np.unique(indices), max_norm, norm_type)
    return EmbeddingBackward0.apply(weight, indices=indices, padding_idx=padding_idx,
                                    scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def _renorm_rows(weight, rows, max_norm, norm_type):
    """In place, without autograd: rows whose norm exceeds max_norm are scaled down to it."""
    data = weight._data
    norms = np.linalg.norm(data[rows], ord=norm_type, axis=1)
    big = norms > max_norm
    data[rows[big]] *= (max_norm / (norms[big] + 1e-7))[:, None].astype(data.dtype)
    weight._vc[0] += 1


def _channel_dropout(input, p, training, inplace, name):
    check_dropout_p(p)
    if not training or p == 0:
        return input
    check_dropout_dtype(input)
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    dtype = input._data.dtype
    if p < 1:  # torch's draws: bernoulli_(1 - p) over (N, C, 1, ...), then / (1 - p)
        keep = _dropout_noise(shape, p, dtype)
    else:
        keep = np.zeros(shape, dtype)
    mask = ember.Tensor._make(keep)
    return input.mul_(mask) if inplace else input * mask


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, L) with probability p, scaling the rest by 1/(1-p)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout "
                           "on inputs with 1 spatial dimension, a channel dimension, and an "
                           "optional batch dimension (i.e. 2D or 3D inputs).")
    if input.dim() == 2:
        return _channel_dropout(input.unsqueeze(0), p, training, False, "dropout1d").squeeze(0)
    return _channel_dropout(input, p, training, inplace, "dropout1d")


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, H, W) with probability p, scaling the rest by 1/(1-p)."""
    if input.dim() == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
                      "1D dropout behavior is desired - input is interpreted as shape (N, C, L), "
                      "where C is the channel dim. This behavior will change in a future release "
                      "to interpret the input as one without a batch dimension, i.e. shape "
                      "(C, H, W). To maintain the 1D channel-wise dropout behavior, please switch "
                      "to using dropout1d instead.", stacklevel=2)
    return _channel_dropout(input, p, training, inplace, "dropout2d")


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of (N, C, D, H, W) with probability p."""
    if input.dim() == 4:
        return _channel_dropout(input.unsqueeze(0), p, training, False, "dropout3d").squeeze(0)
    return _channel_dropout(input, p, training, inplace, "dropout3d")


def _attention_bias(attn_mask, is_causal, length, source, dtype):
    """An additive float mask (a tensor: a float attn_mask receives gradients) or None."""
    bias = None
    if is_causal:
        causal = np.where(np.tril(np.ones((length, source), dtype=bool)), 0, -np.inf)
        bias = ember.Tensor._make(causal.astype(dtype))
    if attn_mask is not None:
        mask = attn_mask if isinstance(attn_mask, ember.Tensor) else ember.tensor(attn_mask)
        if mask._data.dtype == np.bool_:
            mask = ember.Tensor._make(np.where(mask._data, 0, -np.inf).astype(dtype))
        elif mask._data.dtype != dtype:
            mask = mask.to(ember._dtype.from_numpy_dtype(np.dtype(dtype)))
        bias = mask if bias is None else bias + mask
    return bias


def _grouped_keys(query, key, value):
    """Grouped-query attention (enable_gqa): each key and value head repeated for the run of
    query heads it serves (heads: dim -3), as torch's kernels read them."""
    if query.dim() < 3 or key.dim() < 3 or value.dim() < 3:
        return key, value
    heads = query.shape[-3]
    if heads % key.shape[-3] or heads % value.shape[-3]:
        raise RuntimeError("Number of heads in key and value must divide the number of heads in ")
    if key.shape[-3] != heads:
        key = ember.repeat_interleave(key, heads // key.shape[-3], -3)
    if value.shape[-3] != heads:
        value = ember.repeat_interleave(value, heads // value.shape[-3], -3)
    return key, value


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """softmax(q k^T * scale + mask) v over (..., L, E) queries and (..., S, E) keys."""
    if isinstance(attn_mask, CausalBias):
        attn_mask = attn_mask._materialize()
    query, key, value = _autocast.lower(query, key, value)
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must be at least "
                           "2-D")
    if query.shape[-1] != key.shape[-1]:
        raise RuntimeError(f"Expected query and key to have the same embedding dimension, but "
                           f"got {_shape(query)} and {_shape(key)}")
    if enable_gqa:
        key, value = _grouped_keys(query, key, value)
    dtype = query._data.dtype
    length, source = query.shape[-2], key.shape[-2]
    bias = _attention_bias(attn_mask, is_causal, length, source, dtype)
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    keep = None
    if dropout_p > 0.0:
        shape = tuple(query.shape[:-1]) + (source,)
        keep = _dropout_noise(shape, dropout_p, dtype)
    node = attention_node(query, value, dropout_p, bias is not None and bias.requires_grad,
                          flash_allowed=_cuda.flash_sdp_enabled())  # sdpa_kernel's choice
    if not _cuda.math_sdp_enabled() and not node.follows_query:  # the math path, turned off
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This "
                           "is likely due to turning off both the math kernel and the fused "
                           "kernels.")
    return node.apply(query, key, value, bias, scale=scale, keep=keep)
