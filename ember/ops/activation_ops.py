"""Activation primitives (softmax, log_softmax, gelu, silu, elu, ...) with their derivatives.

Each is one node rather than a chain of element-wise ops: fewer saved arrays, one pass over the
data forward and back, and numerically stable forms (max-shifted softmax, sign-split sigmoid).
Backward formulas are written over the math namespace ``m``, so they also serve create_graph.
"""
import math

import numpy as np

from .. import _dtype, _fp
from .._memory_format import contiguous_result, in_memory_order
from ..autograd import _opmath
from ..autograd._math import array_math
from ..autograd.graph import Node
from . import _bf16, _bf16_vec, _parallel, _rowsum
from . import elementwise as E
from .elementwise import _sigmoid as _np_sigmoid

_SQRT_2_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_ERF_POLYS = {}


def _erf_polys(precision):
    """Polynomials fitted once (at Chebyshev nodes, to math.erf/erfc) for erf(t) / t in t^2 on
    [0, 4] and exp(t^2) erfc(t) beyond t = 2: a few 1e-15 for float64, ~1.5 ulp for float32.

    The first, fitted in u = t^2 / 2 - 1, is kept for r = t^2 - 2 = 2u (one pass fewer: no
    halving): coefficient k of n (highest power first) times 2^(k - n). Horner's steps in r
    are then those in u scaled by powers of two, each rounded alike (exactly, while nothing
    is subnormal: true for |t| <= 2), and the last is unscaled: the same values, bit for bit."""
    if precision not in _ERF_POLYS:
        from numpy.polynomial import chebyshev
        erf, erfc = np.frompyfunc(math.erf, 1, 1), np.frompyfunc(math.erfc, 1, 1)

        def fit(fn, lo, hi, degree):
            nodes = np.cos(np.pi * (np.arange(degree + 1) + 0.5) / (degree + 1))
            values = fn(lo + (nodes + 1) * (hi - lo) / 2).astype(np.float64)
            return chebyshev.cheb2poly(chebyshev.chebfit(nodes, values, degree))[::-1]
        top, degrees = (6.0, (18, 22)) if precision == 64 else (4.0, (9, 10))
        dt = np.float64 if precision == 64 else np.float32
        in_u = [dt(c) for c in fit(lambda s: erf(np.sqrt(s)) / np.sqrt(s), 0.0, 4.0, degrees[0])]
        _ERF_POLYS[precision] = (
            [c * dt(2.0 ** (k - degrees[0])) for k, c in enumerate(in_u)],  # (in r = 2u)
            [dt(c) for c in fit(lambda t: np.exp(t * t) * erfc(t), 2.0, top, degrees[1])], top)
    return _ERF_POLYS[precision]


def _horner_into(acc, u, coefficients):
    """acc = polynomial(u), highest power first, in place (two passes per coefficient)."""
    np.multiply(u, coefficients[0], out=acc)
    for c in coefficients[1:-1]:
        acc += c
        acc *= u
    acc += coefficients[-1]
    return acc


_ERF_BLOCK = 1 << 16  # elements (256 KiB of float32): erf's polynomial runs block by block


def _np_erf(x):
    """erf, vectorised: x P(x^2) for |x| <= 2 (P in r = x^2 - 2; odd, so no sign passes),
    1 - exp(-t^2) Q(t) up to 6 (float32: 4, where erf rounds to 1), computed in float32 for
    float32 input (3x faster than float64). The polynomial runs unclamped over every element
    (beyond 2 it may overflow: those are overwritten), the tail only on the elements beyond 2.
    The result is laid out as x (computed over x in its memory order)."""
    return in_memory_order(_erf_in_order, x)


