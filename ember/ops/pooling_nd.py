"""Pools over the last 1-3 dims written once for any number of dims, axis by axis: 3-D max and
average pooling, adaptive max/average pooling, max unpooling (the scatter back), and the nodes of
bicubic and anti-aliased resampling (linear and separable like an average pool).

Both kinds are separable. An average pool is a linear map with one averaging matrix per axis (the
divisor of a window is the product of its per-axis extents, counted as torch counts them), so
``out = x ×_D M_D ×_H M_H ×_W M_W``, and the gradient applies the transposed matrices. A max pool
reduces one axis at a time, keeping where each maximum came from; reducing W, then H, then D picks
the first maximum in raster order (the last NaN where a window holds any), as torch's scan does.
Its output is then the input gathered at those positions, and its gradient the scatter back.
"""
import numpy as np

from .._dtype import from_numpy_dtype
from .._memory_format import contiguous_result, follow_or_contiguous
from .._tensor import Tensor
from ..autograd._math import array_math
from ..autograd.graph import Node
from .pooling import _first_max, _out_len, refuse_empty_grad


# ------------------------------------------------------------------ windows along one axis
def regular_windows(n, kernel, stride, padding, dilation, ceil_mode):
    """(positions, valid): the (out, kernel) input positions of each window along an axis of
    size ``n`` and which of them fall inside the input (the rest is padding)."""
    out = _out_len(n, kernel, stride, padding, dilation, ceil_mode)
    positions = np.arange(out)[:, None] * stride - padding + np.arange(kernel) * dilation
    return positions, (positions >= 0) & (positions < n)


