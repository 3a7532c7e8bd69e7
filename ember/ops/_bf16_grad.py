"""Backward formulas as torch runs them on bfloat16 and float16: composed of low-dtype tensor ops,
each rounded (``r`` rounds to the dtype of the op computing now).

torch writes many derivatives as expressions of tensor ops (derivatives.yaml, FunctionsManual):
``var``'s is ``(2 / (N - correction)) * grad * (self - self.mean(dim, true))``. On bfloat16 every
op in such an expression computes in float32 and rounds its result, so the gradient carries a
rounding at each step. ember's float formulas compute in one go; for bfloat16 gradients
``_opmath.backward`` runs the formula registered here under the node's name instead
(``FORMULAS`` at the end). Each takes the node, the gradient and the saved values as float32
arrays holding bfloat16 values, and rounds where torch's ops do; the engine rounds the result
(already a bfloat16 value) to the input's dtype. A few forwards torch composes the same way
(prod, logsumexp, pow, binary_cross_entropy_with_logits, adaptive_avg_pool2d) are here too.
"""
import math

import numpy as np

from .. import _dtype
from ..autograd import _opmath
from . import _bf16_vec
from ._bf16 import _F32, _needs
from ._bf16 import rounded as r

_ONE = _F32(1)


def _expanded(node, g):
    """A reduced gradient (or output) broadcast back over the reduced dims."""
    if not node.keepdim and len(node.shape):
        g = g.reshape(tuple(1 if i in node.dims else s for i, s in enumerate(node.shape)))
    return np.broadcast_to(g, node.shape)


def _scaled(x, scalar):
    """``x * scalar`` for a Python number: torch's mul reads the scalar as float32."""
    return r(x * _F32(scalar))


def var(node, g, a):
    """(2 / (N - correction)) * grad * (self - self.mean(dims, keepdim=True))."""
    count = int(np.prod([node.shape[d] for d in node.dims])) if node.shape else 1
    mean = r(np.sum(a, axis=node.dims, keepdims=True) / _F32(count))
    scale = 2.0 / node.denominator if node.denominator else float("nan")
    return (r(_scaled(_expanded(node, g), scale) * r(a - mean)),)


def std(node, g, a, out):
    """var's formula on grad / (result * 2), zero where the result is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(out == 0, _F32(0), r(g / r(out * _F32(2))))
    return var(node, g, a)


def vector_norm(node, g, a, out):
    """p = 2: grad * (self / norm); other p: self_scaled * (grad / norm^(p-1)), with
    self_scaled = self |self|^(p-2) (p >= 2) or sgn(self) |self|^(p-1) (1 < p < 2)."""
    p = node.p
    if p in (1, float("inf")) or p < 1:
        return None  # one rounding already (p = 1), or not composed of bfloat16 ops here
    g, out = _expanded(node, g), _expanded(node, out)
    with np.errstate(divide="ignore", invalid="ignore"):
        if p == 2:
            return (np.where(out == 0, _F32(0), r(r(a / out) * g)),)
        if p >= 2:
            scaled = r(a * r(np.abs(a) ** _F32(p - 2)))
        else:
            scaled = r(np.sign(a) * r(np.abs(a) ** _F32(p - 1)))
        scale = np.where(out == 0, _F32(0), r(g / r(out ** _F32(p - 1))))
    return (r(scaled * scale),)


def scalar_power(x, e):
    """x ** e for a float array and a Python number: the exponents torch's kernel computes by
    products and roots (2: x*x, 3: x*x*x, -2: 1/(x*x), -1: 1/x, 0.5: sqrt, -0.5: 1/sqrt(x)) as
    those (its bits, and ~100x faster than NumPy's pow: 5.8 ms against 0.03 ms on 131k
    float32), others NumPy's pow."""
    with np.errstate(invalid="ignore", divide="ignore"):  # torch: NaN / inf, no warning
        if e == 2:
            return x * x
        if e == -1:
            return np.reciprocal(x)
        if e == 0.5:
            return np.sqrt(x)
        if e == 3:
            return x * x * x
        if e == -2:
            return np.reciprocal(x * x)
        if e == -0.5:
            return np.reciprocal(np.sqrt(x))
        return np.power(x, e)


