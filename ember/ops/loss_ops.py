"""Loss primitives (mse, smooth_l1, huber, bce, bce-with-logits, nll, fused cross-entropy).

Each is one node: one pass forward, one back, nothing saved but the inputs. Backward formulas are
written over the math namespace ``m`` (so they serve create_graph); constant masks and one-hot
weights are plain arrays there.
"""
import numpy as np

from .. import _dtype
from ..autograd import _opmath
from ..autograd._math import array_math
from ..autograd.graph import Node
from . import _bf16, _bf16_grad, matrix_ops
from .activation_ops import LogSoftmaxBackward0 as _LogSoftmax
from .activation_ops import _log_softmax_grad, _sigmoid, _softplus_np, log_softmax_values
from .elementwise import _against, _operands


def reduce_array(loss, reduction):
    """Apply 'none' / 'mean' / 'sum' to an array of element losses."""
    if reduction == "none":
        return loss
    if reduction == "mean" and not loss.size:  # NaN, without NumPy's empty-slice warning
        return np.asarray(np.nan, dtype=loss.dtype)
    return np.asarray(loss.mean() if reduction == "mean" else loss.sum(), dtype=loss.dtype)


def _scale(m, g, reduction, count):
    """The incoming gradient spread over the elements (divided by their count for 'mean')."""
    return g * (1.0 / count) if reduction == "mean" and count else g


def _needs(node, i):
    return node.next_functions[i][0] is not None


class _Pointwise(Node):
    """A loss of (input, target) element pairs, then a reduction."""

    def forward(self, input, target, reduction="mean", **params):
        x, y = _operands(input, target)  # torch's type promotion (float32 - int64 -> float32)
        self.save(input, target)
        self.reduction, self.params = reduction, params
        self.count = int(np.prod(np.broadcast_shapes(x.shape, y.shape)))
        if self.bf16_norm and _opmath.source(input) is not None and self.count:  # its steps
            self.bf16 = True
            return reduce_array(self.bf16_loss(x, y, **params), reduction)
        return reduce_array(self.loss(x, y, **params), reduction)

    bf16_norm = 0.0  # for a kernel computing in bfloat16: the gradient's factor before 'mean'
    bf16 = False
    # a float kernel that folds a factor and 'mean''s 1/n into one number, as torch's:
    # dx = (derivative * norm) * g, the derivative then without that factor
    norm = None

    def backward(self, m, g, x, y):
        if self.bf16 and not m.is_graph:
            return self._bf16_backward(g, x, y)
        if self.norm is not None:
            mean = self.reduction == "mean" and self.count
            dx = self.derivative(m, x, y, **self.params) * (
                self.norm / self.count if mean else self.norm) * g
        else:
            dx = self.derivative(m, x, y, **self.params) * _scale(m, g, self.reduction,
                                                                  self.count)
        return (dx if _needs(self, 0) else None), (-dx if _needs(self, 1) else None)

    def _bf16_backward(self, g, x, y):
        """Each gradient as torch's kernel computes it, the target's from swapped operands."""
        norm = self.bf16_norm / (self.count if self.reduction == "mean" else 1)
        grads = []
        for i, (a, b) in enumerate(((x, y), (y, x))):
            output = self.bf16_output(a, b, **self.params) if _needs(self, i) else None
            grads.append(None if output is None else _bf16.pointwise_grad(norm, output, g))
        return tuple(grads)


class MseLossBackward0(_Pointwise):
    """l = (x - y)^2;  dx = ((x - y) * 2) g (2 / n for 'mean', one factor), dy = -dx."""

    @staticmethod
    def loss(x, y):
        d = x - y
        return d * d

    @staticmethod
    def derivative(m, x, y):
        return x - y

    norm = 2.0
    bf16_norm = 2.0  # torch's bfloat16 kernels: l = d d, dx = 2 d g, each step rounded

    @staticmethod
    def bf16_loss(x, y):
        return _bf16.steps(lambda x, y: (x - y) * (x - y), x, y)

    @staticmethod
    def bf16_output(x, y):
        return _bf16.steps(np.subtract, x, y)