def adaptive_windows(n, out):
    """(positions, valid) of adaptive pooling: window i covers [floor(i*n/o), ceil((i+1)*n/o))."""
    starts = np.arange(out) * n // out
    ends = -(-(np.arange(1, out + 1) * n) // out)
    positions = starts[:, None] + np.arange(max(ends - starts, default=0))
    return positions, positions < ends[:, None]


def window_sums(positions, valid, n, padding=0, count_include_pad=False):
    """(rows, divisors): the (out, n) 0/1 matrix summing each window and each window's divisor
    (padding counts in it if ``count_include_pad``)."""
    rows = np.zeros((positions.shape[0], n))
    for i, (where, inside) in enumerate(zip(positions, valid)):
        rows[i, where[inside]] = 1.0
    if count_include_pad:  # the window as far as the padding reaches (ceil_mode may cut it)
        size = np.minimum(positions[:, -1] + 1, n + padding) - positions[:, 0]
    else:
        size = valid.sum(axis=1)
    return rows, size


def average_matrix(positions, valid, n, padding=0, count_include_pad=False,
                   divisor_override=None):
    """(out, n) matrix averaging each window; ``divisor_override`` replaces the divisor (then
    the matrix only sums)."""
    rows, size = window_sums(positions, valid, n, padding, count_include_pad)
    return rows if divisor_override else rows / size[:, None]


def integer_average(x, sums, divisors):
    """Window sums of an int64 array divided by the divisors, truncated toward zero (C's
    integer division, as torch's kernel); ``divisors``: one vector per axis, or one number."""
    total = _contract(array_math, x, [rows.T.astype(np.int64) for rows in sums])
    if isinstance(divisors, list):
        grid = np.ones((), np.int64)
        for size in divisors:
            grid = np.multiply.outer(grid, size.astype(np.int64))
        divisors = grid
    quotient = np.abs(total) // np.abs(divisors)
    return np.where((total < 0) != (np.asarray(divisors) < 0), -quotient, quotient)


# ------------------------------------------------------------------ average pools
def _contract(m, x, right):
    """x with its last len(right) axes each multiplied by a matrix: axis -k by right[-k]."""
    for k, matrix in enumerate(reversed(right), 1):
        if k == 1:
            x = m.matmul(x, matrix)
        else:
            x = m.transpose(m.matmul(m.transpose(x, -k, -1), matrix), -k, -1)
    return x


class _Separable(Node):
    """out = x with each trailing axis multiplied by its own matrix (times ``scale``);
    dx = g with the transposed matrices."""

    kernel = None  # torch's kernel name, in its error for integer inputs

    @staticmethod
    def _layout(out, source):
        """The layout of torch's result (and gradient): the pools' are contiguous (the
        contraction here leaves the axes transposed in memory)."""
        return contiguous_result(out)

    @classmethod
    def result_layout(cls, data, inputs):
        return cls._layout(data, inputs[0]._data)

    def forward(self, x, matrices, scale=None):
        data = x._data
        if data.dtype.kind not in "fc":  # int matrices would hold zeros: refuse, as torch
            raise NotImplementedError(f"\"{self.kernel}\" not implemented for "
                                      f"'{from_numpy_dtype(data.dtype).scalar_name}'")
        self.matrices = [mat.astype(data.dtype) for mat in matrices]
        self.scale = scale
        out = _contract(array_math, data, [mat.T for mat in self.matrices])
        return out if scale is None else out * np.asarray(scale, data.dtype)

    def backward(self, m, g):
        mats = self.matrices
        if m.is_graph:
            mats = [Tensor._make(mat) for mat in mats]
        grad = _contract(m, g, mats)
        if not m.is_graph:
            grad = self._layout(grad, g)
        return (grad if self.scale is None else grad * self.scale,)


class AvgPool3DBackward0(_Separable):
    """3-D average pooling: out = x ×_D M_D ×_H M_H ×_W M_W (per-axis averaging matrices)."""

    kernel = "avg_pool3d_out_frame"


class AdaptiveAvgPool3DBackward0(_Separable):
    """Adaptive average pooling over (D, H, W): the same separable averaging."""

    kernel = "adaptive_avg_pool3d_cpu"

    def backward(self, m, g):
        refuse_empty_grad(g, "adaptive_avg_pool3d")
        return super().backward(m, g)


class _Resampling(_Separable):
    """Resampling of (H, W): torch's keeps a channels-last input's layout, and lays the
    gradient out as grad_output."""

    def forward(self, x, matrices, scale=None, rebuild=None):
        self.rebuild = rebuild  # () -> the matrices again, from sizes alone
        return super().forward(x, matrices, scale)

    def backward(self, m, g):
        if self.matrices is None:  # (freed by the last backward: made again from the sizes)
            self.matrices = [mat.astype(m.data(g).dtype) for mat in self.rebuild()]
        return super().backward(m, g)

    def _release(self):
        """Free the filter matrices but stay usable: torch's upsampling nodes save only sizes,
        so a second backward works there; here it rebuilds the matrices from them."""
        if self.rebuild is None:
            return super()._release()
        self.matrices = None

    _layout = staticmethod(follow_or_contiguous)


class UpsampleBicubic2DBackward0(_Resampling):
    """Bicubic resampling of (H, W): one cubic-convolution matrix per axis."""

    kernel = "compute_indices_weights_cubic"


class _AntialiasSeparable(_Resampling):
    """Anti-aliased resampling of (H, W): one normalized filter matrix per axis."""

    kernel = "compute_index_ranges_weights"


class UpsampleBilinear2DAaBackward0(_AntialiasSeparable):
    """Anti-aliased bilinear resampling (a triangle filter widened when downsampling)."""


class UpsampleBicubic2DAaBackward0(_AntialiasSeparable):
    """Anti-aliased bicubic resampling (Keys' cubic, A = -0.5, widened when downsampling)."""


class UpsampleLanczos2DAaBackward0(_AntialiasSeparable):
    """Lanczos-3 resampling (a windowed sinc, widened when downsampling)."""


# ------------------------------------------------------------------ max pools
def _fill_padding(positions, valid):
    """Padding positions replaced by the window's nearest valid one (before the first valid,
    its first; after the last, its last): a duplicate next to its original changes neither
    the first maximum nor the last NaN."""
    big = np.iinfo(np.int64).max
    first = np.where(valid, positions, big).min(axis=1, keepdims=True)
    last = np.where(valid, positions, -1).max(axis=1, keepdims=True)
    return np.where(valid, positions, np.where(positions < first, first, last))


def max_positions(x, windows):
    """Flat positions (in the pooled trailing dims) of each window's maximum; ``windows`` holds
    one (positions, valid) pair per trailing axis."""
    ndim = len(windows)
    pooled = x.shape[x.ndim - ndim:]
    out_shape = x.shape[:x.ndim - ndim] + tuple(positions.shape[0] for positions, _ in windows)
    if 0 in out_shape:
        return np.zeros(out_shape, np.int64)
    flat = np.broadcast_to(np.arange(int(np.prod(pooled))).reshape(pooled), x.shape)
    for axis in range(x.ndim - 1, x.ndim - ndim - 1, -1):  # W first: raster order
        positions = _fill_padding(*windows[axis - x.ndim + ndim])
        views = [np.take(x, positions[:, k], axis=axis) for k in range(positions.shape[1])]
        x, arg = _first_max(views)
        flats = np.stack([np.take(flat, positions[:, k], axis=axis)
                          for k in range(positions.shape[1])])
        flat = np.take_along_axis(flats, arg[None].astype(np.intp), 0)[0]
    return flat.astype(np.int64)


class _GatherPool(Node):
    """out = x read at each window's maximum;  dx = g added back there."""

    def forward(self, x, positions):
        data = x._data
        self.shape, lead = data.shape, data.shape[:-self.pooled]
        self.index = positions.reshape(lead + (int(np.prod(positions.shape[-self.pooled:])),))
        flat = data.reshape(lead + (int(np.prod(data.shape[-self.pooled:])),))
        return np.take_along_axis(flat, self.index, -1).reshape(positions.shape)

    def backward(self, m, g):
        lead = self.shape[:-self.pooled]
        size = int(np.prod(self.shape[-self.pooled:]))
        flat = m.scatter_add_zeros(m.reshape(g, self.index.shape), lead + (size,), len(lead),
                                   self.index)
        return (m.reshape(flat, self.shape),)


class MaxPool3DWithIndicesBackward0(_GatherPool):
    """3-D max pooling."""

    pooled = 3


class AdaptiveMaxPool2DBackward0(_GatherPool):
    """Adaptive max pooling over (H, W) (and over L, as a height-1 plane)."""

    pooled = 2

    def backward(self, m, g):
        refuse_empty_grad(g, f"adaptive_max_pool{self.pooled}d")
        return super().backward(m, g)


class AdaptiveMaxPool3DBackward0(AdaptiveMaxPool2DBackward0):
    """Adaptive max pooling over (D, H, W)."""

    pooled = 3


# ------------------------------------------------------------------ max unpooling
class _ScatterPool(Node):
    """out = zeros with x written at ``index`` (flat positions in the pooled trailing dims);
    dx = g read back there."""

    def forward(self, x, index, out_size):
        data = x._data
        self.shape, lead = data.shape, data.shape[:-self.pooled]
        self.index = index.reshape(lead + (int(np.prod(data.shape[-self.pooled:])),))
        self.out_size = int(np.prod(out_size))
        out = np.zeros(lead + (self.out_size,), dtype=data.dtype)
        np.put_along_axis(out, self.index, data.reshape(self.index.shape), -1)
        return out.reshape(lead + tuple(out_size))

    def backward(self, m, g):
        lead = self.shape[:-self.pooled]
        flat = m.reshape(g, lead + (self.out_size,))
        return (m.reshape(m.gather(flat, len(lead), self.index), self.shape),)


class MaxUnpool2DBackward0(_ScatterPool):
    """max_unpool2d (and max_unpool1d, as a width-1 plane)."""

    pooled = 2


class MaxUnpool3DBackward0(_ScatterPool):
    """max_unpool3d."""

    pooled = 3
