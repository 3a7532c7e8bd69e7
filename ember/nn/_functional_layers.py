"""nn.functional for layers: convolution, pooling, normalization, embedding, attention."""
import ember
from ember import _dtype
from ember.ops import autocast as _autocast
from ember.ops import conv as _conv
from ember.ops import conv3d as _conv3d
from ember.ops import pooling as _pool

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "max_pool1d", "max_pool2d",
           "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "conv_tbc"]


def _tuple(value, n, name="argument"):
    if isinstance(value, (tuple, list)):
        if len(value) == 1:
            return tuple(int(value[0]) for _ in range(n))
        if len(value) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                               f"values to match the convolution dimensions, but got "
                               f"{name}={list(value)}")
        return tuple(int(v) for v in value)
    return (int(value),) * n


def _shape(t):
    return list(t._data.shape)


# ------------------------------------------------------------------ convolution
def _conv_padding(padding, n, kernel, stride, dilation):
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * n
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        total = [d * (k - 1) for d, k in zip(dilation, kernel)]
        return tuple((t // 2, t - t // 2) for t in total)
    return tuple((p, p) for p in _tuple(padding, n, "padding"))


def _geometry(stride, dilation, pads, groups, n):
    """The passes' geometry: 1-D runs as 2-D with height 1, 3-D as 2-D over unfolded depth."""
    if n == 1:
        return _conv.Geometry((1,) + stride, (1,) + dilation, ((0, 0),) + pads, groups, True)
    if n == 3:
        return _conv3d.Geometry3d(stride, dilation, pads, groups)
    return _conv.Geometry(stride, dilation, pads, groups)


def _check_conv(input, weight, bias, groups, n, transposed=False):
    name = f"conv{'_transpose' if transposed else ''}{n}d"
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {name}, "
                           f"but got input of size: {_shape(input)}")
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(f"Input type ({input.type()}) and weight type ({weight.type()}) should "
                           "be the same or input should be a MKLDNN tensor and weight is a dense "
                           "tensor")
    w = _shape(weight)
    channels = w[0] if transposed else w[1] * groups
    out_channels = w[1] * groups if transposed else w[0]
    batched = input if input.dim() == n + 2 else input.unsqueeze(0)
    if w[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{w}] instead")
    if batched.shape[1] != channels:
        what = "transposed=1, weight" if transposed else f"groups={groups}, weight"
        raise RuntimeError(f"Given {what} of size {w}, expected input{_shape(batched)} to have "
                           f"{channels} channels, but got {batched.shape[1]} channels instead")
    if bias is not None and _shape(bias) != [out_channels]:
        raise RuntimeError(f"Given weight of size {w}, expected bias to be 1-dimensional with "
                           f"{out_channels} elements, but got bias of size {_shape(bias)} instead")
    return batched


def _check_geometry(stride, pads, dilation, n, transposed=False):
    """torch's checks of a convolution's stride, padding and dilation (before any pass)."""
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(p < 0 for pair in pads for p in (pair if isinstance(pair, tuple) else (pair,))):
        raise RuntimeError("negative padding is not supported")
    if all(d > 0 for d in dilation):
        return
    shown = (1,) * (n == 1) + tuple(dilation)  # (torch runs 1-d as 2-d)
    if transposed and len(shown) == 2:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: "
                           f"{shown[0]}, dilation_width: {shown[1]}")
    raise RuntimeError(f"dilation should be greater than zero, but got {list(shown)}")


def _convolution(input, weight, bias, stride, padding, dilation, groups, n):
    input, weight, bias = _autocast.lower(input, weight, bias)
    batched = _check_conv(input, weight, bias, groups, n)
    kernel = tuple(weight.shape[2:])
    stride, dilation = _tuple(stride, n, "stride"), _tuple(dilation, n, "dilation")
    if not isinstance(padding, str):
        _check_geometry(stride, _tuple(padding, n, "padding"), dilation, n)
    pads = _conv_padding(padding, n, kernel, stride, dilation)
    padded = [s + p0 + p1 for s, (p0, p1) in zip(batched.shape[2:], pads)]
    if any(d * (k - 1) + 1 > p for d, k, p in zip(dilation, kernel, padded)):
        sizes = " x ".join(map(str, padded))
        raise RuntimeError(f"Calculated padded input size per channel: ({sizes}). Kernel size: "
                           f"({' x '.join(map(str, kernel))}). Kernel size can't be greater than "
                           "actual input size")
    geom = _geometry(stride, dilation, pads, groups, n)
    out = _conv.ConvolutionBackward0.apply(batched, weight, bias, geom=geom)
    return out if batched is input else out.squeeze(0)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution over (N, C, L) with weight (O, C/groups, k)."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 1)