class SmoothL1LossBackward0(_Pointwise):
    """l = 0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta;  dx = d / beta or sign(d)."""

    @staticmethod
    def loss(x, y, beta=1.0):
        d = np.abs(x - y)
        return array_math.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta).astype(d.dtype,
                                                                                    copy=False)

    @staticmethod
    def derivative(m, x, y, beta=1.0):
        d = x - y
        return m.where(np.abs(m.data(d)) < beta, d / beta, np.sign(m.data(d)))

    norm = 1.0


class HuberLossBackward0(_Pointwise):
    """l = 0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta);  dx = d or delta sign(d)."""

    @staticmethod
    def loss(x, y, delta=1.0):
        d = np.abs(x - y)
        return array_math.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)).astype(
            d.dtype, copy=False)

    @staticmethod
    def derivative(m, x, y, delta=1.0):
        d = x - y
        return m.where(np.abs(m.data(d)) <= delta, d, np.sign(m.data(d)) * delta)

    norm = 1.0

    bf16_norm = 1.0  # torch's bfloat16 kernels: each step rounded

    @staticmethod
    def bf16_loss(x, y, delta=1.0):
        return _bf16.steps(lambda x, y: _bf16.huber(x, y, delta), x, y)

    @staticmethod
    def bf16_output(x, y, delta=1.0):
        return _bf16.steps(lambda x, y: _bf16.clipped_difference(x, y, delta), x, y)


_EPS = 1e-12  # torch's bound on x (1 - x) in the BCE gradient


class BinaryCrossEntropyBackward0(Node):
    """l = -w (y log x + (1 - y) log(1 - x)), logs clamped at -100;
    dx = w (x - y) / max(x (1 - x), 1e-12) g, dy = w (log(1 - x) - log x) g."""

    def forward(self, input, target, weight=None, reduction="mean"):
        x, y = input._data, target._data
        if x.dtype != y.dtype:
            raise RuntimeError(f"Found dtype {_dtype.of_numpy(y.dtype).scalar_name} but "
                               f"expected {_dtype.of_numpy(x.dtype).scalar_name}")
        if ((x < 0) | (x > 1)).any():
            raise RuntimeError("all elements of input should be between 0 and 1")
        if ((y < 0) | (y > 1)).any():
            raise RuntimeError("all elements of target should be between 0 and 1")
        self.save(input, target)
        self.weight, self.reduction, self.count = weight, reduction, max(x.size, 1)
        floor = np.asarray(-100, x.dtype)  # (a 0-d operand: in blocks)
        log_x = _against(np.maximum, np.log(x), floor)
        log_1mx = _against(np.maximum, np.log1p(-x), floor)
        loss = -(y * log_x + (1 - y) * log_1mx)
        if weight is not None:
            loss = loss * weight._data
        return reduce_array(loss.astype(x.dtype, copy=False), reduction)

    def backward(self, m, g, x, y):
        g = _scale(m, g, self.reduction, self.count)
        w = self.weight._data if self.weight is not None else 1.0
        dx = dy = None
        if _needs(self, 0):
            denom = m.maximum(x * (1 - x), _EPS) if m.is_graph else \
                _against(np.maximum, x * (1 - x), np.asarray(_EPS, x.dtype))
            dx = (x - y) / denom * w * g
        if _needs(self, 1):
            dy = (m.maximum(m.log(1 - x), -100.0) - m.maximum(m.log(x), -100.0)) * w * g
        return dx, dy


