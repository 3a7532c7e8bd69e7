"""nn.functional's 3-D pools, the adaptive max pools and max unpooling (ember/ops/pooling_nd.py),
and power-average pools (lp_pool) and instance_norm, composed from other ops as torch defines
them."""
import numpy as np

import ember
from ember import _dtype
from ember.ops import pooling_nd as _nd

from ._functional_layers import (
    _one_size,
    _tuple,
    adaptive_sizes,
    avg_pool1d,
    avg_pool2d,
    pool_arguments,
    refuse_empty_window,
    refuse_short_input,
)
from ._functional_norm import batch_norm, empty_affine

__all__ = ["max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d", "instance_norm", "max_unpool1d",
           "max_unpool2d", "max_unpool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "max_pool3d_with_indices", "adaptive_max_pool1d_with_indices",
           "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d_with_indices"]


def _check_volume(input, name):
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if 0 in tuple(input.shape[-4:]):  # torch names "dimension 0" whichever is empty
        raise RuntimeError(f"{name}(): Expected input's non-batch dimensions to have positive "
                           f"length, but input has a shape of {list(input.shape)} and non-batch "
                           "dimension 0 has length zero!")


def _regular(input, kernel_size, stride, padding, dilation, ceil_mode):
    """One (positions, valid) pair per pooled axis, checked as torch checks them."""
    kernel, stride, padding, dilation = pool_arguments(kernel_size, stride, padding, dilation, 3)
    return [_nd.regular_windows(n, k, s, p, d, ceil_mode) for n, k, s, p, d in
            zip(input.shape[-3:], kernel, stride, padding, dilation)], padding


def _out_shape(input, windows):
    return tuple(input.shape[:-len(windows)]) + tuple(w[0].shape[0] for w in windows)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over each kd x kh x kw window; optionally each maximum's flat index in its volume."""
    _dtype.refuse_kinds(input._data.dtype, "max_pool3d", "bc")
    _check_volume(input, "max_pool3d_with_indices_out_cpu_template")
    windows, _ = _regular(input, kernel_size, stride, padding, dilation, ceil_mode)
    shape = _out_shape(input, windows)
    if min(shape[-3:]) <= 0:
        sizes, outs = "x".join(map(str, input.shape[-4:])), "x".join(map(str, shape[-4:]))
        raise RuntimeError(f"Given input size: ({sizes}). Calculated output size: ({outs}). "
                           "Output size is too small")
    positions = _nd.max_positions(input._data, windows)
    out = _nd.MaxPool3DWithIndicesBackward0.apply(input, positions=positions)
    return (out, ember.Tensor._make(positions)) if return_indices else out


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over each kd x kh x kw window (torch's divisor rules for padding and ceil_mode)."""
    _dtype.refuse_complex(input._data.dtype, "avg_pool3d_out_frame")
    _check_volume(input, "avg_pool3d")
    kernel = _tuple(kernel_size, 3)
    if any(n < k for n, k in zip(input.shape[-3:], kernel)):
        t, h, w = input.shape[-3:]
        raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size "
                           f"(kT: {kernel[0]} kH: {kernel[1]} kW: {kernel[2]})")
    windows, padding = _regular(input, kernel, stride, padding, 1, ceil_mode)
    if input._data.dtype.kind in "biu":
        return _integer_avg_pool3d(input, windows, padding, count_include_pad, divisor_override)
    matrices = [_nd.average_matrix(pos, valid, n, p, count_include_pad, divisor_override)
                for (pos, valid), n, p in zip(windows, input.shape[-3:], padding)]
    scale = 1.0 / divisor_override if divisor_override else None
    return _nd.AvgPool3DBackward0.apply(input, matrices=matrices, scale=scale)


def _integer_avg_pool3d(input, windows, padding, count_include_pad, divisor_override):
    """torch averages int64 only (sums divided with truncation); other integers it refuses."""
    if input._data.dtype != np.int64:
        raise NotImplementedError(f"\"avg_pool3d_out_frame\" not implemented for "
                                  f"'{input.dtype.scalar_name}'")
    sums = [_nd.window_sums(pos, valid, n, p, count_include_pad)
            for (pos, valid), n, p in zip(windows, input.shape[-3:], padding)]
    divisors = int(divisor_override) if divisor_override else [size for _, size in sums]
    return ember.Tensor._make(_nd.integer_average(input._data, [rows for rows, _ in sums],
                                                  divisors))


def adaptive_avg_pool3d(input, output_size):
    """Average pool (N, C, D, H, W) to ``output_size`` (an int, a triple; None keeps a size)."""
    refuse_short_input(input, output_size)
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
                           f"{list(input.shape)}")
    sizes = adaptive_sizes(input, output_size, 3, "adaptive_avg_pool3d")
    refuse_empty_window(input, "adaptive_avg_pool3d")
    if sizes == (1, 1, 1):
        return input.mean((-1, -2, -3), keepdim=True)
    matrices = [_nd.average_matrix(*_nd.adaptive_windows(n, o), n)
                for n, o in zip(input.shape[-3:], sizes)]
    return _nd.AdaptiveAvgPool3DBackward0.apply(input, matrices=matrices)