def conv_tbc(input, weight, bias, pad=0):
    """1-D convolution of a (time, batch, channels) input with a (kernel, in, out) weight, both
    padded by ``pad`` in time: conv1d on the transposed layouts."""
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if bias.shape[0] != weight.shape[2]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution over (N, C, H, W) with weight (O, C/groups, kh, kw)."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 2)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution over (N, C, D, H, W) with weight (O, C/groups, kd, kh, kw)."""
    return _convolution(input, weight, bias, stride, padding, dilation, groups, 3)


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, n):
    input, weight, bias = _autocast.lower(input, weight, bias)
    batched = _check_conv(input, weight, bias, groups, n, transposed=True)
    kernel = tuple(weight.shape[2:])
    stride, dilation = _tuple(stride, n, "stride"), _tuple(dilation, n, "dilation")
    padding, output_padding = _tuple(padding, n, "padding"), _tuple(output_padding, n)
    _check_geometry(stride, padding, dilation, n, transposed=True)
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= s and op >= d:
            raise RuntimeError("output padding must be smaller than either stride or dilation, "
                               f"but got output_padding={list(output_padding)}, stride="
                               f"{list(stride)}, dilation={list(dilation)}")
    size = [(i - 1) * s - 2 * p + d * (k - 1) + op + 1 for i, s, p, d, k, op in
            zip(batched.shape[2:], stride, padding, dilation, kernel, output_padding)]
    # The output is the input-gradient of a convolution of an input of that size. Where
    # output_padding < stride that convolution's output is the input's size anyway (the
    # division by the stride floors the extra rows away). Where it is not (allowed below the
    # dilation), the extra rows at the end are the ones the trailing padding would crop: that
    # padding shrinks by them, and rows past the full result (output_padding beyond the
    # padding) are zeros, appended after the convolution, then the bias.
    pads, extra = [], []
    for p, op, s in zip(padding, output_padding, stride):
        cut = min(op, p) if op >= s else 0
        pads.append((p, p - cut))
        extra.append(op - cut if op >= s else 0)
    out_shape = (batched.shape[0], weight.shape[1] * groups) + tuple(
        n_out - e for n_out, e in zip(size, extra))
    geom = _geometry(stride, dilation, tuple(pads), groups, n)
    out = _conv.ConvolutionBackward0.apply(batched, weight, None if any(extra) else bias,
                                           geom=geom, transposed=True, out_shape=out_shape)
    if any(extra):
        out = ember.nn.functional.pad(out, [v for e in reversed(extra) for v in (0, e)])
        if bias is not None:
            out = out + bias.reshape((-1,) + (1,) * n)
    return out if batched is input else out.squeeze(0)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 1-D convolution (the input-gradient of conv1d); weight (C, O/groups, k)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 1)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 2-D convolution (the input-gradient of conv2d); weight (C, O/groups, kh, kw)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 2)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 3-D convolution (the input-gradient of conv3d); weight (C, O/groups, kd, kh,
    kw)."""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 3)


# ------------------------------------------------------------------ pooling
def pool_arguments(kernel_size, stride, padding, dilation, n):
    """(kernel, stride, padding, dilation) as n-tuples (stride defaults to the kernel), the
    padding checked against the effective kernel as torch checks it."""
    kernel = _tuple(kernel_size, n)
    stride = kernel if stride is None or stride == [] or stride == () else _tuple(stride, n)
    padding, dilation = _tuple(padding, n), _tuple(dilation, n)
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"stride should be greater than zero, but got {_hw('d', stride)}")
    if any(p < 0 for p in padding):
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(padding)}")
    if any(d <= 0 for d in dilation):
        raise RuntimeError(f"dilation should be greater than zero, but got "
                           f"{_hw('dilation', dilation)}")
    for p, k, d in zip(padding, kernel, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    return kernel, stride, padding, dilation


def _hw(prefix, values):
    """torch's 'dH: 1 dW: 2' naming of per-dimension pool arguments."""
    return " ".join(f"{prefix}{axis}: {v}" for axis, v in zip("TDHW"[-len(values):] if
                                                               len(values) > 2 else "HW", values))


def _pool_geometry(input, kernel_size, stride, padding, dilation, ceil_mode):
    kernel, stride, padding, dilation = pool_arguments(kernel_size, stride, padding, dilation, 2)
    geom = _pool.PoolGeometry(input.shape[-2:], kernel, stride, padding, dilation, ceil_mode)
    if min(geom.out_hw) <= 0:
        sizes = "x".join(map(str, input.shape[-3:]))
        outs = "x".join(map(str, (input.shape[-3],) + geom.out_hw))
        raise RuntimeError(f"Given input size: ({sizes}). Calculated output size: ({outs}). "
                           "Output size is too small")
    return geom