class BinaryCrossEntropyWithLogitsBackward0(Node):
    """l = w ((1 - y) x + (1 + (p - 1) y) softplus(-x)), p = pos_weight (1 if absent);
    dx = w ((1 - y) - (1 + (p - 1) y) sigmoid(-x)) g, dy = w ((p - 1) softplus(-x) - x) g."""

    def forward(self, input, target, weight=None, pos_weight=None, reduction="mean"):
        x, y = _operands(input, target)
        self.save(input, target)
        self.weight, self.pos_weight = weight, pos_weight
        self.reduction, self.count = reduction, max(x.size, 1)
        low = _opmath.source(input)
        self.bf16 = low is not None and _opmath.source(target) == low \
            and all(t is None or t._data.dtype == low for t in (weight, pos_weight))
        if self.bf16:  # torch composes it of bfloat16 ops
            loss = _bf16_grad.bce_with_logits_loss(x, y, weight, pos_weight)
            return reduce_array(loss, reduction)
        soft = _softplus_np(-x)
        scale = 1 + (pos_weight._data - 1) * y if pos_weight is not None else 1
        loss = (1 - y) * x + scale * soft
        if weight is not None:
            loss = loss * weight._data
        return reduce_array(loss.astype(x.dtype, copy=False), self.reduction)

    def backward(self, m, g, x, y):
        p = self.pos_weight._data if self.pos_weight is not None else None
        dx = dy = None
        if _needs(self, 0):  # torch's steps: its sigmoid, then the weight, then 'mean''s 1/n
            s = _sigmoid(m, x)
            dx = self._weighted(m, ((p * y + 1 - y) * s - p * y if p is not None else s - y) * g)
        if _needs(self, 1):
            soft = -m.log(_sigmoid(m, x)) if m.is_graph else _softplus_np(-x)
            dy = self._weighted(m, ((soft * (p - 1) if p is not None else 0) - x) * g)
        return dx, dy

    def _weighted(self, m, grad):
        if self.weight is not None:
            grad = grad * self.weight._data
        return grad / self.count if self.reduction == "mean" else grad


class NllLossBackward0(Node):
    """l_n = -w[t_n] x[n, t_n] (0 where t_n == ignore_index); 'mean' divides by sum w[t_n];
    dx = G, zero but at each target: -(g / divisor) w[t_n] in torch's steps (-g w for 'sum'
    and 'none'), +0 at ignored ones.

    With ``from_logits`` it is the fused cross-entropy, one node for speed: log_softmax's forward
    inside (its output kept) and log_softmax's backward for G (``_log_softmax_grad`` given G's
    one entry a row, whose row sum that entry is): torch's two kernels' values, no G built.
    """

    def forward(self, input, target, weight=None, reduction="mean", ignore_index=-100,
                from_logits=False):
        x = input._data
        self.reduction, self.from_logits = reduction, from_logits
        self.class_dim, self.shape = (1 if x.ndim > 1 else 0), x.shape
        safe, w, ignored = _nll_targets(x, target._data, weight, ignore_index)
        self.divisor = denom = _total_weight(w if weight is not None else None, ignored,
                                             safe.size) if reduction == "mean" else None
        self.index = index = _class_index(x, safe)
        if from_logits:
            self.save(input)
            self.log_probs = log_softmax_values(x, self.class_dim)
            picked = self.log_probs[index]
        else:
            picked = x[index]
        losses = -picked if w is None else -(picked * w)
        self.weights = np.ones(safe.shape, x.dtype) if w is None else w
        self.ignored = ignored
        if reduction == "none":
            return losses
        if _opmath.source(input) is not None:  # torch's bfloat16 kernel sums in bfloat16
            return self._bf16_reduce(x, target._data, picked, w, weight is None, ignore_index)
        total = _kept_sum(losses, ignored)
        if reduction == "sum":
            return np.asarray(total, dtype=x.dtype)
        return np.asarray(total / denom, dtype=x.dtype)  # (all ignored: nan, as torch, silent
        # as every node's forward)

    def _bf16_reduce(self, x, target, picked, w, unweighted, ignore_index):
        kept = target != ignore_index
        w = None if unweighted else w
        result, total = _bf16.nll_reduce(picked, w, kept, self.reduction)
        if self.reduction == "mean":  # backward takes torch's bfloat16 steps
            self.bf16_mean = (w, total, kept)
        return np.asarray(result, dtype=x.dtype)

    def backward(self, m, g, *saved):
        bf16_mean = self.__dict__.get("bf16_mean")
        if bf16_mean is not None and not m.is_graph:
            entries = _bf16.nll_grad_entries(g, *bf16_mean)
        else:  # G's one entry a row (g: a scalar, or per element for 'none')
            entries = -(g / self.divisor if self.divisor is not None else g) * self.weights
            if self.ignored is not None:
                entries = m.keep(~self.ignored, entries)
        if not self.from_logits:
            return (m.index_into_zeros(entries, self.shape, self.index, False), None)
        y = _LogSoftmax.apply(saved[0], self.class_dim) if m.is_graph else self.log_probs
        return (_log_softmax_grad(self.class_dim, entries, y, m, at=self.index), None)