def power(x, exponent):
    """torch's bfloat16 or float16 pow with a scalar exponent (cast to that dtype): in float16
    the float32 power rounded once (-0.5 a pow, not 1/sqrt); in bfloat16 x^2, x^3 and x^-2 are
    products of rounded steps (x x, x x x, 1 / (x x)), other exponents one rounded power."""
    exponent = float(r(_F32(exponent)))
    if _opmath.low_dtype().kind != "V":
        if exponent == -0.5:
            return r(np.power(x, _F32(exponent)))
        return r(scalar_power(x, exponent))
    with np.errstate(divide="ignore", invalid="ignore"):
        if exponent == 2:
            return r(x * x)
        if exponent == 3:
            return r(r(x * x) * x)
        if exponent == -2:
            return r(_F32(1) / r(x * x))
        return r(np.power(x, _F32(exponent)))


def pow_scalar(node, g, a, e):
    """grad * (e * self.pow(e - 1)); 0 for e = 0."""
    if e == 0:
        return (np.zeros_like(g),)
    return (r(g * _scaled(power(a, e - 1), e)),)


def pow_tensor(node, g, a, b, out):
    """self: grad * (exponent * self.pow(exponent - 1)) (0 where exponent is 0);
    exponent: grad * (result * self.log()) (0 where self is 0 and exponent >= 0)."""
    ga = gb = None
    with np.errstate(divide="ignore", invalid="ignore"):
        if _needs(node, 0):
            ga = np.where(b == 0, _F32(0), r(g * r(b * r(np.power(a, r(b - _F32(1)))))))
        if _needs(node, 1):
            log = r(np.log(a))
            gb = r(g * np.where((a == 0) & (b >= 0), _F32(0), r(out * log)))
    return ga, gb


def rsqrt(node, g, y):
    """-0.5 * grad * result.pow(3)."""
    return r(_scaled(g, -0.5) * power(y, 3))


def reciprocal(node, g, y):
    """-grad * (result * result)."""
    return r(-g * r(y * y))


def div(node, g, a, b):
    """self: grad / other; other: -grad * ((self / other) / other)."""
    if "rounding" in node.__dict__ or not isinstance(b, np.ndarray):
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        ga = r(g / b) if _needs(node, 0) else None
        gb = r(-g * r(r(a / b) / b)) if _needs(node, 1) else None
    return ga, gb


def prod(node, g, a, out):
    """grad * (result / self) where no element is 0; with a zero anywhere, prod over one dim
    takes torch's zero-safe path: grad * (exclusive cumprod from the start * exclusive cumprod
    from the end), each cumprod in float32 rounded once, each op rounded."""
    if a.all():
        return (r(_expanded(node, g) * r(_expanded(node, out) / a)),)
    if type(node).__name__ != "ProdBackward1" or len(node.dims) != 1 or not a.ndim:
        return None
    d = node.dims[0]
    moved = np.moveaxis(a, d, -1)
    ones = np.ones(moved.shape[:-1] + (1,), _F32)
    before = r(np.cumprod(np.concatenate([ones, moved[..., :-1]], -1), -1, dtype=_F32))
    after = np.concatenate([ones, moved[..., :0:-1]], -1)
    after = r(np.cumprod(after, -1, dtype=_F32))[..., ::-1]
    others = np.moveaxis(r(before * after), -1, d)
    return (r(_expanded(node, g) * others),)


def cumprod(node, g, a, out):
    """(grad * result) summed from the end along dim (in float32), divided by self; each op
    rounded (torch's zero-safe path where self holds a zero)."""
    if not g.ndim or not a.all():
        return None
    d = node.dim
    summed = np.flip(np.cumsum(np.flip(r(g * out), d), axis=d, dtype=_F32), d)
    with np.errstate(over="ignore", invalid="ignore"):
        return (r(r(summed) / a),)


