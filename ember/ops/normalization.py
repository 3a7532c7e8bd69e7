"""Normalization primitives (batch, layer and group norm) sharing one backward formula.

Each normalizes x over some axes R (batch norm: all but channels; layer norm: the trailing
dims; group norm: each group's channels and positions), then applies a per-feature affine map:

    xhat = (x - mean_R x) * invstd,  y = xhat * w + b
    dx = invstd * (dxhat - mean_R dxhat - xhat * mean_R(dxhat * xhat)),  dxhat = g * w

Under create_graph, xhat and invstd are recomputed from x as tensors so the formula is
differentiable; otherwise the forward's arrays are reused.
"""
import math
import operator

import numpy as np

from .._memory_format import channels_last_or_contiguous, contiguous_result
from ..autograd import _opmath
from ..autograd._math import array_math
from ..autograd.graph import Node
from . import _bf16, _bf16_nn, _parallel, _rowsum


def _moments(m, xs, axes, eps, total=None, layout=None):
    """(x - mean, invstd, mean, var) of xs over ``axes`` (biased variance, as in normalization).
    ``total(a, b)`` sums a (b None) or a*b over ``axes``, kept; by default m.sum. ``layout(a,
    x)`` lays the mean out for the full-size subtraction (batch norm: _spread)."""
    total = total or (lambda a, b: m.sum(a if b is None else a * b, axes, True))
    count = math.prod(xs.shape[a] for a in axes)
    mean = total(xs, None) / count
    centered = xs - (mean if layout is None else layout(mean, xs))
    var = total(centered, centered) / count
    return centered, (var + eps) ** -0.5, mean, var


def _stats(m, xs, axes, eps, total=None):
    """(xhat, invstd) of xs over ``axes`` (``total``: as _moments')."""
    centered, invstd, _, _ = _moments(m, xs, axes, eps, total)
    return _update(m, operator.mul, centered, invstd, centered), invstd  # (centered: fresh)


def _channel_total(a, b=None):
    """Per-channel sums of a (N, C, *) array a, or of a*b, over all but the channel axis, shaped
    (1, C, 1, ...): BLAS dot products (a matrix-vector product with ones, a batch of row dots),
    3-5x faster than np.sum over (0, 2, 3) and no a*b temporary."""
    n, c = a.shape[:2]
    if a.size == 0:  # (an empty batch: NumPy cannot infer the -1 below)
        return np.zeros((1, c) + (1,) * (a.ndim - 2), a.dtype)
    rows = a.reshape(n, c, -1)
    if b is None:
        per_row = rows @ np.ones(rows.shape[2], dtype=a.dtype)
    else:
        per_row = np.matmul(rows[:, :, None, :], b.reshape(n, c, -1, 1))[:, :, 0, 0]
    return per_row.sum(0).reshape((1, c) + (1,) * (a.ndim - 2))


def _spread(a, x, *others):
    """A per-channel operand ``a``, shaped (1, C, 1, ...), as a contiguous (1, C, *rest) copy for
    an element-wise pass over x (N, C, *rest) (and ``others`` of its shape): NumPy runs x op a
    as short inner loops over each plane against one repeated value, 1.3-1.8x slower than
    against an operand as long as a sample (float32 (32, 32, 32, 32): 0.18 -> 0.10 ms a pass).
    The same values, so the same bits. Only where every big operand is C-contiguous (the
    result's layout, e.g. channels-last, is then the same either way); left as it is for few
    samples or small planes (the copy would cost what it saves)."""
    shape = x.shape
    if type(a) is not np.ndarray or len(shape) < 3 or a.shape != (1, shape[1]) + (1,) * (
            len(shape) - 2) or shape[0] < _SPREAD_MIN_SAMPLES or \
            math.prod(shape[2:]) < _SPREAD_MIN_PLANE or \
            not all(type(b) is np.ndarray and b.flags.c_contiguous for b in (x,) + others):
        return a
    return np.ascontiguousarray(np.broadcast_to(a, (1,) + tuple(shape[1:])))


_SPREAD_MIN_SAMPLES, _SPREAD_MIN_PLANE = 8, 128


_UFUNCS = {operator.sub: np.subtract, operator.mul: np.multiply}


def _update(m, op, a, b, out):
    """op(a, b): on arrays written into ``out``, a temporary the formula owns (in-place passes
    over a large array run ~1.5x faster than ones into a new array), where the result keeps
    its dtype; on tensors (a graph) a new tensor."""
    if m.is_graph or np.result_type(a, b) != out.dtype or _broadcast(a, b) != out.shape:
        return op(a, b)
    return _UFUNCS[op](a, b, out=out)


