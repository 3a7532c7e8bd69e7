"""torch's bfloat16 normalization and convolution kernels, step by step: batch norm's training
forward and backward, group norm's backward, the slow (im2col) convolution's backward.

Like ``_bf16_grad``'s formulas these take float32 arrays holding bfloat16 values and round where
torch's kernels store a bfloat16 value; the backwards are registered in ``_opmath.FORMULAS``.
The convolution and group norm backwards serve float16 too (torch's Half kernels take the same
steps, measured); batch norm's float16 training takes the float kernel (normalization.py).
"""
import numpy as np

from ..autograd import _opmath
from . import _bf16
from ._bf16 import _F32, _needs
from ._bf16 import rounded as r


def group_norm(node, g, x, weight):
    """torch's group-norm backward kernel with bfloat16 input and parameters: it reads the
    mean and 1/std the forward stored in bfloat16, sums ds = sum g x and db = sum g per
    (sample, channel) in float32, and rounds dx, dw and db once."""
    saved = node._saved
    if len(saved) > 1 and saved[1] is not None and _opmath.source(saved[1]) is None:
        return None  # float32 parameters: torch's mixed kernel keeps float32 statistics
    n, c, groups = x.shape[0], x.shape[1], node.groups
    xs, gs = x.reshape(n, c, -1), g.reshape(n, c, -1)
    mean, rstd = _bf16.layer_norm_stats(x.reshape(n * groups, -1), node.eps)
    mean, rstd = r(mean).reshape(n, groups, 1), r(rstd).reshape(n, groups, 1)
    ds, db = (gs * xs).sum(-1), gs.sum(-1)
    gamma = np.ones(c, _F32) if weight is None else weight.reshape(c)
    dx = dw = None
    if _needs(node, 0):
        per_group = (n, groups, c // groups)
        ds_g = (ds * gamma).reshape(per_group).sum(-1, keepdims=True)
        db_g = (db * gamma).reshape(per_group).sum(-1, keepdims=True)
        scale = _F32(1.0 / (x.size // n // groups))
        b = (db_g * mean - ds_g) * rstd * rstd * rstd * scale
        shift = -b * mean - db_g * rstd * scale
        coefficient = (rstd * gamma.reshape(groups, -1)).reshape(n, c, 1)
        dx = coefficient * gs + np.repeat(b, c // groups, 1) * xs + \
            np.repeat(shift, c // groups, 1)
        dx = dx.reshape(x.shape)
    if len(node.next_functions) > 1 and _needs(node, 1):
        dw = ((ds - db * np.repeat(mean[..., 0], c // groups, 1)) *
              np.repeat(rstd[..., 0], c // groups, 1)).sum(0)
    dbias = db.sum(0) if len(node.next_functions) > 2 and _needs(node, 2) else None
    return dx, dw, dbias


def batch_norm_train(node, x, weight, bias):
    """torch's batch norm in training for bfloat16 input, parameters and running statistics
    (None where another dtype takes the float kernel): the channel mean and the sum of squared
    deviations stored in bfloat16, 1/std from them rounded, y = x alpha + beta in float32
    (alpha = invstd w, beta = b - mean alpha); the variances are bfloat16 quotients, the
    running statistics updated in bfloat16 steps with the momentum as a bfloat16 value."""
    running = [t for t in node.running if t is not None]
    if not node.training or any(t._data.dtype.kind != "V" for t in running) or any(
            p is not None and _opmath.source(p) is None for p in (weight, bias)) or \
            node.half:  # (float16, a strided input: torch's other kernels, ``half``)
        return None
    data, shape = x._data, node.affine_shape
    count = data.size // data.shape[1]
    mean = r(data.sum(node.axes) / _F32(count))
    centered = data - mean.reshape(shape)
    squares = r((centered * centered).sum(node.axes))
    with np.errstate(divide="ignore", invalid="ignore"):  # bfloat16 divisions by counts
        invstd = r(_F32(1) / np.sqrt(r(squares / _F32(count)) + _F32(node.eps)))
        _update_running(node, mean, r(squares / _F32(count - 1)))
    node.low_stats = (mean.reshape(shape), invstd.reshape(shape))
    alpha = invstd if weight is None else invstd * weight._data
    beta = -mean * alpha if bias is None else bias._data - mean * alpha
    return data * alpha.reshape(shape) + beta.reshape(shape)


def _update_running(node, mean, unbiased):
    momentum = r(_F32(node.momentum))
    keep = r(_F32(1) - momentum)
    running_mean, running_var = node.running
    with np.errstate(divide="ignore", invalid="ignore"):
        for buffer, new in ((running_mean, r(momentum * mean)), (running_var,
                                                                 momentum * unbiased)):
            if buffer is not None:
                old = buffer._data.astype(_F32)
                buffer._data[...] = (new + r(keep * old)).astype(buffer._data.dtype)
                buffer._vc[0] += 1
    node.running = None


def batch_norm(node, g, x, weight):
    """torch's bfloat16 batch-norm backward (training): with s = sum g and d = sum (x - mean) g
    per channel (float32), dx = (g - s / N - (x - mean) d invstd^2 / N) invstd w,
    dw = d invstd, db = s."""
    stats = node.__dict__.get("low_stats")
    if stats is None:
        return None
    if node.__dict__.get("half") == "steps":
        return _batch_norm_steps(node, g, x, weight, *stats)
    mean, invstd = stats
    count = g.size // g.shape[1]
    total = g.sum(node.axes, keepdims=True)
    dot = ((x - mean) * g).sum(node.axes, keepdims=True)
    dx = dw = db = None
    if _needs(node, 0):
        k = dot * invstd * invstd / _F32(count)
        scale = invstd if weight is None else invstd * weight.reshape(node.affine_shape)
        dx = ((g - total / _F32(count)) - (x - mean) * k) * scale
    if len(node.next_functions) > 1 and _needs(node, 1):
        dw = (dot * invstd).reshape(-1)
    if len(node.next_functions) > 2 and _needs(node, 2):
        db = total.reshape(-1)
    return dx, dw, db


def _batch_norm_steps(node, g, x, weight, mean, invstd):
    """torch's strided float16 batch-norm backward (its element-wise kernel): each Half op
    rounded, the channel sums in float32 (unrounded): d = sum (x - mean) g, k = d invstd
    invstd / N, dx = ((g - (sum g) / N) - (x - mean) k) invstd w; dw = d invstd, db = sum g
    (measured)."""
    count = _F32(g.size // g.shape[1])
    centered = r(x - mean)
    dot = r(centered * g).sum(node.axes, keepdims=True, dtype=_F32)  # (float32)
    total = g.sum(node.axes, keepdims=True, dtype=_F32)
    dx = dw = db = None
    if _needs(node, 0):
        k = r(r(r(r(dot) * invstd) * invstd) / count)
        dx = r(r(r(g - r(total / count)) - r(centered * k)) * invstd)
        if weight is not None:
            dx = r(dx * weight.reshape(node.affine_shape))
    if len(node.next_functions) > 1 and _needs(node, 1):
        dw = r(dot * invstd).reshape(-1)
    if len(node.next_functions) > 2 and _needs(node, 2):
        db = total.reshape(-1)
    return dx, dw, db


def convolution(node, g, x, w):
    """torch's slow (im2col) bfloat16 convolution backward, groups 1: per sample, the columns
    W^T g rounded, then folded into the input gradient in bfloat16 additions, kernel offset by
    kernel offset; the weight gradient g cols^T rounded and added up sample by sample in
    bfloat16; the bias gradient likewise from each sample's rounded sums (2-D)."""
    geom = node.geom
    if node.transposed or geom.lifted or geom.groups != 1:
        return None
    if geom.one_d:
        g, x, w = g[:, :, None, :], x[:, :, None, :], w[:, :, None, :]
    dx = dw = db = None
    if _needs(node, 0):
        dx = _conv_input_grad(g, w, x.shape, geom)
    if _needs(node, 1):
        dw = np.zeros((w.shape[0], w[0].size), _F32)
        for sample, cols in zip(g, _conv_windows(x, w.shape[2:], g.shape[2:], geom)):
            dw = r(dw + sample.reshape(len(sample), -1) @ cols.reshape(dw.shape[1], -1).T)
        dw = dw.reshape(w.shape)
    if len(node.next_functions) > 2 and _needs(node, 2):
        db = g.sum((0, 2, 3))  # a 1-D convolution: torch sums the gradient once
        if not geom.one_d:
            db = np.zeros(g.shape[1], _F32)
            for sample in g:  # each sample's sum rounded, then added in bfloat16
                db = r(db + r(sample.reshape(len(sample), -1).sum(1)))
    if geom.one_d:
        dx, dw = (None if a is None else a[:, :, 0, :] for a in (dx, dw))
    return dx, dw, db


def conv_columns_folded(x, w, out_shape, geom):
    """A transposed convolution's output as torch's slow float16 kernel forms it: the
    columns W^T x rounded, folded in rounded additions (the input gradient's steps)."""
    return _conv_input_grad(x, w, out_shape, geom)


def _conv_windows(x, kernel, out, geom):
    """(N, C, kh, kw, OH, OW) views of the padded input: the im2col columns."""
    (pt, pb), (pl, pr) = geom.pad
    padded = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    (dh, dw), (sh, sw) = geom.dilation, geom.stride
    return np.stack([np.stack([padded[:, :, i * dh:i * dh + sh * (out[0] - 1) + 1:sh,
                                      j * dw:j * dw + sw * (out[1] - 1) + 1:sw]
                               for j in range(kernel[1])], 2) for i in range(kernel[0])], 2)


def _conv_input_grad(g, w, x_shape, geom):
    (pt, pb), (pl, pr) = geom.pad
    (dh, dw), (sh, sw) = geom.dilation, geom.stride
    n, (kh, kw), (oh, ow) = g.shape[0], w.shape[2:], g.shape[2:]
    cols = r(np.einsum("ok,nol->nkl", w.reshape(w.shape[0], -1), g.reshape(n, g.shape[1], -1)))
    cols = cols.reshape((n,) + w.shape[1:] + (oh, ow))
    grad = np.zeros(x_shape[:2] + (x_shape[2] + pt + pb, x_shape[3] + pl + pr), _F32)
    for i in range(kh):
        for j in range(kw):
            part = (Ellipsis, slice(i * dh, i * dh + sh * (oh - 1) + 1, sh),
                    slice(j * dw, j * dw + sw * (ow - 1) + 1, sw))
            grad[part] = r(grad[part] + cols[:, :, i, j])
    return grad[:, :, pt:pt + x_shape[2], pl:pl + x_shape[3]]


_opmath.FORMULAS.update({"NativeGroupNormBackward0": group_norm,
                         "NativeBatchNormBackward0": batch_norm,
                         "ConvolutionBackward0": convolution})