def logsumexp(node, g, a, out):
    """grad * (self - result).exp()."""
    return (r(_expanded(node, g) * r(np.exp(r(a - _expanded(node, out))))),)


def _log_sigmoid(x):
    """torch's log_sigmoid in float32, rounded: min(x, 0) - log1p(exp(-|x|))."""
    return r(np.minimum(x, _F32(0)) - np.log1p(np.exp(-np.abs(x))))


def bce_with_logits_loss(x, y, weight, pos_weight):
    """torch's composite: (1 - y) * x - log_sigmoid(x) (times (pos_weight - 1) * y + 1 first
    with pos_weight), times the weight; each op rounded (``weight``, ``pos_weight``: bfloat16
    tensors or None). The reduction follows."""
    weight, pos_weight = _arrays(weight, pos_weight)
    log_sigmoid = _log_sigmoid(x)
    if pos_weight is not None:
        log_sigmoid = r(log_sigmoid * r(r(r(pos_weight - _F32(1)) * y) + _F32(1)))
    loss = r(r(r(_F32(1) - y) * x) - log_sigmoid)
    return loss if weight is None else r(loss * weight)


def bce_with_logits(node, g, x, y):
    """input: (sigmoid(x) - y) * grad (with pos_weight p, t = p y: ((t + 1 - y) sigmoid(x) -
    t) * grad); target: -x * grad (with p: (log_sigmoid(-x) - log_sigmoid(x) p) * grad); then
    times the weight and divided by the count for 'mean', each op rounded."""
    if not node.bf16:
        return None
    weight, p = _arrays(node.weight, node.pos_weight)
    grads = []
    with np.errstate(divide="ignore", invalid="ignore"):
        if _needs(node, 0):
            sigmoid = r(_F32(1) / (_F32(1) + np.exp(-x)))
            if p is None:
                grads.append(r(r(sigmoid - y) * g))
            else:
                t = r(p * y)
                grads.append(r(r(r(r(r(t + _F32(1)) - y) * sigmoid) - t) * g))
        else:
            grads.append(None)
        if _needs(node, 1):
            if p is None:
                grads.append(r(-x * g))
            else:
                grads.append(r(r(_log_sigmoid(-x) - r(_log_sigmoid(x) * p)) * g))
        else:
            grads.append(None)
    return tuple(None if d is None else _loss_scaled(node, d, weight) for d in grads)


def _arrays(*tensors):
    return [None if t is None else t._data.astype(_F32) for t in tensors]


def _loss_scaled(node, d, weight):
    if weight is not None:
        d = r(d * weight)
    return r(d / _F32(node.count)) if node.reduction == "mean" else d


def adaptive_avg_pool2d(x, ph, pw):
    """Each window's float32 sum divided by its size (torch's bfloat16 kernel; ``ph``, ``pw``:
    the averaging matrices, nonzero over each window)."""
    rows, cols = (ph != 0).astype(_F32), (pw != 0).astype(_F32)
    sizes = np.outer(rows.sum(1), cols.sum(1))
    return np.matmul(np.matmul(rows, x), cols.T) / sizes


def adaptive_avg_pool2d_backward(node, g):
    """torch's bfloat16 kernel: each output's gradient divided by the window's height, then by
    its width (bfloat16 divisions), added into the window's input gradients in bfloat16,
    output position by output position."""
    ph, pw = node.ph != 0, node.pw != 0
    grad = np.zeros(g.shape[:-2] + (ph.shape[1], pw.shape[1]), _F32)
    for i, row in enumerate(ph):
        h = np.flatnonzero(row)
        for j, col in enumerate(pw):
            w = np.flatnonzero(col)
            delta = r(r(g[..., i, j] / r(_F32(h.size))) / r(_F32(w.size)))
            window = (Ellipsis, slice(h[0], h[-1] + 1), slice(w[0], w[-1] + 1))
            grad[window] = r(grad[window] + delta[..., None, None])
    return (grad,)


