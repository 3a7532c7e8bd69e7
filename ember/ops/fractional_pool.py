"""Fractional max pooling (Graham, 2014): windows whose starts advance by pseudo-random steps,
one draw per plane; the gather/scatter node is pooling_nd's."""
import numpy as np

from .pooling_nd import _GatherPool


def interval_starts(samples, size, out, kernel):
    """The window starts along one axis for each plane, as torch draws them from ``samples``
    (one u in [0, 1) per plane, in the input's dtype): with α = (size - kernel) / (out - 1),
    start_i = int((i + u) α) - int(u α) for i < out - 1, and the last window ends at the edge."""
    dtype = samples.dtype
    starts = np.empty(samples.shape + (out,), dtype=np.int64)
    if out > 1:
        alpha = dtype.type(size - kernel) / dtype.type(out - 1)
        steps = np.arange(out - 1, dtype=dtype)
        starts[..., :-1] = (((steps + samples[..., None]) * alpha).astype(np.int64)
                            - (samples * alpha).astype(np.int64)[..., None])
    if out > 0:
        starts[..., -1] = size - kernel
    return starts


def fractional_positions(x, kernel, out, samples):
    """Flat positions (in the pooled trailing dims) of each window's first maximum, for x of
    shape (N, C, *spatial) and samples of shape (N, C, ndim) in torch's axis order (for 2-D:
    width, then height; for 3-D: depth, height, width)."""
    ndim = len(kernel)
    spatial = x.shape[2:]
    order = [1, 0] if ndim == 2 else list(range(ndim))
    strides = np.cumprod((1,) + spatial[::-1])[:-1][::-1]
    position = np.zeros(x.shape[:2] + (1,) * (2 * ndim), dtype=np.int64)
    for axis in range(ndim):
        starts = interval_starts(samples[..., order[axis]], spatial[axis], out[axis],
                                 kernel[axis])
        along = starts[..., None] + np.arange(kernel[axis])  # (N, C, out, kernel)
        shape = [1] * (2 * ndim)
        shape[axis], shape[ndim + axis] = out[axis], kernel[axis]
        position = position + (along * strides[axis]).reshape(x.shape[:2] + tuple(shape))
    lead = x.shape[:2] + tuple(out)
    candidates = np.broadcast_to(position, lead + tuple(kernel)).reshape(lead + (-1,))
    values = np.take_along_axis(x.reshape(x.shape[:2] + (-1,)),
                                candidates.reshape(x.shape[:2] + (-1,)), -1)
    first = np.argmax(values.reshape(candidates.shape), axis=-1)[..., None]
    return np.take_along_axis(candidates, first, -1)[..., 0]


class FractionalMaxPool2DBackward0(_GatherPool):
    """Fractional max pooling over (H, W)."""

    pooled = 2


class FractionalMaxPool3DBackward0(_GatherPool):
    """Fractional max pooling over (D, H, W)."""

    pooled = 3
