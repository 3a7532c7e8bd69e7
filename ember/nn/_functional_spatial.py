"""nn.functional for resampling and rearranging images: interpolate (nearest, nearest-exact,
linear, bilinear, trilinear, bicubic, area; anti-aliased bilinear, bicubic and lanczos),
pixel_shuffle/pixel_unshuffle, unfold/fold.

All are built from existing primitives, which give the gradients: interpolation is gathers
(index_select) and weighted sums per spatial dim, or for bicubic and the anti-aliased modes one
separable node with a resampling matrix per axis (its gradient the transposed matrices); unfold
is a grouped convolution whose kernel copies each window position into its own channel, and fold
is the transposed one (its adjoint).
"""
import math

import numpy as np

import ember
from ember.ops import api
from ember.ops import pooling_nd as _nd

from ._functional_grid import _cubic_weights, _keys_far, _keys_near
from ._functional_layers import (
    _tuple,
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    conv2d,
    conv_transpose2d,
)
from ._functional_pool3d import adaptive_avg_pool3d

__all__ = ["interpolate", "upsample", "pixel_shuffle", "pixel_unshuffle", "unfold", "fold"]

_LINEAR = {"linear": 1, "bilinear": 2, "trilinear": 3, "bicubic": 2}  # modes with align_corners


def _output_sizes(input, size, scale_factor, recompute):
    """(output sizes, scales or None per dim) as torch derives them."""
    dims = input.ndim - 2
    if (size is None) == (scale_factor is None):
        raise ValueError("either size or scale_factor should be defined" if size is None else
                         "only one of size or scale_factor should be defined")
    if size is not None:
        sizes = list(size) if isinstance(size, (tuple, list)) else [size] * dims
        if len(sizes) != dims:
            raise ValueError(f"Input and output must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of "
                             f"{list(input.shape[2:])} and output size of {size}. Please "
                             f"provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                             f"size in (o1, o2, ...,oK) format.")
        return [int(s) for s in sizes], [None] * dims
    factors = (list(scale_factor) if isinstance(scale_factor, (tuple, list)) else
               [scale_factor] * dims)
    if len(factors) != dims:
        raise ValueError(f"Input and scale_factor must have the same number of spatial "
                         f"dimensions, but got input with spatial dimensions of "
                         f"{list(input.shape[2:])} and scale_factor of shape {scale_factor}. "
                         f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                         f"scale_factor in (s1, s2, ...,sK) format.")
    sizes = [int(math.floor(float(n) * f)) for n, f in zip(input.shape[2:], factors)]
    return sizes, [None if recompute else float(f) for f in factors]


def _positive_sizes(input, sizes):
    if all(s > 0 for s in sizes) and all(s > 0 for s in input.shape[2:]):
        return
    names = "DHW"[-len(sizes):]
    shown = [", ".join(f"{a}: {v}" for a, v in zip(names, vals)) for vals in
             (input.shape[2:], sizes)]
    joint = " and output" if len(sizes) == 1 else " output"
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                       f"({shown[0]}){joint} ({shown[1]})")


def _scale(n_in, n_out, factor, align_corners):
    """Source step per output step (torch's area_pixel_compute_scale)."""
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / factor if factor is not None and factor > 0 else n_in / n_out


def _cubic_matrix(n_in, n_out, factor, align_corners):
    """(n_out, n_in) matrix of bicubic resampling along one axis: four taps around each source
    position (torch's: no clamp of the position, taps clamped to the edge)."""
    step = _scale(n_in, n_out, factor, align_corners)
    dst = np.arange(n_out, dtype=np.float64)
    src = dst * step if align_corners else (dst + 0.5) * step - 0.5
    low = np.floor(src)
    matrix = np.zeros((n_out, n_in))
    for k, weight in enumerate(_cubic_weights(src - low)):
        np.add.at(matrix, (np.arange(n_out), np.clip(low + k - 1, 0, n_in - 1).astype(int)),
                  weight)
    return matrix


def _triangle(x):
    return np.maximum(1.0 - np.abs(x), 0.0)


def _keys(x):  # torch's anti-aliased bicubic takes PIL's A = -0.5, not its plain -0.75
    x = np.abs(x)
    return np.where(x < 1, _keys_near(x, -0.5), np.where(x < 2, _keys_far(x, -0.5), 0.0))


def _lanczos(x):  # Lanczos-3: sinc(x) sinc(x / 3) inside |x| < 3
    return np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0.0)


# mode -> (filter radius at scale 1, filter, the node)
_ANTIALIAS = {"bilinear": (1, _triangle, _nd.UpsampleBilinear2DAaBackward0),
              "bicubic": (2, _keys, _nd.UpsampleBicubic2DAaBackward0),
              "lanczos": (3, _lanczos, _nd.UpsampleLanczos2DAaBackward0)}


