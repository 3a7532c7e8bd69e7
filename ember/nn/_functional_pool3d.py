"""nn.functional's 3-D pools and the adaptive max pools (ember/ops/pooling_nd.py), and
instance_norm (batch norm of the (1, N*C, *) reshape, as torch composes it)."""
import ember
from ember.ops import pooling_nd as _nd

from ._functional_layers import _tuple
from ._functional_norm import batch_norm

__all__ = ["max_pool3d", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool1d",
           "adaptive_max_pool2d", "adaptive_max_pool3d", "instance_norm"]


def _check_volume(input, name):
    if input.dim() not in (4, 5):
        raise RuntimeError("non-empty 4D or 5D (batch mode) tensor expected for input")
    if 0 in tuple(input.shape[-4:]):  # torch names "dimension 0" whichever is empty
        raise RuntimeError(f"{name}(): Expected input's non-batch dimensions to have positive "
                           f"length, but input has a shape of {list(input.shape)} and non-batch "
                           "dimension 0 has length zero!")


def _regular(input, kernel_size, stride, padding, dilation, ceil_mode):
    """One (positions, valid) pair per pooled axis, checked as torch checks them."""
    kernel = _tuple(kernel_size, 3)
    stride = kernel if stride is None or stride == [] or stride == () else _tuple(stride, 3)
    padding, dilation = _tuple(padding, 3), _tuple(dilation, 3)
    for p, k, d in zip(padding, kernel, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    return [_nd.regular_windows(n, k, s, p, d, ceil_mode) for n, k, s, p, d in
            zip(input.shape[-3:], kernel, stride, padding, dilation)], padding


def _out_shape(input, windows):
    return tuple(input.shape[:-len(windows)]) + tuple(w[0].shape[0] for w in windows)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Max over each kd x kh x kw window; optionally each maximum's flat index in its volume."""
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
    _check_volume(input, "avg_pool3d")
    kernel = _tuple(kernel_size, 3)
    if any(n < k for n, k in zip(input.shape[-3:], kernel)):
        t, h, w = input.shape[-3:]
        raise RuntimeError(f"input image (T: {t} H: {h} W: {w}) smaller than kernel size "
                           f"(kT: {kernel[0]} kH: {kernel[1]} kW: {kernel[2]})")
    windows, padding = _regular(input, kernel, stride, padding, 1, ceil_mode)
    matrices = [_nd.average_matrix(pos, valid, n, p, count_include_pad, divisor_override)
                for (pos, valid), n, p in zip(windows, input.shape[-3:], padding)]
    scale = 1.0 / divisor_override if divisor_override else None
    return _nd.AvgPool3DBackward0.apply(input, matrices=matrices, scale=scale)


def _adaptive_sizes(input, output_size, n, name):
    sizes = list(output_size) if isinstance(output_size, (tuple, list)) else [output_size] * n
    if len(sizes) != n:
        raise RuntimeError(f"{name}" + (": output_size must be 3" if name.startswith(
            "adaptive_avg") else f"(): internal error: output_size.size() must be {n}"))
    return tuple(int(s if s is not None else m) for s, m in zip(sizes, input.shape[-n:]))


def adaptive_avg_pool3d(input, output_size):
    """Average pool (N, C, D, H, W) to ``output_size`` (an int, a triple; None keeps a size)."""
    if input.dim() not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got "
                           f"{list(input.shape)}")
    sizes = _adaptive_sizes(input, output_size, 3, "adaptive_avg_pool3d")
    if sizes == (1, 1, 1):
        return input.mean((-1, -2, -3), keepdim=True)
    matrices = [_nd.average_matrix(*_nd.adaptive_windows(n, o), n)
                for n, o in zip(input.shape[-3:], sizes)]
    return _nd.AdaptiveAvgPool3DBackward0.apply(input, matrices=matrices)


def _adaptive_max(input, output_size, n, node):
    name = f"adaptive_max_pool{n}d"
    if input.dim() not in (n + 1, n + 2):
        raise RuntimeError(f"{name}(): Expected {n + 1}D or {n + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    for d in range(input.dim() - n, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")
    sizes = _adaptive_sizes(input, output_size, n, name)
    if input._data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for "
                                  f"'{input.dtype.scalar_name}'")
    windows = [_nd.adaptive_windows(m, o) for m, o in zip(input.shape[-n:], sizes)]
    positions = _nd.max_positions(input._data, windows)
    return node.apply(input, positions=positions), positions


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pool (N, C, H, W) to ``output_size``; optionally each maximum's flat index."""
    out, positions = _adaptive_max(input, output_size, 2, _nd.AdaptiveMaxPool2DBackward0)
    return (out, ember.Tensor._make(positions)) if return_indices else out


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pool (N, C, D, H, W) to ``output_size``; optionally each maximum's flat index."""
    out, positions = _adaptive_max(input, output_size, 3, _nd.AdaptiveMaxPool3DBackward0)
    return (out, ember.Tensor._make(positions)) if return_indices else out


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pool the last dim of (N, C, L) or (C, L) to ``output_size``."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           f"tensor for argument #1 'self' (while checking arguments for "
                           f"adaptive_max_pool1d)")
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    out = adaptive_max_pool2d(input.unsqueeze(-2), (1, size), return_indices)
    if return_indices:
        return out[0].squeeze(-2), out[1].squeeze(-2)
    return out.squeeze(-2)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-05):
    """Normalize each channel of each sample over its (*) dims: batch norm of the input seen
    as (1, N*C, *); running statistics, when given, take the mean over the batch."""
    n, c = input.shape[0], input.shape[1]
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

