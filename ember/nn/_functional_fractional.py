"""nn.functional fractional max pooling (2-D and 3-D), with torch's random window draws."""
import ember
from ember.ops import fractional_pool as _fp

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d", "fractional_max_pool3d_with_indices"]

_AXES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _tuple(value, ndim):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * ndim


def _output_size(input, ndim, output_size, output_ratio):
    name = f"fractional_max_pool{ndim}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        return _tuple(output_size, ndim)
    if ndim == 2 and len(output_ratio) > 2:  # torch's len(): a bare float is a TypeError
        raise ValueError(f"{name} requires output_ratio to either be a single Int or tuple of "
                         "Ints.")
    ratio = _tuple(output_ratio, ndim)
    return tuple(int(input.size(axis - ndim) * ratio[axis]) for axis in range(ndim))


def _check(input, ndim, kernel, out, samples):
    name = "fractional_max_pool2d()" if ndim == 2 else "fractional_max_pool3d_out()"
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"{name}: kernel_size must be greater than zero, but got "
                           f"{list(kernel)}")
    for axis, label in enumerate(_AXES[ndim]):
        size = input.shape[axis - ndim]
        if out[axis] + kernel[axis] - 1 > size:
            raise RuntimeError(f"{name}: pool {label} {kernel[axis]} too large relative to "
                               f"input {label} {size}")
    if samples.dim() != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got "
                           f"{samples.dim()}.")
    if samples.shape[2] != ndim:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {ndim}; got "
                           f"{samples.shape[2]}.")
    if samples.shape[0] < input.shape[0] or samples.shape[1] != input.shape[1]:
        which = ("size(0) no less then input batch size" if samples.shape[0] < input.shape[0]
                 else "size(1) equals to input channel size")
        raise RuntimeError(f"Expect _random_samples.{which}.")
    if samples.dtype != input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")


def _pool(input, ndim, kernel_size, output_size, output_ratio, _random_samples, node):
    kernel = _tuple(kernel_size, ndim)
    out = _output_size(input, ndim, output_size, output_ratio)
    if _random_samples is None:  # drawn before any check, as torch draws them
        batch = 1 if input.dim() == ndim + 1 else input.size(0)
        _random_samples = ember.rand(batch, input.size(-ndim - 1), ndim, dtype=input.dtype)
    unbatched = input.dim() == ndim + 1
    if input.dim() not in (ndim + 1, ndim + 2):
        raise RuntimeError(f"non-empty {ndim + 1}D or {ndim + 2}D (batch mode) tensor expected "
                           "for input")
    batched = input.unsqueeze(0) if unbatched else input
    _check(batched, ndim, kernel, out, _random_samples)
    samples = _random_samples._data[:batched.shape[0]]
    positions = _fp.fractional_positions(batched._data, kernel, out, samples)
    if unbatched:
        positions = positions[0]
    return node.apply(input, positions=positions), ember.Tensor._make(positions)


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """2-D fractional max pooling of (N, C, H, W) or (C, H, W), and each maximum's flat index."""
    return _pool(input, 2, kernel_size, output_size, output_ratio, _random_samples,
                 _fp.FractionalMaxPool2DBackward0)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """2-D fractional max pooling: max over kernel windows whose starts advance by random steps
    so that the output has output_size (or input size x output_ratio)."""
    out = fractional_max_pool2d_with_indices(input, kernel_size, output_size, output_ratio,
                                             return_indices, _random_samples)
    return out if return_indices else out[0]


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """3-D fractional max pooling of (N, C, D, H, W) or (C, D, H, W), and the flat indices."""
    return _pool(input, 3, kernel_size, output_size, output_ratio, _random_samples,
                 _fp.FractionalMaxPool3DBackward0)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """3-D fractional max pooling (see fractional_max_pool2d)."""
    out = fractional_max_pool3d_with_indices(input, kernel_size, output_size, output_ratio,
                                             return_indices, _random_samples)
    return out if return_indices else out[0]