def _erf_in_order(x):
    low = x.dtype in (np.float32, np.float16)
    small_poly, large_poly, top = _erf_polys(32 if low else 64)
    dt = np.float32 if low else np.float64
    flat_x = np.ascontiguousarray(x.astype(dt, copy=False)).reshape(-1)  # written by flat index
    out = np.empty_like(flat_x)
    u = np.empty(min(flat_x.size, _ERF_BLOCK), dt)  # x^2 - 2, one block at a time
    beyond = np.empty(flat_x.size, np.bool_)  # |x| > 2 (NaN: not, it stays in the polynomial's)
    with np.errstate(over="ignore", invalid="ignore"):
        for lo in range(0, flat_x.size, _ERF_BLOCK):  # each block's ~20 passes stay in cache
            xb, ob = flat_x[lo:lo + _ERF_BLOCK], out[lo:lo + _ERF_BLOCK]
            ub = np.multiply(xb, xb, out=u[:xb.size])
            np.greater(ub, 4, out=beyond[lo:lo + _ERF_BLOCK])
            ub -= dt(2)
            _horner_into(ob, ub, small_poly)
            ob *= xb
    tail = np.flatnonzero(beyond)
    if tail.size:
        xt = flat_x[tail]
        tm = np.minimum(np.abs(xt), dt(top))
        poly = _horner_into(np.empty_like(tm), (tm - dt(top / 2 + 1)) / dt(top / 2 - 1),
                            large_poly)
        large = dt(1) - np.exp(-tm * tm) * poly
        large[tm >= top] = 1
        out[tail] = np.copysign(large, xt, out=large)
    return out.reshape(x.shape).astype(x.dtype, copy=False)


def _float(a, kernel=None, complex_ok=False):
    """The input's array, as the default float dtype when it is an integer one; with a
    ``kernel`` name, an integer, bool or (unless ``complex_ok``) complex input is refused as
    torch's kernel of that name does. A complex array is never cast to a real one."""
    x = a._data
    kind = x.dtype.kind
    if kind != "f" and not (kind == "c" and (complex_ok or kernel is None)):
        if kernel is not None:
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{_dtype.of_numpy(x.dtype).scalar_name}'")
        x = x.astype(_dtype.get_default_dtype().np)
    return x


def _sigmoid(m, x):
    if m.is_graph:
        import ember  # late binding up: ember.sigmoid is bound in _tensor_methods
        return ember.sigmoid(x)
    return _np_sigmoid(x)


def _erf(m, x):
    return ErfBackward0.apply(x) if m.is_graph else _np_erf(x)


def _softplus_np(x):
    # log(1 + e^x) without overflow: max(x, 0) + log1p(e^-|x|)
    return E._against(np.maximum, x, E._zero_of(x)) + np.log1p(np.exp(-np.abs(x)))


def _softplus(m, x):
    if m.is_graph:
        return SoftplusBackward0.apply(x, 1.0, 20.0)
    return _softplus_np(x)


def _mask(m, x, fn):
    """A boolean mask computed on the values (never part of the graph)."""
    return fn(m.data(x))


def _cast(mask, like):
    return mask.astype(like.dtype) if isinstance(mask, np.ndarray) and \
        isinstance(like, np.ndarray) else mask


# ---------------------------------------------------------------- special functions
class ErfBackward0(Node):
    """y = erf(x);  dx = g * 2/sqrt(pi) * exp(-x^2)."""

    def forward(self, a):
        E._check_complex("ErfBackward0", a._data.dtype)
        self.save(a)
        source = _opmath.source_array(a)
        if source is not None:  # torch's vectorized bfloat16 kernel: an approximate erf
            return _bf16_vec.erf(a._data, _bf16_vec.vector_lanes(source), _np_erf)
        return _np_erf(_float(a))

    def backward(self, m, g, x):
        return (m.exp(-(x * x)) * (2.0 / math.sqrt(math.pi)) * g,)  # torch's order


# ---------------------------------------------------------------- rectifiers
class LeakyReluBackward0(Node):
    """y = x if x > 0 else slope * x;  dx = g if x > 0 else slope * g."""

    def forward(self, a, negative_slope=0.01):
        x = _float(a, "leaky_relu_cpu")
        self.save(a)
        self.slope = negative_slope
        return array_math.where(x > 0, x, x * np.asarray(negative_slope, x.dtype))

    def backward(self, m, g, x):
        return (m.tie(m.where(_mask(m, x, lambda v: v > 0), g, g * self.slope), x),)


class RreluWithNoiseBackward0(LeakyReluBackward0):
    """y = x if x >= 0 else a * x, a drawn from U(lower, upper) per element in training, the
    mean slope in eval;  dx = g or a g."""


class HardtanhBackward0(Node):
    """y = clamp(x, lo, hi);  dx = g where lo < x < hi, else 0."""

    def forward(self, a, min_val=-1.0, max_val=1.0):
        x = a._data  # torch clamps integer inputs as integers (bounds truncated); no bools
        if x.dtype.kind == "b":
            raise RuntimeError("Bool inputs not supported for hardtanh")
        self.save(a)
        self.lo, self.hi = min_val, max_val
        return np.clip(x, np.asarray(min_val, x.dtype), np.asarray(max_val, x.dtype))

    def backward(self, m, g, x):
        # torch zeroes the gradient where x <= lo or x >= hi: NaN passes it through
        inside = _mask(m, x, lambda v: ~((v <= self.lo) | (v >= self.hi)))
        return (m.tie(m.keep(inside, g), x),)