def _broadcast(a, b):
    """The broadcast shape of a and b; at once where one is an array of that shape that the
    other (an array) fits into (np.broadcast_shapes costs ~4 us a call, 20 calls a GPT step)."""
    if type(a) is np.ndarray and type(b) is np.ndarray:
        big, small = (a, b) if a.ndim >= b.ndim else (b, a)
        if all(n == 1 or n == o for n, o in zip(small.shape[::-1], big.shape[::-1])):
            return big.shape
    return np.broadcast_shapes(np.shape(a), np.shape(b))


def _affine(xhat, w, b):
    """y = xhat * w + b (either may be None), a fresh array: never the saved xhat itself, which
    in-place use of y would corrupt."""
    if w is not None:
        y = xhat * w
        if b is not None:
            y += b  # y is fresh: no second buffer
        return y
    return xhat + b if b is not None else xhat.copy(order="K")  # (in xhat's layout, as y's)


class _Normalize(Node):
    """Shared machinery; subclasses say how x is viewed for statistics and affine parameters."""

    def stats_shape(self, shape):
        return shape

    def forward(self, x, weight, bias, eps, **options):
        xs = self.prepare(x, weight, eps, options)
        w, b = (None if p is None else p._data.reshape(self.affine_shape) for p in (weight, bias))
        if 0 in self.axes:  # statistics over the first axis: no split by rows
            self.xhat, self.invstd = self.normalize(xs)
            return self.affine(self.xhat.reshape(self.x_shape), w, b)

        def rows(part):  # rows of x normalized independently: split over threads
            xhat, invstd = self.normalize(part)
            return xhat, invstd, self.affine(xhat.reshape((part.shape[0],) + self.x_shape[1:]), w,
                                             b)
        self.xhat, self.invstd, y = _parallel.compute(rows, (xs,), rowwise=True)
        return y.reshape(self.x_shape)

    def prepare(self, x, weight, eps, options):
        """Shapes, eps and saved values for backward; returns x viewed for its statistics."""
        self.eps, self.x_shape = eps, x._data.shape
        self.setup(x._data.shape, weight, **options)
        self.save(x, weight)
        return x._data.reshape(self.stats_shape(self.x_shape))

    def normalize(self, xs):
        return _stats(array_math, xs, self.axes, self.eps)

    def affine(self, xhat, w, b):
        return _affine(xhat, w, b)

    def backward(self, m, g, x, weight):
        need = [nx is not None for nx, _ in self.next_functions]
        if m.is_graph:
            xhat, invstd = self.recompute(m, x)
        else:
            xhat, invstd = self.xhat, self.invstd
        sshape = self.stats_shape(self.x_shape)
        gxhat = g if weight is None else g * m.reshape(weight, self.affine_shape)
        gx = self.split_input_grad(m, m.reshape(gxhat, sshape), xhat, invstd) if need[0] \
            else None
        gx = m.reshape(gx, self.x_shape) if gx is not None else None
        gw = gb = None
        if need[1]:
            gw = m.reshape(self.param_sum(m, g * m.reshape(xhat, self.x_shape)), weight.shape)
        if need[2]:
            gb = m.reshape(self.param_sum(m, g), self.bias_shape)
        return gx, gw, gb

    def param_sum(self, m, a):
        """a summed over the axes the affine parameters are shared across."""
        return m.sum(a, self.param_axes)

    def recompute(self, m, x):
        return _stats(m, m.reshape(x, self.stats_shape(self.x_shape)), self.axes, self.eps)

    def split_input_grad(self, m, gxhat, xhat, invstd, means=None):
        """input_grad, split by rows over threads where its reductions (if any: none once
        ``means`` are given) do not run over the first axis."""
        if m.is_graph or (means is None and 0 in self.axes):
            return self.input_grad(m, gxhat, xhat, invstd, means)
        return _parallel.compute(lambda g, xh, s: self.input_grad(m, g, xh, s, means),
                                 (gxhat, xhat, invstd), rowwise=True)

    def input_grad(self, m, gxhat, xhat, invstd, means=None):
        """``means``: (mean_g, mean_gx) when the caller has them already."""
        if means is None:
            count = math.prod(xhat.shape[a] for a in self.axes)
            means = m.sum(gxhat, self.axes, True) / count, m.sum(gxhat * xhat, self.axes,
                                                                 True) / count
        mean_g, mean_gx = means
        out = xhat * mean_gx
        out = _update(m, operator.sub, gxhat, out, out)
        out = _update(m, operator.sub, out, mean_g, out)
        return _update(m, operator.mul, out, invstd, out)