def _antialias_matrix(n_in, n_out, factor, align_corners, mode, dtype):
    """(n_out, n_in) matrix of anti-aliased resampling along one axis: output i weighs the
    inputs j around the source center c = step * (i + 0.5) by filter((j - c + 0.5) / stretch),
    normalized to sum 1; downsampling (step > 1) stretches the filter by the step. Computed in
    ``dtype`` (float32 for float32 inputs, as torch's weights are)."""
    if n_in == n_out:  # torch leaves such an axis as it is, whatever the scale factor says
        return np.eye(n_in, dtype=dtype)
    radius, kernel = _ANTIALIAS[mode][:2]
    step = dtype(_scale(n_in, n_out, factor, align_corners))
    stretch = max(step, dtype(1))
    center = step * (np.arange(n_out, dtype=dtype) + dtype(0.5))
    # the taps as torch truncates them: [int(c - support + 0.5), int(c + support + 0.5))
    first = np.maximum(np.trunc(center - radius * stretch + dtype(0.5)), 0).astype(np.int64)
    stop = np.minimum(np.trunc(center + radius * stretch + dtype(0.5)), n_in).astype(np.int64)
    taps = first[:, None] + np.arange(max(int((stop - first).max()), 1))
    offsets = (taps.astype(dtype) - center[:, None] + dtype(0.5)) * (dtype(1) / stretch)
    weights = np.where(taps < stop[:, None], kernel(offsets), dtype(0)).astype(dtype)
    total = weights.sum(axis=1, keepdims=True)
    weights = weights / np.where(total == 0, dtype(1), total)
    matrix = np.zeros((n_out, n_in), dtype)
    np.add.at(matrix, (np.arange(n_out)[:, None], np.minimum(taps, n_in - 1)), weights)
    return matrix


def _antialias(input, sizes, factors, mode, align_corners, antialias):
    """Anti-aliased bilinear, bicubic or Lanczos-3 resampling of (N, C, H, W)."""
    if mode == "lanczos" and align_corners:
        raise ValueError("Lanczos mode does not support align_corners=True")
    if mode == "lanczos" and not antialias:
        raise ValueError("Lanczos mode requires antialias=True")
    if input.dtype not in (ember.float32, ember.float64, ember.uint8):
        raise NotImplementedError(f'"compute_index_ranges_weights" not implemented for '
                                  f"'{input.dtype.scalar_name}'")
    dtype = np.float32 if input.dtype == ember.float32 else np.float64  # (uint8's: double)
    geometry = [(int(n), int(o), f) for n, o, f in zip(input.shape[2:], sizes, factors)]

    def rebuild():  # (from sizes alone: the node keeps this, not the matrices)
        return [_antialias_matrix(n, o, f, bool(align_corners), mode, dtype)
                for n, o, f in geometry]
    matrices = rebuild()
    if input.dtype == ember.uint8:  # (no gradient: no node) W first, then H, as torch's
        data = _fixed_point(_fixed_point(input._data, matrices[1], 3), matrices[0], 2)
        layout = ember._memory_format.follow_or_contiguous
        return ember.Tensor._make(layout(data.astype(np.uint8), input._data))
    return _ANTIALIAS[mode][2].apply(input, matrices=matrices, rebuild=rebuild)  # (input's
    # layout)


def _fixed_point(data, matrix, axis):
    """uint8 resampling along ``axis`` as torch's (PIL's): the weights in fixed point with as
    many fraction bits as keep the largest under 2**15, each sum rounded and clipped to a byte
    (so the second pass reads rounded values)."""
    bits = 0
    while bits < 22 and int(0.5 + matrix.max() * (1 << (bits + 1))) < (1 << 15):
        bits += 1
    weights = np.trunc(matrix * (1 << bits) + np.where(matrix < 0, -0.5, 0.5)).astype(np.int64)
    total = np.moveaxis(np.moveaxis(data.astype(np.int64), axis, -1) @ weights.T, -1, axis)
    return np.clip((total + (1 << (bits - 1))) >> bits, 0, 255)


def _nearest(x, dim, n_out, factor, exact):
    n_in = x.shape[dim]
    step = np.float32(_scale(n_in, n_out, factor, False))
    positions = np.arange(n_out, dtype=np.float32) + (np.float32(0.5) if exact else 0)
    index = np.minimum(np.floor(positions * step).astype(np.int64), n_in - 1)
    return api.index_select(x, dim, ember.tensor(index))


