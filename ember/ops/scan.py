"""Scans along a dim: cumsum, cumprod (torch's zero-safe cumprod gradient) and logcumsumexp."""
import numpy as np

from .. import _dtype
from .._memory_format import contiguous_result
from ..autograd import _opmath
from ..autograd.graph import Node
from .elementwise_extra import _logaddexp
from .shape import _dim


def _prepare(a, dim, dtype):
    x = a._data
    if dtype is not None:
        x = x.astype(_dtype.to_numpy_dtype(dtype))
    elif x.dtype.kind in "bui" and x.dtype != np.int64:
        x = x.astype(np.int64)  # torch scans bools and small ints as int64
    return x, _dim(x.ndim, dim)


# torch's CPU scans carry their running value in a wider type (its acc_type) and round each
# output: float16 and bfloat16 in float32, float32 in float64, complex64 in complex128
_F32 = np.dtype(np.float32)
_WIDER = {np.dtype(t): np.dtype(w) for t, w in ((np.float16, np.float32), (np.float32, np.float64),
                                                (np.complex64, np.complex128))}


def _scan(ufunc, x, dim, node):
    """``ufunc.accumulate`` along ``dim`` carried in torch's wider type, each output rounded."""
    wide = _F32 if node.widened else _WIDER.get(x.dtype)  # (bfloat16: widened to float32)
    if wide is None or wide == x.dtype:  # (an integer dtype stays itself: NumPy would widen)
        return ufunc.accumulate(x, axis=dim, dtype=x.dtype)
    carried = x.astype(wide)  # (then in place: faster than accumulate's own dtype= casts)
    return ufunc.accumulate(carried, axis=dim, out=carried).astype(x.dtype)


def _note_input(node, a, x, dtype):
    """What the backward needs to scan as torch: the input's dtype (torch casts the gradient to
    it first) and whether it is bfloat16, which ember computes widened to float32."""
    source = _opmath.source(a) if dtype is None else None
    node.widened = source is not None
    node.in_dtype = x.dtype if source is None else source


class CumsumBackward0(Node):
    """out[i] = sum of a[:i+1] along dim;  da = reverse cumulative sum of g."""
    result_layout = contiguous_result

    def forward(self, a, dim, dtype=None):
        x, self.dim = _prepare(a, dim, dtype)
        _note_input(self, a, a._data, dtype)
        return _scan(np.add, x, self.dim, self) if x.ndim else x.copy()

    def backward(self, m, g):
        if not g.ndim:
            return (g,)
        return (_reverse_cumsum(m, m.conform(g, g.shape, self.in_dtype), self.dim, self),)


def _reverse_cumsum(m, x, dim, node):
    """Sums from the end: torch's cumsum of the flipped ``x``, as ``node``'s scans carry it."""
    flipped = m.flip(x, (dim,))
    if m.is_graph:
        return m.flip(CumsumBackward0.apply(flipped, dim=dim), (dim,))
    return m.flip(_scan(np.add, flipped, dim, node), (dim,))


class CumprodBackward0(Node):
    """out[i] = prod of a[:i+1] along dim;  da[i] = sum_{j>=i} g[j] * out[j] / a[i], computed
    without the division where a slice holds a zero."""
    result_layout = contiguous_result

    saves_output = True

    def forward(self, a, dim, dtype=None):
        x, self.dim = _prepare(a, dim, dtype)
        _note_input(self, a, a._data, dtype)
        self.save(a)
        return _scan(np.multiply, x, self.dim, self) if x.ndim else x.copy()

    def backward(self, m, g, a, out):
        if not g.ndim:
            return (g,)
        g = m.conform(g, g.shape, self.in_dtype)  # torch casts the gradient to the input's dtype
        if not (m.data(a) == 0).any():
            return (_reverse_cumsum(m, g * out, self.dim, self) / a,)
        return (_cumprod_grad_with_zeros(m, g, a, self.dim),)


def _cumprod_grad_with_zeros(m, g, a, dim):
    """da[i] = (prod a[:i]) * s[i], where s[i] = g[i] + a[i+1] * s[i+1] (s[n-1] = g[n-1]):
    no division, so exact where a holds zeros; differentiable under create_graph."""
    n = a.shape[dim]
    lead = (slice(None),) * dim

    def at(x, i):
        return m.index(x, lead + (i,))

    before = m.cat([m.ones_like(m.index(a, lead + (slice(0, 1),))),
                    m.cumprod(m.index(a, lead + (slice(0, n - 1),)), dim)], dim)
    s = [at(g, n - 1)]
    for i in range(n - 2, -1, -1):
        s.append(at(g, i) + at(a, i + 1) * s[-1])
    return before * m.stack(s[::-1], dim)


def cumsum(input, dim, *, dtype=None):
    """Cumulative sum along ``dim``."""
    return CumsumBackward0.apply(input, dim=dim, dtype=dtype)


def cumprod(input, dim, *, dtype=None):
    """Cumulative product along ``dim``."""
    return CumprodBackward0.apply(input, dim=dim, dtype=dtype)


class LogcumsumexpBackward0(Node):
    """out[i] = log sum of exp(a[:i+1]) along dim, accumulated pairwise by logaddexp (stable,
    -inf entries add nothing);  da[j] = sum_{i>=j} g[i] exp(a[j] - out[i]), summed in log space
    for the positive and negative parts of g apart (torch's formula, so its NaN where a and out
    are both -inf)."""
    result_layout = contiguous_result

    saves_output = True

    def forward(self, a, dim):
        x = a._data
        if x.dtype.kind not in "fc":
            raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for "
                                      f"'{_dtype.from_numpy_dtype(x.dtype).scalar_name}'")
        self.dim = _dim(x.ndim, dim)
        _note_input(self, a, x, None)
        self.save(a)
        return _log_cumsum(x, self.dim, self) if x.ndim else x.copy()

    def backward(self, m, g, a, out):
        if not g.ndim or not m.data(g).size:
            return (g,)
        if m.data(g).dtype.kind == "c":  # log g is defined for complex g: one log-space sum
            return (m.exp(_reverse_logcumsumexp(m, m.log(g) - out, self.dim, self) + a),)
        lowest = np.finfo(m.data(g).dtype).min  # log(0) as torch writes it: finite
        log_abs = m.log(m.abs(g))
        parts = [m.where(side, log_abs, lowest) - out for side in (g > 0, g < 0)]
        positive, negative = (m.exp(_reverse_logcumsumexp(m, p, self.dim, self) + a)
                              for p in parts)
        return (positive - negative,)


def _reverse_logcumsumexp(m, x, dim, node):
    flipped = m.flip(x, (dim,))
    if m.is_graph:
        return m.flip(LogcumsumexpBackward0.apply(flipped, dim=dim), (dim,))
    return m.flip(_log_cumsum(flipped, dim, node), (dim,))


def _log_cumsum(x, dim, node):
    """log(cumsum(exp(x))) along dim by logaddexp, pairwise from the first, carried as torch's
    scan carries it (see _scan)."""
    if x.dtype.kind != "c":
        return _scan(np.logaddexp, x, dim, node)
    out = np.moveaxis(x.copy(), dim, 0)  # NumPy's logaddexp has no complex loop: step
    for i in range(1, len(out)):
        out[i] = _logaddexp(out[i - 1], out[i])
    return np.moveaxis(out, 0, dim)


def logcumsumexp(input, dim):
    """log(cumsum(exp(input), dim)), computed stably."""
    return LogcumsumexpBackward0.apply(input, dim=dim)