def atan2(node, g, a, b):
    """recip = (self * self + other * other).reciprocal(); grad * other * recip,
    grad * -self * recip (recip 0 where both are 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        total = r(r(a * a) + r(b * b))
        recip = np.where(total == 0, _F32(0), r(_F32(1) / total))
    return r(r(g * b) * recip), r(r(g * -a) * recip)


def hypot(node, g, a, b, out):
    """grad * self / result, grad * other / result."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return r(r(g * a) / out), r(r(g * b) / out)


def _logaddexp(power):
    def backward(node, g, a, b):
        """grad / (1 + exp(other - self)) and grad / (1 + exp(self - other)) (pow(2, .) for
        logaddexp2)."""
        with np.errstate(over="ignore"):
            return (r(g / r(_ONE + r(power(r(b - a))))), r(g / r(_ONE + r(power(r(a - b))))))
    return backward


def xlogy(node, g, a, b):
    """self: grad * xlogy(self != 0, other); other: grad * self / other."""
    if not isinstance(b, np.ndarray) or not isinstance(a, np.ndarray):
        return None
    with np.errstate(divide="ignore", invalid="ignore"):
        nonzero = (a != 0).astype(_F32)
        log = r(np.where((nonzero == 0) & ~np.isnan(b), _F32(0), nonzero * np.log(b)))
        ga = r(g * log) if _needs(node, 0) else None
        gb = r(r(g * a) / b) if _needs(node, 1) else None
    return ga, gb


def addcmul(node, g, t1, t2):
    """tensor1: grad * (tensor2 * value); tensor2: grad * (tensor1 * value)."""
    return (g, r(g * _scaled(t2, node.value)) if _needs(node, 1) else None,
            r(g * _scaled(t1, node.value)) if _needs(node, 2) else None)


def _rsqrt(x, source=None):
    """rsqrt of bfloat16 values (``source``: the bfloat16 array, else a new contiguous one):
    1 / sqrt(x) in float32 on the vector lanes; the scalar tail takes 1 / sqrt(x) in bfloat16
    arithmetic (the square root rounded first)."""
    lanes = _bf16_vec.vector_lanes(np.empty(x.shape, np.uint16) if source is None else source)
    with np.errstate(divide="ignore", invalid="ignore"):
        root = np.sqrt(x)
        return r(np.where(lanes, _F32(1) / root, _F32(1) / r(root)))


def rsqrt_forward(x, source):
    """torch's bfloat16 rsqrt kernel on ``x`` (float32 values of the bfloat16 ``source``)."""
    return _rsqrt(x, source)


def _square(x):
    return r(x * x)


_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
# derivatives.yaml's formulas of the unary functions, as bfloat16 ops: fn(g, x or result)
_UNARY = {
    "Exp2Backward0": lambda g, y: _scaled(r(g * y), math.log(2)),
    "Expm1Backward0": lambda g, y: r(g * r(y + _ONE)),
    "Log2Backward0": lambda g, x: r(g / _scaled(x, math.log(2))),
    "Log10Backward0": lambda g, x: r(g / _scaled(x, math.log(10))),
    "Log1PBackward0": lambda g, x: r(g / r(x + _ONE)),
    "TanBackward0": lambda g, y: r(g * r(_ONE + _square(y))),
    "AsinBackward0": lambda g, x: r(g * _rsqrt(r(_ONE - _square(x)))),
    "AcosBackward0": lambda g, x: r(g * -_rsqrt(r(_ONE - _square(x)))),
    "AtanBackward0": lambda g, x: r(g / r(_square(x) + _ONE)),
    "AsinhBackward0": lambda g, x: r(g * _rsqrt(r(_square(x) + _ONE))),
    "AcoshBackward0": lambda g, x: r(g * _rsqrt(r(_square(x) - _ONE))),
    "AtanhBackward0": lambda g, x: r(g / r(_ONE - _square(x))),
    "ErfBackward0": lambda g, x: r(_scaled(r(np.exp(-_square(x))), _TWO_OVER_SQRT_PI) * g),
    "ErfcBackward0": lambda g, x: r(_scaled(r(np.exp(-_square(x))), -_TWO_OVER_SQRT_PI) * g),
    "ErfinvBackward0": lambda g, y: r(_scaled(r(np.exp(_square(y))), 0.5 * math.sqrt(math.pi))
                                      * g),
}


