"""Convolution primitives (conv1d/2d, transposed): im2col windows and one GEMM per pass.

A convolution y = C(x, w) is linear in x and in w, so its three passes — the forward C, the input
gradient C_x^T(g; w) and the weight gradient C_w^T(x; g) — are each other's derivatives. Each pass
is one node here, and every backward calls the other passes, so create_graph works for all orders.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from .. import _memory_format, _meta
from ..autograd import _opmath
from ..autograd.grad_mode import _state as _grad_state
from ..autograd.graph import Node
from . import _bf16_nn, _workspace
from .normalization import _channel_total, _spread


class Geometry:
    """Stride, dilation, padding ((top, bottom), (left, right)) and groups of a 2-D convolution;
    ``one_d`` marks a 1-D convolution run as 2-D with height 1."""

    __slots__ = ("stride", "dilation", "pad", "groups", "one_d")
    lifted = False  # True for conv3d.Geometry3d, whose passes run these 2-D ones

    def __init__(self, stride, dilation, pad, groups, one_d=False):
        self.stride, self.dilation, self.pad = stride, dilation, pad
        self.groups, self.one_d = groups, one_d

    def out_size(self, in_hw, kernel_hw):
        return tuple((n + p0 + p1 - d * (k - 1) - 1) // s + 1 for n, k, s, d, (p0, p1) in
                     zip(in_hw, kernel_hw, self.stride, self.dilation, self.pad))


def _out_shape(x_shape, w_shape, geom):
    """The output shape of C(x, w) (for meta tensors: computed without running it)."""
    if geom.lifted:  # conv3d: the depth, then each plane
        depth = geom._out_depth(x_shape[2], w_shape[2])
        return (x_shape[0], w_shape[0], depth) + _out_shape(
            x_shape[:2] + x_shape[3:], w_shape[:2] + w_shape[3:], geom.plane)[2:]
    one = (1,) if geom.one_d else ()
    hw = geom.out_size(one + tuple(x_shape[2:]), one + tuple(w_shape[2:]))
    return (x_shape[0], w_shape[0]) + tuple(hw[len(one):])


def _as4d(a, geom):
    return a[:, :, None, :] if geom.one_d else a


def _back(a, geom):
    return a[:, :, 0, :] if geom.one_d else a


def _pad(x, pad):
    (pt, pb), (pl, pr) = pad
    if not (pt or pb or pl or pr):
        return x
    n, c, h, w = x.shape
    out = np.zeros((n, c, h + pt + pb, w + pl + pr), dtype=x.dtype)
    _copy_runs(out[:, :, pt:pt + h, pl:pl + w], x)
    return out


def _copy_runs(dst, src):
    """dst[...] = src (same shape and dtype), each last-axis run copied as one opaque item
    where the runs are short and contiguous in both: NumPy's copy pays per run, and as items
    runs of 4-32 float32 copied 2-7x faster (1 thread; from ~64 elements on, no faster)."""
    run = src.shape[-1]
    if not 0 < run < _SHORT_RUN or src.strides[-1] != src.itemsize or \
            dst.strides[-1] != dst.itemsize or dst.dtype != src.dtype or \
            dst.shape != src.shape or src.dtype.hasobject:
        dst[...] = src
        return
    item = np.dtype((np.void, run * src.itemsize))
    dst.view(np.uint8).view(item)[..., 0] = src.view(np.uint8).view(item)[..., 0]


_SHORT_RUN = 48


def _windows(xp, kernel_hw, out_hw, geom):
    """A strided view (N, C, kh, kw, OH, OW) of the padded input's receptive fields."""
    sn, sc, sh, sw = xp.strides
    (dh, dw), (th, tw) = geom.dilation, geom.stride
    shape = xp.shape[:2] + tuple(kernel_hw) + tuple(out_hw)
    return as_strided(xp, shape, (sn, sc, sh * dh, sw * dw, sh * th, sw * tw), writeable=False)