class ThresholdBackward0(Node):
    """y = x if x > threshold else value;  dx = g where x > threshold."""

    def forward(self, a, threshold, value):
        x = a._data
        _dtype.refuse_complex(x.dtype, "threshold_cpu")
        self.save(a)
        self.threshold = threshold
        return array_math.where(x <= threshold, np.asarray(value, x.dtype), x)  # NaN stays NaN

    def backward(self, m, g, x):
        return (m.tie(m.keep(_mask(m, x, lambda v: ~(v <= self.threshold)), g), x),)


class EluBackward0(Node):
    """y = scale * (x if x > 0 else alpha * (exp(input_scale * x) - 1));
    dx = g * scale if x > 0 else g * scale * alpha * input_scale * exp(input_scale * x)."""

    def forward(self, a, alpha=1.0, scale=1.0, input_scale=1.0):
        x = _float(a, "elu_cpu")
        self.save(a)
        self.alpha, self.scale, self.input_scale = alpha, scale, input_scale
        negative = x <= 0
        neg = alpha * np.expm1(array_math.keep(negative, x) * input_scale)  # keeps -0.0 (torch)
        out = array_math.where(negative, neg.astype(x.dtype, copy=False), x)  # NaN: x
        return out * np.asarray(scale, x.dtype) if scale != 1.0 else out

    def backward(self, m, g, x):
        pos = _mask(m, x, lambda v: ~(v <= 0))  # torch's positive branch takes NaN too
        # exp only of the negative part (no overflow, no NaN): exp(0) = 1 at x = 0, where
        # torch's second derivative is 0 (its double backward masks x < 0)
        neg_part = m.keep(_mask(m, x, lambda v: v < 0), x)
        coef = self.scale * self.alpha * self.input_scale
        return (m.where(pos, g * self.scale, g * coef * m.exp(neg_part * self.input_scale)),)