def _linear(x, dim, n_out, factor, align_corners):
    n_in = x.shape[dim]
    step = _scale(n_in, n_out, factor, align_corners)
    dst = np.arange(n_out, dtype=np.float64)
    src = dst * step if align_corners else np.maximum((dst + 0.5) * step - 0.5, 0.0)
    low = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    high = np.minimum(low + 1, n_in - 1)
    shape = [1] * x.ndim
    shape[dim] = n_out
    weight = ember.tensor((src - low).reshape(shape).astype(x._data.dtype))
    below = api.index_select(x, dim, ember.tensor(low))
    above = api.index_select(x, dim, ember.tensor(high))
    return api.add(below, api.mul(api.sub(above, below), weight))


def _complex_kernel(mode, dims):
    """The name of torch's resampling kernel that refuses a complex input."""
    if dims == 2 and mode in ("nearest", "nearest-exact", "bilinear"):
        return f"upsample_{mode.replace('-exact', '')}2d_channels_last"
    kind = {"nearest-exact": "nearest", "bilinear": "linear", "trilinear": "linear",
            "bicubic": "cubic"}.get(mode, mode)
    return f"compute_indices_weights_{kind}"


def _check_mode(input, mode, align_corners, antialias):
    """torch's refusals of a mode, of align_corners or antialias with it, or of the rank."""
    if mode in ("nearest", "nearest-exact", "area") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if mode not in ("nearest", "nearest-exact", "area", "lanczos") and mode not in _LINEAR:
        raise NotImplementedError(f"interpolate: mode {mode!r} is not supported by ember "
                                  "(nearest, nearest-exact, linear, bilinear, bicubic, "
                                  "trilinear, lanczos, area are)")
    dims = input.ndim - 2
    if antialias and (mode not in _ANTIALIAS or dims != 2):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    if mode in _LINEAR and _LINEAR[mode] != dims:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                  f"{_LINEAR[mode] + 2}D input")
    if dims not in (1, 2, 3) or (mode == "lanczos" and dims != 2):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported "
                                  f"(got {input.ndim}D) for the modes: nearest | linear | "
                                  f"bilinear | bicubic | trilinear | lanczos | area | "
                                  f"nearest-exact (got {mode})")


def _refuse_integers(input, mode, dims, antialias):
    """torch's NotImplementedError for integer and bool inputs, named after the kernel its
    mode reaches: only uint8 resamples, by nearest and (bi)linear on images (2-d) ."""
    dtype = input._data.dtype
    if dtype.kind not in "biu" or mode == "area" or antialias or mode == "lanczos":
        return  # (area: adaptive pooling's own check; the anti-aliased kernels check theirs)
    if dtype == np.uint8 and (mode in ("nearest", "nearest-exact") or
                              mode == "bilinear" and dims == 2):
        return
    kernel = {"bicubic": "compute_indices_weights_cubic"}.get(mode) or (
        f"upsample_{'nearest' if mode.startswith('nearest') else 'bilinear'}2d_channels_last"
        if dims == 2 else
        f"compute_indices_weights_{'nearest' if mode.startswith('nearest') else 'linear'}")
    raise NotImplementedError(f'"{kernel}" not implemented for '
                              f"'{ember._dtype.of_numpy(dtype).scalar_name}'")


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resample the spatial dims of (N, C, d1, ...) to ``size`` or by ``scale_factor``."""
    _check_mode(input, mode, align_corners, antialias)
    dims = input.ndim - 2
    if mode not in ("area", "lanczos") and not antialias:  # (area pools, which torch computes
        # for complex too; the anti-aliased kernels refuse complex in _antialias)
        ember._dtype.refuse_complex(input._data.dtype, _complex_kernel(mode, dims))
    _refuse_integers(input, mode, dims, antialias)
    sizes, factors = _output_sizes(input, size, scale_factor, recompute_scale_factor)
    if mode != "area":  # (area is adaptive pooling, which takes an empty output and checks
        _positive_sizes(input, sizes)  # the sizes itself)
    if mode != "area" and input.shape[1] == 0:  # (an empty batch is fine, no channels is not)
        raise RuntimeError(f"Non-empty {input.ndim}D data tensor expected but got a tensor "
                           f"with sizes {list(input.shape)}")
    if antialias or mode == "lanczos":
        return _antialias(input, sizes, factors, mode, align_corners, antialias)
    if mode == "area":  # torch's area mode is adaptive average pooling to the output size
        pool = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[dims - 1]
        return _as_input(pool(input, sizes[0] if dims == 1 else tuple(sizes)), input)
    if mode == "bicubic":
        geometry = [(int(n), int(o), f) for n, o, f in zip(input.shape[2:], sizes, factors)]

        def rebuild():  # (from sizes alone: the node keeps this, not the matrices)
            return [_cubic_matrix(n, o, f, bool(align_corners)) for n, o, f in geometry]
        return _nd.UpsampleBicubic2DBackward0.apply(input, matrices=rebuild(), rebuild=rebuild)
    # torch's linear kernels compute float16 and bfloat16 in float32, rounding the result once
    low = mode in _LINEAR and input.dtype in (ember.float16, ember.bfloat16)
    out = api.to_dtype(input, ember.float32) if low else input
    for d, (n_out, factor) in enumerate(zip(sizes, factors)):
        if mode in _LINEAR:
            out = _linear(out, d + 2, n_out, factor, bool(align_corners))
        else:
            out = _nearest(out, d + 2, n_out, factor, mode == "nearest-exact")
    return _as_input(api.to_dtype(out, input.dtype) if low else out, input)


def _as_input(out, input):
    """``out`` channels-last when ``input`` is (torch's upsampling keeps that layout; the
    resampling steps here make contiguous results)."""
    fmt = ember._memory_format.suggested(input._data)
    return out if fmt is None else api.contiguous(out, memory_format=fmt)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of interpolate."""
    return interpolate(input, size, scale_factor, mode, align_corners)