def _im2col(x, kernel_hw, geom):
    """Columns of x (N, C, H, W) for the GEMMs: (cols, OW, positions). Channel-major
    (G, Cg*kh*kw, N*OH*OW), so one GEMM serves all; or, where the forward GEMM runs positions
    first (groups 1, see _positions_first), positions-major (1, N*OH*OW, kh*kw*C) copied from
    a channels-last input, whose runs of kw*C contiguous elements copy 1.4-3.4x faster than
    the channel-major OW-long runs on the CIFAR/LeNet layers. (Stride-1 columns over the padded
    width, which copy longer runs, measured ~10% slower for forward + weight gradient on those
    shapes: the GEMMs then also compute the discarded Wp - OW columns.)"""
    out_hw = geom.out_size(x.shape[2:], kernel_hw)
    n, c = x.shape[:2]
    if geom.groups == 1 and _positions_first(c * kernel_hw[0] * kernel_hw[1], out_hw):
        return _im2col_positions(x, kernel_hw, out_hw, geom), out_hw[1], True
    cols = _workspace.take((c,) + tuple(kernel_hw) + (n,) + tuple(out_hw), x.dtype)
    if geom.stride[0] == 1:
        _copy_rows_shifted(cols, _pad(x, geom.pad), geom)
    else:
        cols[...] = _windows(_pad(x, geom.pad), kernel_hw, out_hw, geom).transpose(
            1, 2, 3, 0, 4, 5)
    return cols.reshape(geom.groups, -1, n * out_hw[0] * out_hw[1]), out_hw[1], False


def _copy_rows_shifted(cols, xp, geom):
    """Channel-major columns (C, kh, kw, N, OH, OW) of a stride-1-high convolution in two
    copies: first each kernel column's shift of every padded row, (C, kw, N, Hp, OW); then each
    (c, i, j, n) block of OH rows of that, OH*OW contiguous elements, where one copy of the
    windows runs OW elements at a time. NumPy's copy costs mostly per run: 0.18 -> 0.11 ms on
    LeNet's first layer, 0.30 -> 0.15 ms on its second's shape (1 thread)."""
    c, kh, kw, n, oh, ow = cols.shape
    (dh, dw), tw = geom.dilation, geom.stride[1]
    sn, sc, sh, sw = xp.strides
    shifted_shape = (c, kw, n, xp.shape[2], ow)
    shifted = _workspace.take(shifted_shape, xp.dtype)
    _copy_runs(shifted, as_strided(xp, shifted_shape, (sc, sw * dw, sn, sh, sw * tw),
                                   writeable=False))
    rc, rj, rn, rh, rw = shifted.strides
    cols[...] = as_strided(shifted, cols.shape, (rc, rh * dh, rj, rn, rh, rw), writeable=False)
    _workspace.give(shifted)


def _im2col_positions(x, kernel_hw, out_hw, geom):
    """(1, N*OH*OW, kh*kw*C) columns: each output position's receptive field, channels last."""
    n, c, h, w = x.shape
    (pt, pb), (pl, pr) = geom.pad
    padded = pt or pb or pl or pr
    xp = (np.zeros if padded else np.empty)((n, h + pt + pb, w + pl + pr, c), dtype=x.dtype)
    xp[:, pt:pt + h, pl:pl + w] = x.transpose(0, 2, 3, 1)
    sn, sh, sw, sc = xp.strides
    (dh, dw), (th, tw) = geom.dilation, geom.stride
    (kh, kw) = kernel_hw
    shape = (n,) + tuple(out_hw) + (kh, kw * c)  # a window row: kw*C adjacent where dw == 1
    strides = (sn, sh * th, sw * tw, sh * dh) + ((sc,) if dw == 1 else (sw * dw, sc))
    win = as_strided(xp, shape if dw == 1 else shape[:4] + (kw, c), strides, writeable=False)
    cols = _workspace.take(shape, x.dtype)
    _copy_runs(cols if dw == 1 else cols.reshape(win.shape), win)
    return cols.reshape(1, n * out_hw[0] * out_hw[1], -1)


def _release(cols):
    """Hand im2col columns back to the workspace."""
    _workspace.give(cols.base if cols.base is not None else cols)


def _weight_positions(w):
    """(O, C, kh, kw) weight as (kh*kw*C, O), the right operand of positions-major columns."""
    return w.transpose(2, 3, 1, 0).reshape(-1, w.shape[0])