def _check_pool_input(input, n, name):
    """An (N, C, *spatial) or (C, *spatial) input; only a batch dim may be 0, as torch's."""
    shape = tuple(input.shape)
    if n == 2 and input.dim() not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if input.dim() not in (n + 1, n + 2) or 0 in shape[input.dim() - n - 1:]:
        prefix = f"{name}: " if n == 1 else ""
        raise RuntimeError(f"{prefix}Expected {n + 1}D or {n + 2}D (batch mode) tensor with "
                           f"optional 0 dim batch size for input, but got:{_shape(input)}")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over each kh x kw window; optionally also each maximum's flat index in its plane."""
    _dtype.refuse_kinds(input._data.dtype, "max_pool2d", "bc")
    _check_pool_input(input, 2, "max_pool2d")
    geom = _pool_geometry(input, kernel_size, stride, padding, dilation, ceil_mode)
    out = _pool.MaxPool2DWithIndicesBackward0.apply(input, geom=geom)
    if not return_indices:
        return out
    arg = out._grad_fn.arg if out._grad_fn is not None else \
        _pool.max_pool_forward(input._data, geom)[1]
    return out, ember.Tensor._make(_pool.max_pool_indices(arg, geom))


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over each window of the last dim (run as a 2-D pool of height 1)."""
    # torch's kernel without indices is floating only; with them it is max_pool2d's
    _dtype.refuse_kinds(input._data.dtype, "max_pool1d_impl", "c" if return_indices else "biuc")
    _check_pool_input(input, 1, "max_pool1d")
    one = (lambda v: [1] + list(_tuple(v, 1))) if stride is not None else None
    out = max_pool2d(input.unsqueeze(-2), [1] + list(_tuple(kernel_size, 1)),
                     one(stride) if one else None, [0] + list(_tuple(padding, 1)),
                     [1] + list(_tuple(dilation, 1)), ceil_mode, return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def _no_avg_kernel(input):
    """torch averages floating tensors and int64 (C division), and refuses the rest."""
    if input.dtype is not ember.int64:
        _dtype.refuse_kinds(input._data.dtype, "avg_pool2d", "biuc")


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Mean over each kh x kw window (torch's divisor rules for padding and ceil_mode)."""
    _no_avg_kernel(input)
    _check_pool_input(input, 2, "avg_pool2d")
    geom = _pool_geometry(input, kernel_size, stride, padding, 1, ceil_mode)
    divisor = _pool.avg_divisor(geom, count_include_pad, divisor_override)
    return _pool.AvgPool2DBackward0.apply(input, geom=geom, divisor=divisor)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """Mean over each window of the last dim."""
    _no_avg_kernel(input)
    _check_pool_input(input, 1, "avg_pool1d")
    stride = None if stride is None else [1] + list(_tuple(stride, 1))
    out = avg_pool2d(input.unsqueeze(-2), [1] + list(_tuple(kernel_size, 1)), stride,
                     [0] + list(_tuple(padding, 1)), ceil_mode, count_include_pad)
    return out.squeeze(-2)


def adaptive_sizes(input, output_size, n, name):
    """The output sizes of an adaptive pool over the last ``n`` dims (None keeps that input
    size), with torch's errors: the count of sizes, then (average pools) a negative size."""
    sizes = list(output_size) if isinstance(output_size, (tuple, list)) else [output_size] * n
    if len(sizes) != n:
        raise RuntimeError(f"{name}" + (": output_size must be 3" if name.startswith(
            "adaptive_avg") else f"(): internal error: output_size.size() must be {n}"))
    sizes = tuple(int(s if s is not None else m) for s, m in zip(sizes, input.shape[-n:]))
    if name.startswith("adaptive_avg") and min(sizes) < 0:
        shown = ", ".join(map(str, sizes[:2])) + "".join(f",{s}" for s in sizes[2:])
        raise RuntimeError(f"{name}: elements of output_size must be greater than or equal to "
                           f"0 but received {{{shown}}}")
    return sizes


def refuse_short_input(input, output_size):
    """F's ValueError (before the kernel's checks) for a tuple of output sizes with as many
    sizes as the input has dims."""
    if isinstance(output_size, (tuple, list)) and input.dim() <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")


def refuse_empty_window(input, name, first=1):
    """torch's adaptive pools refuse an input with an empty dim past the batch dim (from
    ``first`` on): no window to pool."""
    for d in range(first, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")


def adaptive_avg_pool2d(input, output_size):
    """Average pool to a fixed output size (None keeps that input size)."""
    refuse_short_input(input, output_size)
    sizes = adaptive_sizes(input, output_size, 2, "adaptive_avg_pool2d")
    refuse_empty_window(input, "adaptive_avg_pool2d", input.dim() - 2)  # (torch: the last two)
    if sizes == (1, 1):
        return input.mean((-1, -2), keepdim=True)
    if not input.is_floating_point():  # NumPy would average into zeros of the integer dtype
        raise NotImplementedError(f"\"adaptive_avg_pool2d\" not implemented for "
                                  f"'{input.dtype.scalar_name}'")
    return _pool.AdaptiveAvgPool2DBackward0.apply(input, out_hw=sizes)


def adaptive_avg_pool1d(input, output_size):
    """Average pool the last dim to a fixed size."""
    size = _one_size(input, output_size, "adaptive_avg_pool1d")
    return adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def _one_size(input, output_size, name):
    """The output size of a 1-d adaptive pool of a (C, L) or (N, C, L) input."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for {name})")
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    if size is None:
        raise TypeError(f"{name}(): argument 'output_size' (position 2) must be tuple of ints, "
                        f"not NoneType")
    return size


from ._functional_norm import *  # noqa: E402, F401, F403
from ._functional_norm import __all__ as _norm_all  # noqa: E402

__all__ += _norm_all