class NllLoss2DBackward0(NllLossBackward0):
    """nll_loss over (N, C, H, W) scores and (N, H, W) targets."""


def _nll_targets(x, t, weight, ignore_index):
    """Targets made safe for indexing, each element's weight (None: all 1, nothing ignored;
    0 where ignored) and where targets are ignored (None: nowhere)."""
    classes = x.shape[1] if x.ndim > 1 else x.shape[0]
    ignored = t == ignore_index
    any_ignored = bool(ignored.any())
    valid = t[~ignored] if any_ignored else t
    if valid.size and np.maximum.reduce(valid.view(f"u{valid.itemsize}"), None) >= classes:
        # (one reduction: a negative target, read unsigned, is past any class too)
        bad = valid[(valid < 0) | (valid >= classes)]
        raise IndexError(f"Target {int(bad.reshape(-1)[0])} is out of bounds.")
    safe = np.where(ignored, 0, t) if any_ignored else t
    if weight is None and not any_ignored:
        return safe, None, None
    w = np.array(weight._data[safe], x.dtype) if weight is not None \
        else np.ones(safe.shape, x.dtype)  # (an array also for one 0-d target)
    if any_ignored:
        w[ignored] = 0
    return safe, w, (ignored if any_ignored else None)


def _total_weight(w, ignored, count):
    """'mean''s divisor: the kept targets' weights, summed as torch's kernel (``w`` None: all
    weights 1, the count of kept targets)."""
    if w is None:
        return float(count - (int(np.count_nonzero(ignored)) if ignored is not None else 0))
    return _kept_sum(w, ignored)


def _kept_sum(values, ignored):
    """The sum of ``values`` (one per target) over the kept targets in torch's nll kernel's
    order: its cascade of partial sums, ignored targets skipped."""
    values = values.reshape(-1)
    if ignored is None:
        return _bf16.cascade_sum(values, None, values.size, np.asarray)
    positions = np.flatnonzero(~ignored.reshape(-1))
    return _bf16.cascade_sum(values[positions], positions, values.size, np.asarray)


def _class_index(x, t):
    """A fancy index picking x[n, t_n, d1, ...]: the score of each element's target class."""
    if x.ndim == 1:
        return t
    if x.ndim == 2:
        return np.arange(t.shape[0]), t
    grids = list(np.ogrid[tuple(slice(n) for n in t.shape)])
    return tuple(grids[:1] + [t] + grids[1:])


class DivBackward1(Node):
    """out = a / s for a Python number s;  da = g / s."""

    def forward(self, a, s):
        self.s = s
        return a._data / np.asarray(s, a._data.dtype)

    def backward(self, m, g):
        return (g / self.s,)  # (torch's division: g * (1 / s) rounds twice)


ClampMinBackward0 = matrix_ops.ClampMinBackward0  # (max(a, lo) for a number lo: one node)