def pixel_shuffle(input, upscale_factor):
    """(*, C*r*r, H, W) -> (*, C, H*r, W*r)."""
    r = upscale_factor
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    n = len(lead)
    x = api.reshape(input, tuple(lead) + (c // (r * r), r, r, h, w))
    x = api.permute(x, *range(n + 1), n + 3, n + 1, n + 4, n + 2)
    return api.reshape(x, tuple(lead) + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W)."""
    r = downscale_factor
    *lead, c, h, w = input.shape
    if h % r or w % r:
        which = "height" if h % r else "width"
        size = h if h % r else w
        raise RuntimeError(f"pixel_unshuffle expects {which} to be divisible by "
                           f"downscale_factor, but input.size({-2 if h % r else -1})={size} "
                           f"is not divisible by {r}")
    n = len(lead)
    x = api.reshape(input, tuple(lead) + (c, h // r, r, w // r, r))
    x = api.permute(x, *range(n + 1), n + 2, n + 4, n + 1, n + 3)
    return api.reshape(x, tuple(lead) + (c * r * r, h // r, w // r))


def _copy_kernel(channels, kernel, dtype):
    """(C*kh*kw, 1, kh, kw): output channel c*kh*kw + k copies window position k of channel c."""
    per = kernel[0] * kernel[1]
    eye = np.eye(per, dtype=dtype).reshape(per, 1, *kernel)
    return ember.tensor(np.tile(eye, (channels, 1, 1, 1)))


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding windows of (N, C, H, W) as columns: (N, C*kh*kw, L)."""
    if input.ndim not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported "
                                  f"(got {input.ndim}D)")
    kernel = _tuple(kernel_size, 2, "kernel_size")
    batched = input if input.ndim == 4 else api.unsqueeze(input, 0)
    c = batched.shape[1]
    out = conv2d(batched, _copy_kernel(c, kernel, batched._data.dtype), None, stride, padding,
                 dilation, c)
    out = api.reshape(out, (out.shape[0], out.shape[1], -1))
    return out if input.ndim == 4 else api.squeeze(out, 0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Columns (N, C*kh*kw, L) summed back into (N, C, H, W): the adjoint of unfold."""
    if input.ndim not in (2, 3):
        raise NotImplementedError(f"Input Error: Only unbatched (2D) or batched (3D) input "
                                  f"Tensors are supported (got {input.ndim}D)")
    kernel, size = _tuple(kernel_size, 2, "kernel_size"), _tuple(output_size, 2, "output_size")
    dil, pad, step = (_tuple(v, 2, name) for v, name in (
        (dilation, "dilation"), (padding, "padding"), (stride, "stride")))
    blocks = [(n + 2 * p - d * (k - 1) - 1) // s + 1
              for n, p, d, k, s in zip(size, pad, dil, kernel, step)]
    batched = input if input.ndim == 3 else api.unsqueeze(input, 0)
    per = kernel[0] * kernel[1]
    if batched.shape[1] % per or batched.shape[2] != blocks[0] * blocks[1]:
        raise RuntimeError(f"Given output_size={tuple(size)}, kernel_size={tuple(kernel)}, "
                           f"dilation={tuple(dil)}, padding={tuple(pad)}, stride={tuple(step)}, "
                           f"expected size of input's dimension 2 to match the calculated "
                           f"number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)="
                           f"{batched.shape[2]}.")
    c = batched.shape[1] // per
    planes = api.reshape(batched, (batched.shape[0], batched.shape[1]) + tuple(blocks))
    reach = [(b - 1) * s - 2 * p + d * (k - 1) + 1
             for b, s, p, d, k in zip(blocks, step, pad, dil, kernel)]
    extra = tuple(n - r for n, r in zip(size, reach))
    out = conv_transpose2d(planes, _copy_kernel(c, kernel, batched._data.dtype), None, step, pad,
                           extra, c, dil)
    return out if input.ndim == 3 else api.squeeze(out, 0)