def sigmoid(node, g, y):
    """float16: grad * (1 - y) * y in float16 arithmetic, each step rounded (torch's kernel
    computes Half in Half; its bfloat16 kernel computes in float32, as the float formula)."""
    if _opmath.low_dtype().kind == "V":
        return None
    return (r(r(g * r(_ONE - y)) * y),)


def ldexp(node, g, a, b):
    """self: grad * 2^other; other: ((self * 2^other) * grad) * ln 2, each op rounded (torch's
    order, measured)."""
    if not isinstance(b, np.ndarray) or b.dtype.kind != "f":
        return None
    with np.errstate(over="ignore", invalid="ignore"):
        scale = r(np.exp2(b))
        ga = r(g * scale) if _needs(node, 0) else None
        gb = r(r(r(a * scale) * g) * _F32(math.log(2))) if _needs(node, 1) else None
    return ga, gb


def pow_scalar_base(node, g, s, out):
    """other: grad * (result * log(self)), self the number as given, each product rounded."""
    if isinstance(s, complex) or s <= 0:
        return None
    return None, r(g * r(out * _F32(math.log(s))))


def log_sigmoid(node, g, x):
    """torch's kernel keeps z = exp(-|x|) as a low-dtype buffer: grad * (1 - z / (1 + z)) for
    x < 0, grad * (z / (1 + z)) else, in float32."""
    z = r(np.exp(-np.abs(x)))
    share = z / (_ONE + z)
    return (r(g * np.where(x < 0, _ONE - share, share)),)