def _positions_first(k, out_hw):
    """Whether to run the forward GEMM as cols^T @ w^T, (N*OH*OW, O) per group: BLAS runs that
    orientation 20-30% faster for long columns (K = Cg*kh*kw >= 100) on small output planes;
    with large planes the reordering copy from (N, OH, OW, O) costs more than it saves
    (measured on 1 thread for the CIFAR/LeNet layers and 64-128 channel variants)."""
    return k >= 100 and out_hw[0] * out_hw[1] <= 256


def _per_sample(out_hw):
    """Whether to run one GEMM per sample on large output planes (OH*OW >= 512, e.g. a first
    layer's few channels): its result is already (N, O, OH*OW), with no reordering copy of the
    output (forward) or of the gradient (weight gradient); measured 1.5-2x faster than one GEMM
    plus that copy on the CIFAR/LeNet first layers (1 thread)."""
    return out_hw[0] * out_hw[1] >= 512


def _sample_major(cols, n):
    """(K, N*OH*OW) columns of one group as per-sample (N, K, OH*OW) views (no copy)."""
    return cols.reshape(cols.shape[0], n, -1).transpose(1, 0, 2)


def _crop_rows(y, o, n, out_hw, width, bias=None, positions_first=False):
    """GEMM result (G, O/G, N*OH*width), or (G, N*OH*width, O/G) when ``positions_first``,
    -> (N, O, OH, OW), dropping full-width extras; the bias, if any, is added in the same pass
    as the reordering copy."""
    g, (oh, ow) = y.shape[0], out_hw
    if positions_first:
        y = y.reshape(g, n, oh, width, o // g).transpose(1, 0, 4, 2, 3)
    else:
        y = y.reshape(g, o // g, n, oh, width).transpose(2, 0, 1, 3, 4)
    out = np.empty((n, o, oh, ow), dtype=y.dtype)
    dst = out.reshape(n, g, o // g, oh, ow)
    # positions first, the copy transposes: a block of rows at a time keeps the rows it reads
    # in L1 (0.36 -> 0.26 ms on the CIFAR net's 32x64x16x16 output, 1 thread)
    step = max(1, _TRANSPOSE_POSITIONS // width) if positions_first else oh
    for r in range(0, oh, step):
        src, part = y[..., r:r + step, :ow], dst[..., r:r + step, :]
        if bias is None:
            np.copyto(part, src)
        else:
            np.add(src, bias.reshape(1, g, o // g, 1, 1), out=part)
    return out


_TRANSPOSE_POSITIONS = 64  # output positions per block of _crop_rows' transposing copy


def conv_forward(x, w, geom, cols=None, bias=None):
    """y = C(x, w) (+ bias): x (N, C, H, W), w (O, C/groups, kh, kw) -> (N, O, OH, OW)."""
    if _meta.is_meta(x) or _meta.is_meta(w):
        return _meta.placeholder(_out_shape(x.shape, w.shape, geom), x.dtype)
    if geom.lifted:
        return geom.forward(x, w, bias)
    x, w = _as4d(x, geom), _as4d(w, geom)
    n, o, g = x.shape[0], w.shape[0], geom.groups
    owned = cols is None
    cols, width, positions = _im2col(x, w.shape[2:], geom) if owned else cols
    out_hw = geom.out_size(x.shape[2:], w.shape[2:])
    wg = w.reshape(g, o // g, -1)
    flip = positions or _positions_first(wg.shape[2], out_hw)
    if g == 1 and not flip and _per_sample(out_hw):
        y = np.matmul(wg[0], _sample_major(cols[0], n))  # (N, O, OH*OW): already in place
        if bias is not None:
            y += _spread(bias.reshape(1, o, 1), y)
        y = y.reshape((n, o) + tuple(out_hw))
    elif positions:
        y = np.matmul(cols[0], _weight_positions(w))[None]  # (1, N*OH*OW, O)
    elif flip:
        y = np.matmul(cols.transpose(0, 2, 1), wg.transpose(0, 2, 1))  # (G, N*OH*width, O/G)
    else:
        y = np.matmul(wg, cols)  # (G, O/G, N*OH*width)
    if owned:
        _release(cols)
    if y.ndim == 3:
        y = _crop_rows(y, o, n, out_hw, width, bias, flip)
    return _back(y, geom)


def _grad_as_rows(grad, groups):
    """(N, O, OH, OW) -> (G, O/G, N*OH*OW), the layout the GEMMs want."""
    n, o = grad.shape[:2]
    rows = np.ascontiguousarray(grad.reshape(n, o, -1).transpose(1, 0, 2))
    return rows.reshape(groups, o // groups, -1)


def conv_grad_input(grad, w, x_shape, geom):
    """C_x^T(grad; w): for stride 1 onto a small plane, the forward convolution of grad with the
    flipped kernel (_flipped_geometry); otherwise GEMM columns added back onto the (padded)
    input positions they came from (stride 1: _grad_input_full_width)."""
    if _meta.is_meta(grad) or _meta.is_meta(w):
        return _meta.placeholder(x_shape, grad.dtype)
    if geom.lifted:
        return geom.grad_input(grad, w, x_shape)
    grad, w = _as4d(grad, geom), _as4d(w, geom)
    x_shape = tuple(x_shape[:2]) + ((1,) if geom.one_d else ()) + tuple(x_shape[2:])
    flipped = _flipped_geometry(w.shape, x_shape[2:], geom)
    if flipped is not None:
        return _back(conv_forward(grad, _transposed_kernel(w, geom.groups), flipped), geom)
    if geom.stride == (1, 1):
        return _back(_grad_input_full_width(grad, w, x_shape, geom), geom)
    (pt, pb), (pl, pr) = geom.pad
    hp, wp = x_shape[2] + pt + pb, x_shape[3] + pl + pr
    g, (kh, kw), n, c = geom.groups, w.shape[2:], x_shape[0], x_shape[1]
    oh, ow = grad.shape[2:]
    wt = w.reshape(g, w.shape[0] // g, -1).transpose(0, 2, 1)  # (G, Cg*kh*kw, O/G)
    rows = _grad_as_rows(grad, g)
    cols = np.matmul(wt, rows, out=_workspace.take(wt.shape[:2] + rows.shape[2:], grad.dtype))
    xp = _scatter_strided(cols.reshape(c, kh, kw, n, oh, ow), hp, wp, geom)
    _workspace.give(cols)
    return _back(_unpad_planes(xp, geom.pad), geom)


def _unpad_planes(xp, pad):
    """(C, N, Hp, Wp) padded input planes -> (N, C, H, W) without the padding."""
    (pt, pb), (pl, pr) = pad
    hp, wp = xp.shape[2:]
    xp = xp[:, :, pt:hp - pb, pl:wp - pr].transpose(1, 0, 2, 3)
    out = np.empty(xp.shape, dtype=xp.dtype)
    _copy_runs(out, xp)
    return out


def _grad_input_full_width(grad, w, x_shape, geom):
    """C_x^T(grad; w) of a stride-1 convolution, (N, C, H, W), in two halves. Across the
    kernel's columns: the gradient's rows laid over the padded width (OW values, then Wp - OW =
    dw*(kw-1) zeros) and kw copies of them shifted right by j*dw, each one contiguous copy (a
    shifted row starts in its predecessor's zeros), so that one GEMM with K = O/G*kw sums over
    the kernel's columns. Across its rows: the kh results added onto the planes at row offsets
    i*dh. One GEMM with K = O/G and kh*kw scatter adds of OH*Wp-long runs instead measured (1
    thread) 4.1 -> 3.9 ms on the CIFAR net's 32->64 channels, 16x16, and 0.70 -> 0.56 ms on
    LeNet's 6->16 5x5 onto 12x12: the same flops, kw times fewer adds.

    Where the output has the input's size ("same" padding, pl a multiple of dw) the rows are
    the input's width instead: the GEMM skips the padding columns (2 of 18 on a 16-wide plane
    with 3x3 pad 1) that would be cropped, each shift is (j*dw - pl) with the columns it wraps
    into the next row zeroed, and the row adds land in the (N, C, H, W) result directly (no
    cropping copy): the same terms summed in the same order, though OpenBLAS rounds an element
    of a narrower GEMM differently now and then (ulp-level; CIFAR's 32->64 layer on 16x16:
    4.17 -> 3.57 ms, 1 thread)."""
    g, (kh, kw), (dh, dw) = geom.groups, w.shape[2:], geom.dilation
    n, o, oh, ow = grad.shape
    c, (h, wd), ((pt, pb), (pl, pr)) = x_shape[1], x_shape[2:], geom.pad
    same = (oh, ow) == (h, wd) and pl % dw == 0
    width = wd if same else wd + pl + pr  # each GEMM row: one input row, padded or not
    og, cg, run = o // g, c // g, oh * width
    shifted = _shifted_rows(grad, g, kw, width, pl // dw if same else 0, dw)
    kernel = w.reshape(g, og, cg, kh, kw).transpose(0, 2, 3, 1, 4).reshape(g, cg * kh, og * kw)
    part = np.matmul(kernel, shifted.reshape(g, og * kw, -1),
                     out=_workspace.take((g, cg * kh, n * run), grad.dtype))
    _workspace.give(shifted)
    rows = part.reshape(c, kh, n, oh, width)
    if same:
        out = np.zeros((n, c, h, wd), dtype=grad.dtype)
        planes = out.transpose(1, 0, 2, 3)
        for i in range(kh):  # input row y receives the kernel row i of output row y + pt - i*dh
            top = i * dh - pt
            lo, hi = max(0, top), min(h, oh + top)
            planes[:, :, lo:hi] += rows[:, i, :, lo - top:hi - top]
    else:
        flat = np.zeros((c, n, (h + pt + pb) * width), dtype=grad.dtype)
        for i in range(kh):
            start = i * dh * width
            flat[:, :, start:start + run] += rows[:, i].reshape(c, n, run)
        out = _unpad_planes(flat.reshape(c, n, h + pt + pb, width), geom.pad)
    _workspace.give(part)
    return out


def _shifted_rows(grad, g, kw, width, base, dw):
    """(G, O/G, kw, N*OH*width): the gradient's rows, each ``width`` long (OW values, zeros
    after), for kernel column ``base`` as they are and for column j shifted right by
    (j - base)*dw, the columns a shift carries past a row's end zeroed."""
    n, o, oh, ow = grad.shape
    og, run = o // g, oh * width
    shifted = _workspace.take((g, og, kw, n * run), grad.dtype)
    first = shifted[:, :, base].reshape(g, og, n, oh, width)
    first[..., ow:] = 0
    _copy_runs(first[..., :ow], grad.reshape(n, g, og, oh, ow).transpose(1, 2, 0, 3, 4))
    total = n * run
    for j in range(kw):
        shift, dst = (j - base) * dw, shifted[:, :, j]
        if abs(shift) >= total:
            dst[...] = 0
        elif shift > 0:
            dst[..., :shift] = 0
            dst[..., shift:] = shifted[:, :, base, :total - shift]
        elif shift < 0:
            dst[..., shift:] = 0
            dst[..., :shift] = shifted[:, :, base, -shift:]
        if shift and width == ow:  # no zeros after the values: a shift wraps into the next row
            wrapped = dst.reshape(g, og, n * oh, width)
            if shift > 0:
                wrapped[..., :shift] = 0
            else:
                wrapped[..., shift:] = 0
    return shifted


def _flipped_geometry(w_shape, in_hw, geom):
    """For a stride-1 convolution onto a small plane (H*W <= _FLIPPED_PLANE), the geometry
    under which C_x^T(g; w) is the forward C(g, w') with w' = _transposed_kernel(w): padding
    d*(k-1) - p on each side; else None (_grad_input_full_width). The full-width pass computes
    its GEMM over the padded width (25% wasted on an 8x8 plane, 50% on 4x4) and adds runs of
    OH*Wp elements; the forward's im2col GEMM has neither. Measured on 1 thread, (N=32, 3x3,
    pad 1), against the full-width pass with kh*kw scatter adds: 64->64 channels on 8x8 2.37
    -> 1.51 ms, 128->128 on 8x8 9.2 -> 6.5, 64->64 on 4x4 0.81 -> 0.42; on 16x16 planes mixed
    (64->64 9.0 -> 8.8, 32->64 4.1 -> 5.5), and LeNet's 6->16 5x5 onto 12x12 0.69 -> 1.8 ms:
    larger planes keep the full-width pass."""
    if geom.stride != (1, 1) or in_hw[0] * in_hw[1] > _FLIPPED_PLANE:
        return None
    pad = tuple((d * (k - 1) - p0, d * (k - 1) - p1) for k, d, (p0, p1) in
                zip(w_shape[2:], geom.dilation, geom.pad))
    if min(min(p) for p in pad) < 0:  # a padding wider than the kernel's reach: a crop
        return None
    return Geometry((1, 1), geom.dilation, pad, geom.groups)


_FLIPPED_PLANE = 64


def _transposed_kernel(w, groups):
    """(O, C/G, kh, kw) -> (C, O/G, kh, kw): each group's input and output channels swapped,
    the kernel flipped in both spatial dims (the adjoint's kernel for stride 1)."""
    o, cg, kh, kw = w.shape
    t = w.reshape(groups, o // groups, cg, kh, kw).transpose(0, 2, 1, 3, 4)[..., ::-1, ::-1]
    return np.ascontiguousarray(t).reshape(groups * cg, o // groups, kh, kw)


def _scatter_strided(cols, hp, wp, geom):
    c, kh, kw, n, oh, ow = cols.shape
    xp = np.zeros((c, n, hp, wp), dtype=cols.dtype)
    (dh, dw), (sh, sw) = geom.dilation, geom.stride
    for i in range(kh):
        for j in range(kw):
            xp[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
               j * dw:j * dw + sw * (ow - 1) + 1:sw] += cols[:, i, j]
    return xp


def conv_grad_weight(x, grad, w_shape, geom, cols=None):
    """C_w^T(x; grad): each weight's gradient is the sum of grad times the inputs it saw."""
    if _meta.is_meta(x) or _meta.is_meta(grad):
        return _meta.placeholder(w_shape, grad.dtype)
    if geom.lifted:
        return geom.grad_weight(x, grad, w_shape)
    x, grad = _as4d(x, geom), _as4d(grad, geom)
    kernel_hw = (1,) + tuple(w_shape[2:]) if geom.one_d else tuple(w_shape[2:])
    cols, width, positions = cols if cols is not None else _im2col(x, kernel_hw, geom)
    n, o = grad.shape[:2]
    if geom.groups == 1 and width == grad.shape[3] and _per_sample(grad.shape[2:]):
        per = _sample_major(cols[0], n).transpose(0, 2, 1)  # (N, OH*OW, K)
        gw = np.matmul(grad.reshape(n, o, -1), per).sum(0)  # sum over samples of (O, K)
        _release(cols)
        return gw.reshape(w_shape)
    rows = _grad_as_rows(grad, geom.groups)
    # (G, Cg*kh*kw, O/G): BLAS runs this orientation about twice as fast as rows @ cols^T
    gw = np.matmul(cols.transpose(0, 2, 1) if positions else cols, rows.transpose(0, 2, 1))
    _release(cols)
    if positions:  # rows (kh, kw, C) -> (O, C, kh, kw)
        shape4 = (o,) + tuple(kernel_hw) + (x.shape[1],)
        return np.ascontiguousarray(gw[0].T.reshape(shape4).transpose(0, 3, 1, 2)).reshape(w_shape)
    return np.ascontiguousarray(gw.transpose(0, 2, 1)).reshape(w_shape)


# ------------------------------------------------------------------ the three nodes
def _forward(m, x, w, geom):
    if m.is_graph:
        return ConvolutionBackward0.apply(x, w, None, geom=geom)
    return conv_forward(x, w, geom)


def _grad_input(m, grad, w, x_shape, geom):
    if m.is_graph:
        return _ConvInputGrad.apply(grad, w, x_shape=x_shape, geom=geom)
    return conv_grad_input(grad, w, x_shape, geom)


def _grad_weight(m, x, grad, w_shape, geom):
    if m.is_graph:
        return _ConvWeightGrad.apply(x, grad, w_shape=w_shape, geom=geom)
    return conv_grad_weight(x, grad, w_shape, geom)


def _bias_grad(m, grad):
    if m.is_graph:
        return m.sum(grad, (0,) + tuple(range(2, grad.ndim)))
    return _channel_total(grad).reshape(-1)


_CACHE_LIMIT = 32 << 20  # bytes of im2col columns kept from forward for the weight gradient


class ConvolutionBackward0(Node):
    """y = C(x, w) + b, or for a transposed convolution y = C_x^T(x; w) + b."""

    def forward(self, x, w, b, geom, transposed=False, out_shape=None):
        self.geom, self.transposed = geom, transposed
        self.x_shape, self.w_shape = x._data.shape, w._data.shape
        self._cols = None
        bias = None if b is None else b._data
        if x._data.size == 0:  # an empty batch: an empty output, zero gradients
            self.save(x, w)
            return self._empty(x._data, w._data, bias, out_shape)
        if _meta.is_meta(x._data) or _meta.is_meta(w._data):
            self.save(x, w)  # (Node.apply checks that the inputs share a device)
            if transposed:
                return conv_grad_input(x._data, w._data, out_shape, geom)
            return conv_forward(x._data, w._data, geom)
        if transposed:
            if _opmath.source(x) == np.float16 and geom.groups == 1 and not geom.lifted and \
                    not geom.one_d:  # torch's slow kernel: Half columns, folded in Half adds
                y = _bf16_nn.conv_columns_folded(x._data, w._data, out_shape, geom)
            else:
                y = conv_grad_input(x._data, w._data, out_shape, geom)
            if bias is not None:
                y += bias.reshape((-1,) + (1,) * (y.ndim - 2))
        elif w.requires_grad and _grad_state.enabled and not geom.lifted:
            cols = _im2col(_as4d(x._data, geom), _as4d(w._data, geom).shape[2:], geom)
            y = conv_forward(x._data, w._data, geom, cols, bias)
            if cols[0].nbytes <= _CACHE_LIMIT:
                self._cols = cols  # reused by the weight gradient
            else:  # kh*kw times the input: recompute in backward rather than hold it
                _release(cols[0])
        else:
            y = conv_forward(x._data, w._data, geom, bias=bias)
        self.save(x, w)
        return _memory_format.follow(y, x._data, w._data)  # channels-last in: channels-last out

    def _empty(self, x, w, bias, out_shape):
        """The output of an empty batch: its shape from a one-sample zero input's."""
        one = np.zeros((1,) + x.shape[1:], x.dtype)
        if self.transposed:
            y = conv_grad_input(one, w, (1,) + tuple(out_shape[1:]), self.geom)
        else:
            y = conv_forward(one, w, self.geom, bias=bias)
        return np.zeros((0,) + y.shape[1:], y.dtype)

    def backward(self, m, g, x, w):
        need = [nx is not None for nx, _ in self.next_functions]
        if 0 in self.x_shape:  # an empty batch: nothing reached the weights
            return (m.zeros_like(x) if need[0] else None, m.zeros_like(w) if need[1] else None,
                    _bias_grad(m, g) if need[2] else None)
        geom, gx, gw = self.geom, None, None
        if self.transposed:
            gx = _forward(m, g, w, geom) if need[0] else None
            gw = _grad_weight(m, g, x, self.w_shape, geom) if need[1] else None
        else:
            gx = _grad_input(m, g, w, self.x_shape, geom) if need[0] else None
            if need[1]:
                gw = (conv_grad_weight(x, g, self.w_shape, geom, self._cols)
                      if not m.is_graph else _grad_weight(m, x, g, self.w_shape, geom))
        self._cols = None
        return gx, gw, (_bias_grad(m, g) if need[2] else None)


class _ConvInputGrad(Node):
    """out = C_x^T(g; w);  d/dg = C(v, w), d/dw = C_w^T(v; g)."""

    def forward(self, g, w, x_shape, geom):
        self.geom, self.w_shape = geom, w._data.shape
        self.save(g, w)
        return conv_grad_input(g._data, w._data, x_shape, geom)

    def backward(self, m, v, g, w):
        need = [nx is not None for nx, _ in self.next_functions]
        dg = _forward(m, v, w, self.geom) if need[0] else None
        dw = _grad_weight(m, v, g, self.w_shape, self.geom) if need[1] else None
        return dg, dw


class _ConvWeightGrad(Node):
    """out = C_w^T(x; g);  d/dx = C_x^T(g; v), d/dg = C(x, v)."""

    def forward(self, x, g, w_shape, geom):
        self.geom, self.x_shape = geom, x._data.shape
        self.save(x, g)
        return conv_grad_weight(x._data, g._data, w_shape, geom)

    def backward(self, m, v, x, g):
        need = [nx is not None for nx, _ in self.next_functions]
        dx = _grad_input(m, g, v, self.x_shape, self.geom) if need[0] else None
        dg = _forward(m, x, v, self.geom) if need[1] else None
        return dx, dg
