"""Pooling primitives (max with indices, average, adaptive average) over the last two dims.

Each pool is linear once its choice of elements is fixed, so forward and gradient are a pair of
nodes that differentiate into each other (create_graph works). Work is a loop over the kh*kw
kernel offsets, each a strided slice of the whole batch: no window copies.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import _memory_format, _meta
from .._tensor import Tensor
from ..autograd import _opmath
from ..autograd._math import array_math
from ..autograd.graph import Node
from . import _bf16_grad, _parallel
from .conv import _copy_runs


class PoolGeometry:
    """kernel, stride, padding, dilation and output size of a 2-D pool over (..., H, W)."""

    __slots__ = ("kernel", "stride", "padding", "dilation", "in_hw", "out_hw", "padded_hw")

    def __init__(self, in_hw, kernel, stride, padding, dilation, ceil_mode):
        self.kernel, self.stride, self.padding, self.dilation = kernel, stride, padding, dilation
        self.in_hw = tuple(in_hw)
        self.out_hw = tuple(_out_len(n, k, s, p, d, ceil_mode) for n, k, s, p, d in
                            zip(in_hw, kernel, stride, padding, dilation))
        # padded extent covering every window (ceil_mode windows may run past the padding)
        self.padded_hw = tuple(max(n + 2 * p, (o - 1) * s + d * (k - 1) + 1) for n, k, s, p, d, o
                               in zip(in_hw, kernel, stride, padding, dilation, self.out_hw))

    def offsets(self):
        """(offset number, row slice, column slice) of each kernel position in the padded input."""
        (kh, kw), (sh, sw), (dh, dw), (oh, ow) = (self.kernel, self.stride, self.dilation,
                                                  self.out_hw)
        for i in range(kh):
            for j in range(kw):
                yield (i * kw + j, slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
                       slice(j * dw, j * dw + sw * (ow - 1) + 1, sw))


def _out_len(n, k, s, p, d, ceil_mode):
    span = n + 2 * p - d * (k - 1) - 1
    out = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= n + p:  # the last window must start inside the input
        out -= 1
    return out


def _pad(x, geom, value):
    (ph, pw), (h, w) = geom.padding, geom.in_hw
    if geom.padded_hw == (h, w):
        return x
    out = np.full(x.shape[:-2] + geom.padded_hw, value, dtype=x.dtype)
    out[..., ph:ph + h, pw:pw + w] = x
    return out


def _unpad(xp, geom):
    (ph, pw), (h, w) = geom.padding, geom.in_hw
    if geom.padded_hw == (h, w):
        return xp
    return np.ascontiguousarray(xp[..., ph:ph + h, pw:pw + w])


# ------------------------------------------------------------------ max pooling
def max_pool_forward(x, geom):
    """(values, arg): arg holds, per output, the kernel offset i*kw + j of its maximum.

    Max is separable: reduce each row's kernel columns first, then the kernel rows. Taking the
    first strict maximum (the last NaN) at each stage selects what torch's raster-order scan
    selects: the first maximum, or the last NaN where the window holds any.
    """
    if _meta.is_meta(x):  # no data: the geometry's output size alone
        shape = x.shape[:-2] + geom.out_hw
        return _meta.placeholder(shape, x.dtype), _meta.placeholder(shape, np.int16)
    if _is_2x2(geom):
        return _max_pool_2x2(x, geom.out_hw)
    xp = _pad(x, geom, -np.inf)
    (kh, kw), (sh, sw), (dh, dw) = geom.kernel, geom.stride, geom.dilation
    oh, ow = geom.out_hw
    col_views = [xp[..., j * dw:j * dw + sw * (ow - 1) + 1:sw] for j in range(kw)]
    col_best, col_arg = _first_max(col_views)  # (..., Hp, OW)
    rows = [slice(i * dh, i * dh + sh * (oh - 1) + 1, sh) for i in range(kh)]
    best, row_arg = _first_max([col_best[..., r, :] for r in rows])
    if kw == 1:
        return best, _off_padding(row_arg, best, geom)
    arg = np.zeros(best.shape, dtype=np.int16)
    for i, r in enumerate(rows):  # the column offset of the winning row, then i*kw + j
        _select(arg, row_arg == i, col_arg[..., r, :])
    arg += row_arg * kw
    return best, _off_padding(arg, best, geom)


def _off_padding(arg, best, geom):
    """``arg`` with a window whose valid elements are all -inf pointing at its first valid one,
    as torch's scan starts there (the -inf padding tied them and, coming first, won)."""
    if geom.padding == (0, 0) or not np.isneginf(best).any():  # (only a -inf max can be pad)
        return arg
    (_, kw), (sh, sw), (dh, dw), (ph, pw) = geom.kernel, geom.stride, geom.dilation, \
        geom.padding
    (oh, ow), (h, w) = geom.out_hw, geom.in_hw
    row = np.arange(oh)[:, None] * sh - ph + (arg // kw) * dh
    col = np.arange(ow)[None, :] * sw - pw + (arg % kw) * dw
    padded = (row < 0) | (row >= h) | (col < 0) | (col >= w)
    if not padded.any():
        return arg
    first_row = -(-np.maximum(ph - np.arange(oh) * sh, 0) // dh)  # first tap inside, per output
    first_col = -(-np.maximum(pw - np.arange(ow) * sw, 0) // dw)
    first = (first_row[:, None] * kw + first_col[None, :]).astype(arg.dtype)
    return np.where(padded, first, arg)


def _is_2x2(geom):
    return (geom.kernel == geom.stride == (2, 2) and geom.dilation == (1, 1)
            and geom.padded_hw == geom.in_hw)


def _max_pool_2x2(x, out_hw):
    """The same choice for disjoint 2x2 windows, on the four corners gathered by one strided copy
    so that every later pass runs on contiguous memory (passes over stride-2 views measured
    ~10x slower per element); the kernel offset 2*lower + right is formed by int8 arithmetic."""
    (a, b), (c, d) = _corners(x, out_hw)
    right_top, right_bottom = _later_wins(a, b), _later_wins(c, d)
    top, bottom = np.maximum(a, b), np.maximum(c, d)  # NaN propagates into the values
    lower = _later_wins(top, bottom)
    arg, step = right_top.view(np.int8), right_bottom.view(np.int8)
    step += 2
    step -= arg
    step *= lower  # arg = 2 + right_bottom where lower, else right_top
    arg += step
    return np.maximum(top, bottom, out=top), arg


def _corners(x, out_hw):
    """Contiguous (2, 2, ..., OH, OW) copy of x's disjoint 2x2 windows: [i, j] holds every
    window's element at row offset i, column offset j (odd trailing rows/columns left out)."""
    if x.dtype != np.float32 or not x.flags.c_contiguous or not x.size or \
            x.shape[-2:] != (2 * out_hw[0], 2 * out_hw[1]) or not np.little_endian:
        return np.ascontiguousarray(_window_view(x, out_hw))
    return _corners_by_halves(x, out_hw)


def _corners_by_halves(x, out_hw):
    """_corners of a C-contiguous float32 x tiled by its windows, in contiguous passes: the
    even and odd rows copied apart (runs of W), then each row's column pairs read as uint64
    and cast to uint32, which keeps the low half, the even column's bits (little-endian); the
    odd columns are the low halves of the same memory read from one float on. The strided
    copy ran ~4 ns a window row of OW elements: 0.30 -> 0.24 ms on the CIFAR net's
    (32, 32, 32, 32), 0.20 -> 0.13 ms on (32, 64, 16, 16) (1 thread)."""
    (oh, ow), lead = out_hw, x.shape[:-2]
    planes = x.size // (4 * oh * ow) * oh  # window rows: (all leading dims) * OH
    rows = np.empty((2, planes, 2 * ow), dtype=x.dtype)
    _copy_runs(rows, x.reshape(planes, 2, 2 * ow).transpose(1, 0, 2))
    out = np.empty((2, 2, planes * ow), dtype=x.dtype)
    bits = out.view(np.uint32)
    for i in range(2):
        flat = rows[i].reshape(-1)
        np.copyto(bits[i, 0], flat.view(np.uint64), casting="unsafe")
        np.copyto(bits[i, 1, :-1], flat[1:-1].view(np.uint64), casting="unsafe")
        bits[i, 1, -1] = flat[-1:].view(np.uint32)[0]
    return out.reshape((2, 2) + lead + (oh, ow))


def _window_view(x, out_hw):
    """Strided view (2, 2, ..., OH, OW) of x's disjoint 2x2 windows."""
    (oh, ow), lead, (sh, sw) = out_hw, x.shape[:-2], x.strides[-2:]
    view = as_strided(x, lead + (oh, 2, ow, 2), x.strides[:-2] + (2 * sh, sh, 2 * sw, sw),
                      writeable=False)
    n = len(lead)
    return view.transpose((n + 1, n + 3) + tuple(range(n)) + (n, n + 2))


def _later_wins(p, q):
    """Where q, later in raster order, replaces p in torch's scan for the maximum: q > p, or q
    is NaN (so the first maximum wins, and the last NaN where any)."""
    wins = np.greater(q, p)
    wins |= np.isnan(q)
    return wins


def _first_max(views):
    """Element-wise max over ``views`` and the index of the first view attaining it."""
    best = views[0].copy()
    arg = np.zeros(best.shape, dtype=np.int16)
    if len(views) == 1:
        return best, arg
    for k, v in enumerate(views[1:], 1):
        _select(arg, _later_wins(best, v), k)
        np.maximum(best, v, out=best)  # NaN propagates into the values, as torch
    return best, arg


def _select(arg, mask, value):
    """arg = value where mask, in place, by arithmetic (np.where/copyto are several times
    slower on these small-integer arrays)."""
    step = np.subtract(value, arg, dtype=np.int16)
    step *= mask
    arg += step


def max_pool_indices(arg, geom):
    """torch's int64 indices: each maximum's flat position in its input (H*W) plane."""
    kw = geom.kernel[1]
    (sh, sw), (dh, dw), (ph, pw) = geom.stride, geom.dilation, geom.padding
    oh, ow = geom.out_hw
    row = np.arange(oh)[:, None] * sh - ph + (arg // kw) * dh
    col = np.arange(ow)[None, :] * sw - pw + (arg % kw) * dw
    return (row * geom.in_hw[1] + col).astype(np.int64)


def max_pool_scatter(g, arg, geom):
    """Gradient of max pooling: each output's gradient goes to its maximum's position."""
    if _meta.is_meta(g):
        return _meta.placeholder(g.shape[:-2] + geom.in_hw, g.dtype)
    disjoint = all(s >= d * (k - 1) + 1 for s, d, k in zip(geom.stride, geom.dilation,
                                                            geom.kernel))
    # windows that tile the padded plane exactly write every position: no zero fill first
    tiled = disjoint and geom.dilation == (1, 1) and geom.kernel == geom.stride and \
        geom.padded_hw == tuple(o * s for o, s in zip(geom.out_hw, geom.stride))
    gp = (np.empty if tiled else np.zeros)(g.shape[:-2] + geom.padded_hw, dtype=g.dtype)
    offsets = list(geom.offsets())

    def scatter(lo, hi):  # planes lo..hi of the first axis: disjoint writes, any thread
        part, where, out = g[lo:hi], arg[lo:hi], gp[lo:hi]
        for k, rows, cols in offsets:
            if disjoint:  # each input position is in one window: write, no accumulation
                array_math.keep(where == k, part, out=out[..., rows, cols])
            else:
                out[..., rows, cols] += array_math.keep(where == k, part)
    _parallel.split(g.shape[0], scatter, gp.size)
    return _unpad(gp, geom)


def max_pool_gather(v, arg, geom):
    """The adjoint of max_pool_scatter: v read at each window's maximum position."""
    vp = _pad(v, geom, 0)
    out = np.zeros(arg.shape, dtype=v.dtype)
    for k, rows, cols in geom.offsets():
        out = array_math.where(arg == k, vp[..., rows, cols], out)
    return out


class MaxPool2DWithIndicesBackward0(Node):
    """out = max over each window;  dx = g routed to each window's maximum."""

    def forward(self, x, geom):
        self.geom = geom
        out, self.arg = max_pool_forward(x._data, geom)
        return _memory_format.follow(out, x._data)  # a channels-last input stays channels-last

    def backward(self, m, g):
        if m.is_graph:
            return (_MaxPoolScatter.apply(g, arg=self.arg, geom=self.geom),)
        return (max_pool_scatter(g, self.arg, self.geom),)


class _MaxPoolScatter(Node):
    """out = max-pool gradient of g;  dg = v gathered at the maxima."""

    def forward(self, g, arg, geom):
        self.arg, self.geom = arg, geom
        return max_pool_scatter(g._data, arg, geom)

    def backward(self, m, v):
        if m.is_graph:
            return (_MaxPoolGather.apply(v, arg=self.arg, geom=self.geom),)
        return (max_pool_gather(v, self.arg, self.geom),)


class _MaxPoolGather(Node):
    """out = v gathered at the maxima;  dv = g scattered back to them."""

    def forward(self, v, arg, geom):
        self.arg, self.geom = arg, geom
        return max_pool_gather(v._data, arg, geom)

    def backward(self, m, g):
        if m.is_graph:
            return (_MaxPoolScatter.apply(g, arg=self.arg, geom=self.geom),)
        return (max_pool_scatter(g, self.arg, self.geom),)


# ------------------------------------------------------------------ average pooling
def avg_divisor(geom, count_include_pad, divisor_override):
    """The (OH, OW) array each window's sum is divided by, following torch's counting."""
    if divisor_override:
        return np.full(geom.out_hw, float(divisor_override))
    sizes = []
    for n, k, s, p, o in zip(geom.in_hw, geom.kernel, geom.stride, geom.padding, geom.out_hw):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, n + p)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, n)
        sizes.append(end - start)
    return np.outer(sizes[0], sizes[1]).astype(np.float64)


def avg_pool_forward(x, geom, divisor):
    xp = _pad(x, geom, 0)
    out = None
    for _, rows, cols in geom.offsets():
        v = xp[..., rows, cols]
        out = v.copy() if out is None else np.add(out, v, out=out)
    if out.dtype.kind in "iu":  # torch's int64 kernel: C division, truncating toward zero
        d = divisor.astype(out.dtype)
        return np.where(out < 0, -(-out // d), out // d)
    out /= divisor.astype(x.dtype)
    return out


def avg_pool_adjoint(g, geom, divisor):
    share = g / divisor.astype(g.dtype)
    gp = np.zeros(g.shape[:-2] + geom.padded_hw, dtype=g.dtype)
    for _, rows, cols in geom.offsets():
        gp[..., rows, cols] += share
    return _unpad(gp, geom)


class AvgPool2DBackward0(Node):
    """out = window sums / divisor;  dx = g / divisor spread over each window."""

    def forward(self, x, geom, divisor):
        self.geom, self.divisor = geom, divisor
        return _memory_format.follow(avg_pool_forward(x._data, geom, divisor), x._data)

    def backward(self, m, g):
        if m.is_graph:
            return (_AvgPoolAdjoint.apply(g, geom=self.geom, divisor=self.divisor),)
        return (avg_pool_adjoint(g, self.geom, self.divisor),)


class _AvgPoolAdjoint(Node):
    """out = g / divisor spread over each window;  dg = average pool of v."""

    def forward(self, g, geom, divisor):
        self.geom, self.divisor = geom, divisor
        return avg_pool_adjoint(g._data, geom, divisor)

    def backward(self, m, v):
        if m.is_graph:
            return (AvgPool2DBackward0.apply(v, geom=self.geom, divisor=self.divisor),)
        return (avg_pool_forward(v, self.geom, self.divisor),)


# ------------------------------------------------------------------ adaptive average pooling
def adaptive_matrix(n_in, n_out, dtype):
    """(n_out, n_in) averaging matrix: row i covers [floor(i*n/o), ceil((i+1)*n/o))."""
    mat = np.zeros((n_out, n_in), dtype=dtype)
    for i in range(n_out):
        start, end = (i * n_in) // n_out, -(-((i + 1) * n_in) // n_out)
        mat[i, start:end] = 1.0 / (end - start)
    return mat


def refuse_empty_grad(g, name):
    """torch's backward of an adaptive pool refuses a gradient with an empty dim past the
    batch dim (an output pooled to size 0)."""
    shape = g.shape
    for d in range(1, len(shape)):
        if shape[d] == 0:
            raise RuntimeError(f"{name}_backward(): Expected grad_output to have non-zero size "
                               f"for non-batch dimensions, but grad_output has sizes "
                               f"{list(shape)} with dimension {d} being empty")


class AdaptiveAvgPool2DBackward0(Node):
    """out = Ph @ x @ Pw^T with averaging matrices;  dx = Ph^T @ g @ Pw."""

    def forward(self, x, out_hw):
        data = x._data
        self.ph = adaptive_matrix(data.shape[-2], out_hw[0], data.dtype)
        self.pw = adaptive_matrix(data.shape[-1], out_hw[1], data.dtype)
        if _opmath.source(x) is not None:  # bfloat16: torch's sums divided by the window size
            return _bf16_grad.adaptive_avg_pool2d(data, self.ph, self.pw)
        return np.matmul(np.matmul(self.ph, data), self.pw.T)

    def backward(self, m, g):
        refuse_empty_grad(g, "adaptive_avg_pool2d")
        ph, pw = self.ph, self.pw
        if m.is_graph:
            ph, pw = Tensor._make(ph), Tensor._make(pw)
        return (m.matmul(m.matmul(m.mT(ph), g), pw),)