def _strided(x):
    """Whether ``x`` is neither contiguous nor channels-last (torch's batch norm then runs its
    element-wise kernel)."""
    return not x.flags.c_contiguous and not (
        x.ndim == 4 and x.transpose(0, 2, 3, 1).flags.c_contiguous)


class NativeBatchNormBackward0(_Normalize):
    """Batch norm over (N, C, *): statistics per channel; running stats updated in training.

    In training, ``self.xhat`` holds x - mean, not yet scaled: invstd is folded into the
    per-channel constants of the affine map and of the backward (one full-size pass fewer)."""
    result_layout = channels_last_or_contiguous

    def setup(self, shape, weight, running_mean=None, running_var=None, training=True,
              momentum=0.1):
        c = shape[1]
        self.axes = (0,) + tuple(range(2, len(shape)))
        self.param_axes = self.axes
        self.affine_shape = (1, c) + (1,) * (len(shape) - 2)
        self.bias_shape = (c,)
        self.training, self.momentum = training, momentum
        self.running = (running_mean, running_var)

    def normalize(self, xs):
        running_mean, running_var = self.running
        if not self.training:
            mean = running_mean._data.reshape(self.affine_shape)
            invstd = (running_var._data.reshape(self.affine_shape) + self.eps) ** -0.5
            return (xs - mean) * invstd, invstd.astype(xs.dtype)
        centered, invstd, mean, var = _moments(array_math, xs, self.axes, self.eps,
                                               _channel_total, _spread)
        if self.half:  # float16: torch normalizes (and takes its backward) with the mean and
            # 1/std rounded to float16, its saved stats; the running mean takes the float32 one
            self.low_stats = (_bf16.rounded(mean), _bf16.rounded(invstd))
            centered, invstd = xs - self.low_stats[0], self.low_stats[1]
        count = xs.size // xs.shape[1]
        with np.errstate(divide="ignore", invalid="ignore"):
            unbiased = var * (count / (count - 1))
        for buf, new in ((running_mean, mean), (running_var, unbiased)):
            if buf is not None:  # torch: running = (1 - momentum) * running + momentum * new
                data = buf._data
                if data.dtype == np.float16:  # computed in float32, rounded once
                    data[...] = data.astype(np.float32) * np.float32(1 - self.momentum) + \
                        np.float32(self.momentum) * new.reshape(-1)
                else:
                    data *= 1 - self.momentum
                    data += (self.momentum * new.reshape(-1)).astype(data.dtype)
                buf._vc[0] += 1
        self.running = None
        return centered, invstd

    def affine(self, xhat, w, b):
        if not self.training:
            return _affine(xhat, w, b)
        if self.half == "steps":  # torch's strided float16 kernel: Half ops, each rounded
            r = _bf16.rounded
            y = r(r(xhat) * self.invstd)
            y = y if w is None else r(y * w)
            return y if b is None else r(y + b)
        scale = self.invstd if w is None else self.invstd * w
        return _affine(xhat, _spread(scale, xhat), _spread(b, xhat))  # xhat: x - mean

    def recompute(self, m, x):
        if self.training:
            return super().recompute(m, x)
        return m.reshape(x, self.x_shape) * self.invstd - self.shift, self.invstd

    def forward(self, x, weight, bias, eps, **options):
        low, training = _opmath.source(x), options.get("training", True)
        # float16 in training: torch's Half kernel (True), or its element-wise one for a strided
        # input ("steps", also bfloat16's)
        self.half = training and low is not None and (
            "steps" if _strided(_opmath.source_array(x)) else low == np.float16)
        if _opmath.source(x) is not None:  # bfloat16 training: torch's kernel steps
            self.prepare(x, weight, eps, options)
            out = _bf16_nn.batch_norm_train(self, x, weight, bias)
            if out is not None:
                return out
        out = super().forward(x, weight, bias, eps, **options)
        if not self.training:  # xhat = x * invstd - shift, with constants from running stats
            self.shift = (self.invstd * self.running[0]._data.reshape(self.affine_shape))
        return out

    def input_grad(self, m, gxhat, xhat, invstd, means=None):
        if not self.training:
            return gxhat * invstd
        return super().input_grad(m, gxhat, xhat, invstd, means)

    def backward(self, m, g, x, weight):
        """In training, weight is constant over the statistics' axes, so the shared input_grad
        runs on g with invstd * weight, and the two channel sums it needs, sum g and
        sum g * xhat, are the bias and weight gradients: two reductions in all."""
        if not self.training or m.is_graph:
            return super().backward(m, g, x, weight)
        need = [nx is not None for nx, _ in self.next_functions]
        centered, invstd = self.xhat, self.invstd  # xhat * c = centered * (invstd * c)
        sum_g, sum_gx = _channel_total(g), _channel_total(g, centered) * invstd
        gx = None
        if need[0]:
            count = g.size // g.shape[1]
            scale = invstd if weight is None else invstd * weight.reshape(self.affine_shape)
            means = (_spread(sum_g / count, g, centered),
                     _spread(sum_gx * invstd / count, g, centered))
            gx = self.split_input_grad(m, g, centered, _spread(scale, g, centered), means)
        gw = sum_gx.reshape(weight.shape) if need[1] else None
        return gx, gw, (sum_g.reshape(self.bias_shape) if need[2] else None)