def _adaptive_max(input, output_size, n, node):
    name = f"adaptive_max_pool{n}d"
    if n > 1:  # (adaptive_max_pool1d checked its input)
        refuse_short_input(input, output_size)
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    refuse_empty_window(input, name)
    sizes = adaptive_sizes(input, output_size, n, name)
    if min(sizes) < 0:  # (torch: when it makes the output)
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: "
                           f"{list(input.shape[:-n]) + list(sizes)}")
    if input._data.dtype.kind not in "fcV":  # torch's 2-d kernel is named without "_cpu"
        name += "_cpu" if n == 3 else ""
        raise NotImplementedError(f"\"{name}\" not implemented for "
                                  f"'{input.dtype.scalar_name}'")
    windows = [_nd.adaptive_windows(m, o) for m, o in zip(input.shape[-n:], sizes)]
    positions = _nd.max_positions(input._data, windows)
    return node.apply(input, positions=positions), positions


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pool (N, C, H, W) to ``output_size``; optionally each maximum's flat index."""
    _dtype.refuse_complex(input._data.dtype, "adaptive_max_pool2d")
    out, positions = _adaptive_max(input, output_size, 2, _nd.AdaptiveMaxPool2DBackward0)
    return (out, ember.Tensor._make(positions)) if return_indices else out


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pool (N, C, D, H, W) to ``output_size``; optionally each maximum's flat index."""
    out, positions = _adaptive_max(input, output_size, 3, _nd.AdaptiveMaxPool3DBackward0)
    return (out, ember.Tensor._make(positions)) if return_indices else out


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pool the last dim of (N, C, L) or (C, L) to ``output_size``."""
    size = _one_size(input, output_size, "adaptive_max_pool1d")
    refuse_empty_window(input, "adaptive_max_pool1d")
    out = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-05):
    """Normalize each channel of each sample over its (*) dims: batch norm of the input seen
    as (1, N*C, *); running statistics, when given, take the mean over the batch."""
    n, c = input.shape[0], input.shape[1]
    if input.numel() == 0:
        return empty_affine(input, weight, bias)
    if use_input_stats and n * c and input.numel() // (n * c) <= 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                         f"ember.Size({list(input.shape)})")
    shape = (1, n * c) + tuple(input.shape[2:])
    repeat = (lambda t: None if t is None else t.repeat(n))
    mean, var = repeat(running_mean), repeat(running_var)
    out = batch_norm(input.reshape(shape), mean, var, repeat(weight), repeat(bias),
                     use_input_stats, momentum, eps)
    with ember.no_grad():
        for stat, batch in ((running_mean, mean), (running_var, var)):
            if stat is not None:
                stat.copy_(batch.view(n, c).mean(0))
    return out.view(tuple(input.shape))



# ------------------------------------------------------------------ max unpooling
def _unpool_size(input, kernel, stride, padding, output_size):
    """The output's spatial size: the pool's input size by default, else ``output_size``
    (spatial, or with N and C) within one stride of it."""
    n = len(kernel)
    default = [(input.shape[-n + d] - 1) * stride[d] + kernel[d] - 2 * padding[d]
               for d in range(n)]
    if output_size is None:
        return tuple(default)
    sizes = list(output_size)
    if len(sizes) == n + 2:
        sizes = sizes[2:]
    if len(sizes) != n:
        raise ValueError(f"output_size should be a sequence containing {n} or {n + 2} elements, "
                         f"but it has a length of '{len(sizes)}'")
    for d in range(n):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < sizes[d] < high:
            raise ValueError(f'invalid output_size "{tuple(output_size)}" (dim {d} must be '
                             f"between {low} and {high})")
    return tuple(int(s) for s in sizes)


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, n, node):
    kernel = _tuple(kernel_size, n)
    stride = kernel if stride is None else _tuple(stride, n)
    size = _unpool_size(input, kernel, stride, _tuple(padding, n), output_size)
    idx = indices._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: "
                           f"{indices.dtype.scalar_name}")
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"Input to max_unpooling{n}d should be a {n + 1}d or {n + 2}d Tensor, "
                           f"but got a tensor with {input.dim()} dimensions.")
    if tuple(idx.shape) != tuple(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(idx.shape)}")
    bad = idx[(idx < 0) | (idx >= int(np.prod(size)))]
    if bad.size:
        raise RuntimeError(f"Found an invalid max index: {bad.flat[0]} (output volumes are of "
                           f"size {'x'.join(map(str, size))})")
    return node.apply(input, index=idx, out_size=size)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool1d: each value written back at its index, zeros elsewhere."""
    kernel, stride = _tuple(kernel_size, 1), None if stride is None else _tuple(stride, 1)
    size = None if output_size is None else tuple(output_size) + (1,)
    out = max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), kernel + (1,),
                       None if stride is None else stride + (1,), _tuple(padding, 1) + (0,),
                       size)
    return out.squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool2d: each value written back at its index, zeros elsewhere."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2,
                       _nd.MaxUnpool2DBackward0)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of max_pool3d: each value written back at its index, zeros elsewhere."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3,
                       _nd.MaxUnpool3DBackward0)


# ------------------------------------------------------------------ composed
def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, n, average):
    """(sum over each window of x**p) ** (1/p), as the window's average times its size; a
    negative average (odd p) is clamped to 0 first."""
    kernel = _tuple(kernel_size, n)
    powered = average(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    total = ember.sign(powered) * ember.relu(powered.abs())
    return total.mul(int(np.prod(kernel))).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over the last dim: (sum of x**p over each window) ** (1/p)."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1, avg_pool1d)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over kh x kw windows."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2, avg_pool2d)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over kd x kh x kw windows."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3, avg_pool3d)


# torch's *_with_indices names: the pooling above, always returning (output, indices)
def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """max_pool3d with each maximum's flat index, always."""
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool1d with each maximum's index, always."""
    return adaptive_max_pool1d(input, output_size, True)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool2d with each maximum's flat index, always."""
    return adaptive_max_pool2d(input, output_size, True)


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=False):
    """adaptive_max_pool3d with each maximum's flat index, always."""
    return adaptive_max_pool3d(input, output_size, True)