def logit(node, g, x):
    """grad / (self * (1 - self)), each op rounded (torch's low-dtype kernel), masked as the
    float formula (NaN outside [0, 1]; 0 outside [eps, 1 - eps] with eps)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        grad = r(g / r(x * r(_ONE - x)))
    if node.eps is None:
        return (np.where((x < 0) | (x > 1), _F32(np.nan), grad),)
    return (np.where((x < node.eps) | (x > 1 - node.eps), _F32(0), grad),)


def glu(node, g, x):
    """a: grad * s; b: grad * a * s * (1 - s), in float32 from s = sigmoid(b) rounded to the
    low dtype (torch's kernel reads it so)."""
    a, b = np.split(x, 2, axis=node.dim)
    with np.errstate(over="ignore"):
        s = r(_ONE / (_ONE + np.exp(-b)))
    return (np.concatenate([g * s, g * a * s * (_ONE - s)], node.dim),)


def addmm(node, g, mat1, mat2):
    """addmm/baddbmm with alpha != 1: each product's gradient (g @ mat2^T, mat1^T @ g) rounded
    before alpha scales it (torch's two ops); input: grad * beta. (Linear's AddmmBackward0
    has no alpha: its float formula.)"""
    if getattr(node, "alpha", 1) == 1:
        return None
    alpha = _F32(node.alpha)
    gin = (g if node.beta == 1 else g * _F32(node.beta)) if _needs(node, 0) else None
    ga = r(r(np.matmul(g, np.swapaxes(mat2, -1, -2))) * alpha) if _needs(node, 1) else None
    gb = r(r(np.matmul(np.swapaxes(mat1, -1, -2), g)) * alpha) if _needs(node, 2) else None
    return gin, ga, gb


def binary_cross_entropy(node, g, x, y):
    """torch's low-dtype kernels, each op rounded: input: grad (x - y) / max((1 - x) x,
    1e-12); target: -logit(x) * grad (log(x / (1 - x)) in steps); 'mean' then divides by the
    count (without a weight; with one: the float formula)."""
    if node.weight is not None:
        return None
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        dx = dy = None
        if _needs(node, 0):
            bound = r(np.maximum(r(r(_ONE - x) * x), _F32(1e-12)))
            dx = r(r(g * r(x - y)) / bound)
        if _needs(node, 1):
            dy = r(-r(np.log(r(x / r(_ONE - x)))) * g)
        if node.reduction == "mean":
            count = _F32(node.count)
            dx, dy = (None if d is None else r(d / count) for d in (dx, dy))
    return dx, dy


def addcdiv(node, g, t1, t2):
    """tensor1: grad * (value / tensor2), value first rounded to the low dtype (a number
    dividing a tensor); tensor2: grad * ((-value * tensor1) / (tensor2 * tensor2)); each op
    rounded."""
    if not isinstance(t1, np.ndarray) or not isinstance(t2, np.ndarray):
        return None
    value = _F32(node.value)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        g1 = r(g * r(r(value) / t2)) if _needs(node, 1) else None
        g2 = r(g * r(r(-value * t1) / r(t2 * t2))) if _needs(node, 2) else None
    return g, g1, g2


def logcumsumexp(node, g, a, out):
    """torch's formula on low-dtype ops, each rounded: exp(reverse_logcumsumexp(log|g| - out)
    + self) for the positive and the negative part of g apart (log 0 as the low dtype's
    lowest), their difference; each logcumsumexp accumulated in float32, rounded once."""
    if not g.ndim or not g.size:
        return None
    d = node.dim
    lowest = _F32(_dtype.finfo(_dtype.from_numpy_dtype(_opmath.low_dtype())).min)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        log_abs = r(np.log(np.abs(g)))
        parts = []
        for side in (g > 0, g < 0):
            shifted = np.flip(r(np.where(side, log_abs, lowest) - out), d)
            summed = np.flip(r(np.logaddexp.accumulate(shifted, axis=d)), d)
            parts.append(r(np.exp(r(summed + a))))
    return (r(parts[0] - parts[1]),)


def lerp_tensor(node, g, start, end, weight):
    """start: grad * (1 - weight); end: grad * weight; weight: grad * (end - start); each op
    rounded (a weight of another dtype: the float formula)."""
    if not isinstance(weight, np.ndarray) or weight.dtype != _F32:
        return None
    return (r(g * r(_ONE - weight)) if _needs(node, 0) else None,
            r(g * weight) if _needs(node, 1) else None,
            r(g * r(end - start)) if _needs(node, 2) else None)


def _unary(formula):
    def backward(node, g, saved):
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return (formula(g, saved),)
    return backward


_opmath.FORMULAS.update({name: _unary(formula) for name, formula in _UNARY.items()})
_opmath.FORMULAS.update({
    "VarBackward0": var, "StdBackward0": std, "LinalgVectorNormBackward0": vector_norm,
    "NormBackward1": vector_norm,
    "PowBackward0": pow_scalar, "PowBackward1": pow_tensor, "RsqrtBackward0": rsqrt,
    "ReciprocalBackward0": reciprocal, "DivBackward0": div, "ProdBackward0": prod,
    "ProdBackward1": prod, "LogsumexpBackward0": logsumexp,
    "BinaryCrossEntropyWithLogitsBackward0": bce_with_logits,
    "AdaptiveAvgPool2DBackward0": adaptive_avg_pool2d_backward, "Atan2Backward0": atan2,
    "HypotBackward0": hypot, "LogaddexpBackward0": _logaddexp(np.exp),
    "Logaddexp2Backward0": _logaddexp(np.exp2), "XlogyBackward0": xlogy,
    "AddcmulBackward0": addcmul, "SigmoidBackward0": sigmoid, "LdexpBackward0": ldexp,
    "PowBackward2": pow_scalar_base, "CumprodBackward0": cumprod,
    "LogSigmoidBackward0": log_sigmoid, "LogitBackward0": logit,
    "GluBackward0": glu, "AddmmBackward0": addmm, "BaddbmmBackward0": addmm,
    "BinaryCrossEntropyBackward0": binary_cross_entropy, "AddcdivBackward0": addcdiv,
    "LogcumsumexpBackward0": logcumsumexp, "LerpBackward1": lerp_tensor})

# the normalization and convolution kernels register theirs too, whichever module loads first
from . import _bf16_nn  # noqa: E402, F401