class NativeLayerNormBackward0(_Normalize):
    """Layer norm over the trailing ``len(normalized_shape)`` dims (a contiguous result, as
    torch's kernel, which reads its input made contiguous)."""
    result_layout = contiguous_result

    def setup(self, shape, weight, normalized_ndim=1):
        lead = len(shape) - normalized_ndim
        self.axes = tuple(range(lead, len(shape)))
        self.param_axes = tuple(range(lead))
        self.affine_shape = tuple(shape[lead:])
        self.bias_shape = self.affine_shape

    bf16 = None  # for bfloat16 input: whether torch keeps the statistics in bfloat16

    def normalize(self, xs):
        if len(self.axes) > 1:
            return super().normalize(xs)
        # one normalized dim: the row sums as BLAS dot products (_rowsum), 2x np.sum's speed
        xhat, invstd = _stats(array_math, xs, self.axes, self.eps, _rowsum.last_sum)
        return xhat, invstd

    def param_sum(self, m, a):
        if m.is_graph or not a.flags.c_contiguous or a.dtype not in _rowsum.BLAS_DTYPES:
            return super().param_sum(m, a)
        # the leading axes of a C-ordered array: one matrix-vector product (_rowsum), 3x np.sum
        return _rowsum.first_sum(a.reshape(-1, math.prod(self.affine_shape)))

    def input_grad(self, m, gxhat, xhat, invstd, means=None):
        if means is None and not m.is_graph and len(self.axes) == 1:
            count = xhat.shape[-1]
            means = _rowsum.last_sum(gxhat) / count, _rowsum.last_sum(gxhat, xhat) / count
        return super().input_grad(m, gxhat, xhat, invstd, means)

    def forward(self, x, weight, bias, eps, **options):
        if _opmath.source(x) is None or not x._data.size:  # (empty: nothing rounds)
            return super().forward(x, weight, bias, eps, **options)
        self.prepare(x, weight, eps, options)  # bfloat16: torch's kernel steps only
        # no float32 parameter: bfloat16 statistics
        self.bf16 = all(p is None or _opmath.source(p) is not None for p in (weight, bias))
        rows = x._data.reshape(-1, math.prod(self.affine_shape))
        self.stats = _bf16.layer_norm_stats(rows, eps)
        y = _bf16.layer_norm_output(rows, *self.stats, *(
            None if p is None else p._data.reshape(-1) for p in (weight, bias)))
        return y.reshape(self.x_shape)

    def backward(self, m, g, x, weight):
        if self.bf16 is None or m.is_graph:
            return super().backward(m, g, x, weight)
        rows = math.prod(self.x_shape[:len(self.param_axes)])
        need = [nx is not None for nx, _ in self.next_functions]
        w = None if weight is None else weight.reshape(-1)
        grads = _bf16.layer_norm_backward(g.reshape(rows, -1), x.reshape(rows, -1),
                                          *self.stats, w, self.bf16, need)
        shapes = (self.x_shape, self.affine_shape, self.bias_shape)
        return tuple(None if d is None else d.reshape(s) for d, s in zip(grads, shapes))


class NativeGroupNormBackward0(_Normalize):
    """Group norm: (N, C, *) split into ``num_groups`` channel groups, each normalized."""

    def setup(self, shape, weight, num_groups=1):
        self.groups = num_groups
        self.axes = (2,)
        self.param_axes = (0,) + tuple(range(2, len(shape)))
        self.affine_shape = (1, shape[1]) + (1,) * (len(shape) - 2)
        self.bias_shape = (shape[1],)

    def stats_shape(self, shape):
        return (shape[0], self.groups, -1)