class CeluBackward0(EluBackward0):
    """y = max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""


# ---------------------------------------------------------------- smooth gates
class GeluBackward0(Node):
    """y = x * Phi(x) (or its tanh approximation);  dx = Phi(x) + x * phi(x) (resp. the
    derivative of 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))))."""

    def forward(self, a, approximate="none"):
        if approximate not in ("none", "tanh"):
            raise RuntimeError("approximate argument must be either none or tanh.")
        x = _float(a, "GeluKernelImpl")
        self.save(a)
        self.approximate = approximate
        source = _opmath.source_array(a)
        if source is not None:  # torch's vectorized bfloat16 kernel, lane by lane
            self.bf16_source = source
            lanes = _bf16_vec.gelu_lanes(source)
            if approximate == "tanh":
                return _bf16_vec.gelu_tanh(x, lanes)
            self.cdf = _parallel.compute(_gelu_cdf, (x,))
            return _bf16_vec.gelu(x, lanes, _np_erf)
        if approximate == "tanh":
            return _parallel.compute(_gelu_tanh, (x,))
        self.cdf = _parallel.compute(_gelu_cdf, (x,))  # reused by backward
        return x * self.cdf

    bf16_source = None  # bfloat16 input: its layout says where torch's kernel vectorizes

    def backward(self, m, g, x):
        if self.bf16_source is not None and not m.is_graph:  # the gradient leads, in C order
            lanes = _bf16_vec.vector_lanes(self.bf16_source, any_order=False)
            if self.approximate == "tanh":
                return (_bf16_vec.gelu_tanh_grad(g, x, lanes),)
            return (_bf16_vec.gelu_grad(g, x, lanes, _np_erf),)
        if self.approximate == "tanh":
            if not m.is_graph:
                return (_parallel.compute(_gelu_tanh_grad, (g, x)),)
            return (_gelu_tanh_grad(g, x, m),)
        if m.is_graph:
            return (_gelu_grad(g, x, (_erf(m, x * math.sqrt(0.5)) + 1) * 0.5, m),)
        return (_parallel.compute(_gelu_grad, (g, x, self.cdf)),)


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(_SQRT_2_PI * (x + 0.044715 * x * x * x)))


def _gelu_cdf(x):
    """Phi(x) = (1 + erf(x / sqrt(2))) / 2; erf rounded first, then 1 + erf, as torch (folding
    the scale and the 1/2 into erf's polynomial rounds differently, 1e-5 off torch's values
    where Phi is small)."""
    cdf = _np_erf(x * np.asarray(math.sqrt(0.5), x.dtype))  # a fresh array: in place
    cdf += 1
    cdf *= 0.5
    return cdf


def _gelu_grad(g, x, cdf, m=array_math):
    if m.is_graph:
        pdf = m.exp(x * x * -0.5) * _INV_SQRT_2PI
        return g * (cdf + x * pdf)
    # the same steps in one buffer: (exp(x x -1/2) c) x + cdf, times g
    out = np.multiply(x, x)
    out *= np.asarray(-0.5, out.dtype)
    np.exp(out, out=out)
    out *= np.asarray(_INV_SQRT_2PI, out.dtype)
    out *= x
    out += cdf
    return np.multiply(out, g, out=out) if g.dtype == out.dtype else out * g


def _gelu_tanh_grad(g, x, m=array_math):
    t = m.tanh((x + x * x * x * 0.044715) * _SQRT_2_PI)
    inner = (x * x * (3 * 0.044715) + 1) * _SQRT_2_PI
    return g * ((t + 1) * 0.5 + x * 0.5 * (1 - t * t) * inner)


class SiluBackward0(Node):
    """y = x * sigmoid(x);  dx = g * s * (1 + x * (1 - s)), s = sigmoid(x), as torch's kernel:
    (g * s) times 1 + x * (1 - s) rounded once (its fused multiply-add)."""

    def forward(self, a):
        x = _float(a, "silu_cpu", complex_ok=True)
        self.save(a)
        return x * _np_sigmoid(x)

    def backward(self, m, g, x):
        s = _sigmoid(m, x)
        return (g * s * m.fma(x, 1 - s, 1),)


class MishBackward0(Node):
    """y = x * tanh(softplus(x));  dx = g * (t + x * sigmoid(x) * (1 - t^2)), t = tanh(sp(x))."""

    def forward(self, a):
        x = _float(a, "mish_cpu")
        self.save(a)
        return x * np.tanh(_softplus_np(x))

    def backward(self, m, g, x):
        t = m.tanh(_softplus(m, x))
        return (g * (t + x * _sigmoid(m, x) * (1 - t * t)),)


class SoftplusBackward0(Node):
    """y = log(1 + exp(beta x)) / beta (x itself where beta x > threshold);
    dx = g * sigmoid(beta x) (g where beta x > threshold)."""

    def forward(self, a, beta=1.0, threshold=20.0):
        x = _float(a, "softplus_cpu")
        self.save(a)
        self.beta, self.threshold = beta, threshold
        bx = x * np.asarray(beta, x.dtype) if beta != 1 else x
        soft = _softplus_np(bx) / np.asarray(beta, x.dtype) if beta != 1 else _softplus_np(bx)
        return np.where(bx > threshold, x, soft.astype(x.dtype, copy=False))

    def backward(self, m, g, x):
        bx = x * self.beta if self.beta != 1 else x
        linear = _mask(m, bx, lambda v: v > self.threshold)
        return (m.where(linear, g, g * _sigmoid(m, bx)),)


class LogSigmoidBackward0(Node):
    """y = log(sigmoid(x)) = -softplus(-x);  dx = g * sigmoid(-x)."""

    def forward(self, a):
        x = _float(a, "log_sigmoid_cpu")
        self.save(a)
        # min(x, 0) - log1p(e^-|x|) = -softplus(-x), with +0.0 (not -0.0) at x = inf as torch
        return E._against(np.minimum, x, E._zero_of(x)) - np.log1p(np.exp(-np.abs(x)))

    def backward(self, m, g, x):
        return (g * _sigmoid(m, -x),)


class HardsigmoidBackward0(Node):
    """y = clamp(x / 6 + 1/2, 0, 1);  dx = g / 6 where -3 < x < 3."""

    def forward(self, a):
        x = _float(a, "hardsigmoid_cpu")
        self.save(a)
        return np.clip(x / np.asarray(6, x.dtype) + np.asarray(0.5, x.dtype), 0, 1)

    def backward(self, m, g, x):
        inside = _mask(m, x, lambda v: (v > -3) & (v < 3))
        # torch's kernel multiplies by 1/6 rounded to float32, for float64 too
        return (m.keep(inside, g * float(np.float32(1.0 / 6))),)


class HardswishBackward0(Node):
    """y = x * clamp(x + 3, 0, 6) / 6;  dx = 0 (x < -3), g (x > 3), g * (x/3 + 1/2) else."""

    def forward(self, a):
        x = _float(a, "hardswish_cpu")
        self.save(a)
        return x * np.clip(x + np.asarray(3, x.dtype), 0, 6) / np.asarray(6, x.dtype)

    def backward(self, m, g, x):
        # torch: 0 for x <= -3, the slope for -3 < x < 3, g otherwise (x >= 3 and NaN)
        low = _mask(m, x, lambda v: v <= -3)
        middle_part = _mask(m, x, lambda v: (v > -3) & (v < 3))
        middle = g * (m.keep(middle_part, x) / 3 + 0.5)  # (torch's x / 3; no inf * 0 in graphs)
        return (m.keep(~low, m.where(middle_part, middle, g)),)


class HardshrinkBackward0(Node):
    """y = x where |x| > lambd else 0;  dx = g where |x| > lambd."""

    def forward(self, a, lambd=0.5):
        x = _float(a, "hardshrink_cpu")
        self.save(a)
        self.lambd = lambd
        return array_math.keep(~(np.abs(x) <= lambd), x)  # NaN stays NaN

    def backward(self, m, g, x):
        return (m.tie(m.keep(_mask(m, x, lambda v: ~(np.abs(v) <= self.lambd)), g), x),)


class SoftshrinkBackward0(HardshrinkBackward0):
    """y = x - lambd (x > lambd), x + lambd (x < -lambd), else 0;  dx = g where |x| > lambd."""

    def forward(self, a, lambd=0.5):
        x = _float(a, "softshrink_check")
        self.save(a)
        self.lambd = lambd
        lam = np.asarray(lambd, x.dtype)
        # torch: x * 0 inside [-lambd, lambd] (-0.0 for negative x), NaN stays NaN
        # (array_math.where: branch-free, np.where mispredicts on a mixed mask)
        where = array_math.where
        return where(x > lam, x - lam, where(x < -lam, x + lam, x * 0))


class GluBackward0(Node):
    """a, b = halves of x along dim; y = a * sigmoid(b);  da = g s, db = g a s (1 - s)."""

    def forward(self, x, dim=-1):
        data = _float(x, "glu_cpu")
        self.dim = dim % data.ndim
        n = data.shape[self.dim]
        if n % 2:
            raise RuntimeError(f"Halving dimension must be even, but dimension {self.dim} is "
                               f"size {n}")
        self.save(x)
        a, b = np.split(data, 2, axis=self.dim)
        return a * _np_sigmoid(b)

    def backward(self, m, g, x):
        half = m.data(x).shape[self.dim] // 2
        a = _narrow(x, self.dim, 0, half)
        b = _narrow(x, self.dim, half, half)
        s = _sigmoid(m, b)
        return (m.cat([g * s, g * a * s * (1 - s)], self.dim),)


def _narrow(x, dim, start, length):
    index = (slice(None),) * dim + (slice(start, start + length),)
    return x[index]


# ---------------------------------------------------------------- normalised exponentials
def _row_max(x, dim):
    """max along dim, keeping it; an empty tensor has nothing to shift (torch allows it)."""
    return np.maximum.reduce(x, axis=dim, keepdims=True) if x.size else np.zeros((), x.dtype)


def _softmax_shift(x, dim):
    """softmax's row max. Short last-axis rows of a power-of-two width (up to 128, attention's
    rows) fold their halves with np.maximum instead: max is exact in any order, so the value is
    np.max's (a row holding both +0 and -0 as its max may give the other zero, or of several
    NaNs another NaN: exp(x - max) is the same). np.max pays per row, and so does a fold along
    the rows (a short loop each): after the first fold the halves are folded into a transposed
    buffer, (width / 4, rows), whose further folds are one long loop each. (16, 4, 64, 64)
    float32: np.max 279, row folds 178, this 100 us; from 256 wide np.max is faster."""
    width = x.shape[dim] if x.ndim else 0
    if dim % max(x.ndim, 1) != x.ndim - 1 or not 2 <= width <= 128 or width & (width - 1):
        return _row_max(x, dim)
    top = np.maximum(x[..., :width // 2], x[..., width // 2:])  # (fresh: C-ordered)
    if width >= 4:
        rows, quarter = top.reshape(-1, width // 2), width // 4
        cols = np.empty((quarter, rows.shape[0]), x.dtype)
        np.maximum(rows[:, :quarter].T, rows[:, quarter:].T, out=cols)
        while cols.shape[0] > 1:
            half = cols.shape[0] // 2
            cols = np.maximum(cols[:half], cols[half:])
        top = cols.reshape(x.shape[:-1] + (1,))
    return top


def _rowwise(fn, dim, *operands):
    """fn(dim, *operands), reducing along ``dim``: split by rows of the first axis when that
    is not ``dim`` (each row's reduction is unchanged), else on one thread."""
    if dim == 0:
        return fn(dim, *operands)
    return _parallel.compute(lambda *parts: fn(dim, *parts), operands, rowwise=True)


def _softmax_np(dim, x):
    e = np.subtract(x, _softmax_shift(x, dim))
    np.exp(e, out=e)
    total = _dim_sum(array_math, e, dim)
    if dim % x.ndim != x.ndim - 1:
        e /= total
        return e
    e *= np.reciprocal(total, out=total)  # torch's last-dim kernel multiplies by 1 / sum
    return e


def _softmax_grad(dim, g, y, m=array_math):
    if m.is_graph or dim % y.ndim != y.ndim - 1:
        return y * (g - _dim_sum(m, g * y, dim))
    out = np.subtract(g, _rowsum.last_sum(g, y))  # the last axis: row dots by BLAS
    out *= y
    return out


def _log_softmax_grad(dim, g, y, m=array_math, at=None):
    """g - exp(y) * sum(g, dim), rounded once: torch's kernel (a fused multiply-add), the sum
    over the last dim in its vectors' order (``vector_sum``), over another one left to right.

    ``at``: g given by its values at that index alone, one place a row along dim (nll's
    gradient, zero elsewhere: the fused cross-entropy), so that each row's sum is its value
    (+0 for a -0 beside the row's zeros), and away from ``at`` the step is a product."""
    if at is None:
        last = dim % max(m.data(g).ndim, 1) == m.data(g).ndim - 1  # (torch's last-dim kernel
        total = m.vector_sum(g) if last else m.sum(g, dim, keepdim=True)  # sums by vectors)
        return m.fma(m.exp(y), -total, g)
    if m.is_graph:
        total = m.unsqueeze(g, dim)
        if m.data(y).shape[dim] > 1:
            total = total + 0.0
        return m.fma(m.exp(y), -total, m.index_into_zeros(g, tuple(y.shape), at, False))
    negated = np.negative(np.add(g, 0.0) if y.shape[dim] > 1 else g)  # -(row sum), a row each
    total = negated.reshape(g.shape[:dim] + (1,) + g.shape[dim:])
    return _fp.fma_at(np.exp(y), total, at, g, b_at=negated)


def _dim_sum(m, a, dim):
    """sum(a, dim), kept: over the last axis of an array by BLAS dot products (``_rowsum``)."""
    if m.is_graph or dim % a.ndim != a.ndim - 1:
        return m.sum(a, dim, keepdim=True)
    return _rowsum.last_sum(a)


def _log_softmax_np(dim, x, rounded=None):
    """x - max - log(sum(exp(x - max))); ``rounded``: torch's bfloat16 last-dim kernel, which
    keeps the sum and its log in bfloat16 (the result computed from them in float32)."""
    shifted = np.subtract(x, _row_max(x, dim))
    total = _dim_sum(array_math, np.exp(shifted), dim)
    if rounded is not None and dim == x.ndim - 1:
        total = _round_through(np.log(_round_through(total, rounded)), rounded)
        shifted -= total
        return shifted
    shifted -= np.log(total, out=total)
    return shifted


def log_softmax_values(x, dim):
    """log_softmax of a float32 or float64 array along dim (rows split over threads)."""
    return _rowwise(_log_softmax_np, dim, x)


def _round_through(x, dtype):
    """x rounded to ``dtype`` (bfloat16) and back to its own dtype."""
    return x.astype(dtype).astype(x.dtype)


class SoftmaxBackward0(Node):
    """y = exp(x - max) / sum(exp(x - max)) along dim;  dx = y * (g - sum(g * y, dim))."""
    result_layout = contiguous_result

    saves_output = True

    def forward(self, a, dim):
        x = _floating_only(a, dim, "softmax")
        self.dim = dim
        if x.ndim == 0:
            return np.ones_like(x)
        if dim % x.ndim != x.ndim - 1 and _opmath.source(a) is not None and x.size:  # inner
            return _bf16.softmax_inner(x, dim % x.ndim)  # torch's bfloat16 kernel rounds exp
        return _rowwise(_softmax_np, dim, x)

    def backward(self, m, g, y):
        if m.data(y).ndim == 0:
            return (g * 0,)
        if m.is_graph:
            return (_softmax_grad(self.dim, g, y, m),)
        return (_rowwise(_softmax_grad, self.dim, g, y),)


class LogSoftmaxBackward0(Node):
    """y = x - max - log(sum(exp(x - max))) along dim;  dx = g - exp(y) * sum(g, dim), rounded
    once (torch's fused multiply-add)."""
    result_layout = contiguous_result

    saves_output = True

    def forward(self, a, dim):
        x = _floating_only(a, dim, "log_softmax")
        self.dim = dim
        if x.ndim == 0:
            return np.zeros_like(x)
        rounded = _opmath.source(a)
        if rounded is not None:
            return _log_softmax_np(dim, x, rounded)
        return log_softmax_values(x, dim)

    def backward(self, m, g, y):
        if m.data(y).ndim == 0:
            return (g * 0,)
        if m.is_graph:
            return (_log_softmax_grad(self.dim, g, y, m),)
        return (_rowwise(_log_softmax_grad, self.dim, g, y),)


class PreluKernelBackward0(Node):
    """y = x if x > 0 else w * x (w per channel, dim 1);  dx = g or w g, dw = sum of x g where
    x <= 0, over every dim but the channel one."""

    def forward(self, x, weight):
        if x._data.dtype != weight._data.dtype:
            raise RuntimeError(f"prelu: Type promoting not supported. Got "
                               f"{x.dtype.scalar_name} and {weight.dtype.scalar_name}")
        data, w = _float(x, "prelu_cpu"), weight._data
        channels = data.shape[1] if data.ndim > 1 else 1
        if w.size not in (1, channels):
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {w.size} and channel size = {channels}.")
        self.save(x, weight)
        self.shape = (-1,) + (1,) * (data.ndim - 2) if data.ndim > 1 and w.size > 1 else (-1,)
        return array_math.where(data > 0, data, data * w.reshape(self.shape))

    def backward(self, m, g, x, weight):
        positive = _mask(m, x, lambda v: v > 0)
        w = m.reshape(weight, self.shape) if self.shape != (-1,) else weight
        # torch's double backward masks x < 0 (and NaN), not x <= 0: at x = 0 neither dx's
        # dependence on w nor dw's on x has a gradient
        negative = _mask(m, x, lambda v: ~(v >= 0))
        if m.is_graph:
            w = m.where(negative, w, m.data(w).reshape(self.shape))
        gx = m.tie(m.where(positive, g, g * w), x)  # d(dx)/dx: torch's zeros
        contribution = m.where(negative, x * g, g * 0)
        per_channel = m.data(weight).size > 1
        dims = [d for d in range(len(m.data(x).shape)) if not (per_channel and d == 1)]
        gw = m.reshape(m.sum(contribution, tuple(dims)), m.data(weight).shape)
        return gx, gw


def softmax(input, dim, dtype=None):
    """ember.softmax / Tensor.softmax: exp(x) / sum(exp(x)) along dim."""
    if dtype is not None:
        input = input.to(dtype)
    return SoftmaxBackward0.apply(input, input._wrap_dim(dim))


def log_softmax(input, dim, dtype=None):
    """ember.log_softmax / Tensor.log_softmax: x - logsumexp(x) along dim."""
    if dtype is not None:
        input = input.to(dtype)
    return LogSoftmaxBackward0.apply(input, input._wrap_dim(dim))


def _floating_only(a, dim, name):
    """The input's array; torch has no integer or bool softmax kernel (NumPy would run one)."""
    x = a._data
    if x.dtype.kind != "f":
        last = "lastdim_" if dim == max(x.ndim - 1, 0) else ""
        raise NotImplementedError(f'"{name}_{last}kernel_impl" not implemented for '
                                  f"'{_dtype.of_numpy(x.dtype).scalar_name}'")
    return x


def erf(input):
    """ember.erf / Tensor.erf."""
    return ErfBackward0.apply(input)
