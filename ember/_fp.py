"""Floating-point helpers below the ops: NumPy's floating-point warnings silenced inside ember's
kernels, and a fused multiply-add rounded once, as torch's kernels compute one.

Warnings: torch computes NaN and inf without a word (``x / 0``, ``log(0)``, ``inf - inf``).

``quiet()`` switches NumPy's error state to "ignore" for the current context only and returns a
token for ``restore(token)``; the caller's own ``np.errstate`` / ``np.seterr`` and other threads
are untouched. It sets NumPy's error-state context variable directly (a fraction of the cost of
entering ``np.errstate``, which builds a new state object each time); where that private name is
missing, it falls back to ``np.errstate``.

``call_quiet(f, *args)`` is ``f(*args)`` with NumPy quiet, for a kernel that only computes (a
fast path's ufunc): it runs ``f`` inside a context made once where NumPy is quiet. Entering a
context swaps a pointer, where setting the variable builds a new mapping and a token each time
(~200 against ~1500 instructions, per op). One thread at a time can be inside that context: a
second one gets RuntimeError and runs the kernel again with ``call_quiet_here`` (the kernel has
no side effects, so running it twice after an error of its own is harmless too).
"""
import contextvars
import functools
from fractions import Fraction

import numpy as np

from ._memory_format import preserved_order

try:
    from numpy._core import _ufunc_config as _config
    _STATE = _config._extobj_contextvar
    _QUIET = _config._make_extobj(all="ignore")
except (ImportError, AttributeError):  # another NumPy: the public, slower context manager
    _STATE = None

if _STATE is not None:  # C calls only: no Python frame per op
    # ``enter(QUIET)`` is ``quiet()`` without the partial's call layer (the per-op fast paths)
    QUIET, enter = _QUIET, _STATE.set
    quiet = functools.partial(enter, QUIET)
    quiet.__doc__ = "Silence NumPy's floating-point warnings until ``restore(token)``."
    restore = _STATE.reset
else:
    QUIET = None

    def enter(_):
        """Silence NumPy's floating-point warnings until ``restore(token)``."""
        state = np.errstate(all="ignore")
        state.__enter__()
        return state

    quiet = functools.partial(enter, QUIET)

    def restore(token):
        token.__exit__(None, None, None)


def call_quiet_here(function, *args):
    """``function(*args)`` with NumPy quiet, in the current context (``call_quiet``'s fallback)."""
    token = quiet()
    try:
        return function(*args)
    finally:
        restore(token)


if _STATE is not None:
    _QUIET_CONTEXT = contextvars.Context()
    _QUIET_CONTEXT.run(enter, QUIET)
    call_quiet = _QUIET_CONTEXT.run
else:
    call_quiet = call_quiet_here


# fused multiply-add: a * b + c rounded once (NumPy has none; torch's kernels use the CPU's)
_BELOW_FLOAT32, _HALF_FLOAT32 = np.uint64((1 << 29) - 1), np.uint64(1 << 28)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_EXPONENT_BITS = np.uint64(0x7FF0000000000000)


def fma(a, b, c):
    """a * b + c rounded once, in ``a``'s dtype (float32 or float64; ``b`` and ``c`` arrays of
    that dtype or numbers)."""
    if a.dtype == _F32:
        return fma32(a, b, c)
    if a.dtype == _F64:
        return fma64(a, b, c)
    raise TypeError(f"fma: no {a.dtype} kernel")


def fma32(a, b, c, exact_sums=False):
    """float32 a * b + c rounded once, as a fused multiply-add: a * b is exact in float64, and
    where the float64 sum lies exactly halfway between two float32 values (rare), the sign of
    that sum's own rounding error (two-sum) decides the float32 rounding. ``exact_sums``: the
    caller's float64 sums are mostly exact (a fused cross-entropy's gradient, where ties are
    frequent and harmless): a small array looks for a rounding error first."""
    a = np.asarray(a)  # (a NumPy scalar: a 0-d array)
    if getattr(b, "shape", ()) in ((), a.shape):  # (b, c: arrays or numbers)
        p = a.astype(np.float64, order=preserved_order(a))  # (then in place: faster than
        # multiply's own dtype= casts; in a's layout, as torch's output, not NumPy's 'K' of it)
        np.multiply(p, b, out=p)
    else:
        p = np.multiply(a, b, dtype=np.float64)
    whole = p.size <= _WHOLE  # (small: ties settled over the whole array, p kept for that)
    if getattr(c, "shape", ()) in ((), p.shape):  # (in place: of two NaNs NumPy's loops give
        s = p.copy(order="K") if whole else p  # one or the other operand's depending on it)
        np.add(s, c, out=s)
    else:  # (c broadcasts s)
        s = np.add(p, c)
    out = s.astype(np.float32)
    err = None
    if whole and exact_sums:
        err = _sum_error(p, s, c)
        if not err.any():
            return out
    # the float64 mantissa bits below float32's: exactly half of its step at a tie
    halfway = np.equal(np.bitwise_and(s.view(np.uint64), _BELOW_FLOAT32), _HALF_FLOAT32)
    if not halfway.any():
        return out
    if whole:  # (a few calls over the whole array)
        err = _sum_error(p, s, c) if err is None else err
        fix = halfway & (err != 0)
        if fix.any():
            out[fix] = _tie_rounded(s[fix], err[fix])
        return out
    tie = np.flatnonzero(halfway)  # (at the ties' places: rare in random data)
    p = np.multiply(_flat_at(a, out.shape, tie), _flat_at(b, out.shape, tie), dtype=np.float64)
    c = _flat_at(c, out.shape, tie).astype(np.float64)
    s = p + c  # s's own value there
    err = _sum_error(p, s, c)
    inexact = err != 0
    out.flat[tie[inexact]] = _tie_rounded(s[inexact], err[inexact])  # (flat: any layout)
    return out


_WHOLE = 4096  # up to this size ties are settled over the whole array (a few calls), beyond it
# at their places (fewer elements: ties are rare in random data)


def _sum_error(p, s, c):
    """s = p + c rounded (float64): the exact p + c - s (two-sum)."""
    back = s - p
    return (p - (s - back)) + (c - back)


def _tie_rounded(s, err):
    """float32 s (float64 ties halfway between float32 neighbours) for s + err (err != 0): the
    neighbour on err's side."""
    inner = (s.view(np.uint64) & ~_BELOW_FLOAT32).view(np.float64).astype(np.float32)
    outer = np.nextafter(inner, np.copysign(np.float32(np.inf), inner))
    return np.where((err > 0) == (s > 0), outer, inner)


def _flat_at(v, shape, positions):
    """v broadcast to ``shape``, at flat ``positions`` (without a broadcast view where v has
    that shape already: the ties of a small array are a good part of its cost)."""
    if type(v) is np.ndarray and v.shape == shape and v.flags.c_contiguous:
        return v.reshape(-1)[positions]
    return np.broadcast_to(v, shape).flat[positions]


def fma_at(a, b, index, c, b_at=None):
    """a * b + C rounded once, C zero but for ``c`` at ``index`` (distinct places; ``b``
    broadcasting to ``a``'s shape; ``b_at``: b's values at ``index`` where the caller has them;
    ``a`` a fresh array, spent): ``fma`` there, elsewhere the product alone, which is that one
    rounding but where the exact product is 0 (a or b 0), where the fused step gives +0."""
    if b_at is None:
        b_at = np.broadcast_to(b, a.shape)[index]
    at = np.asarray(a[index])
    at = fma32(at, b_at, c, exact_sums=True) if at.dtype == _F32 else fma(at, b_at, c)
    zero = None if a.all() and np.asarray(b).all() else (a == 0) | (b == 0)
    out = np.multiply(a, b, out=a)
    if zero is not None:
        out[zero & (out == 0)] = 0  # (0 * inf stays NaN)
    out[index] = at
    return out


def fma64(a, b, c):
    """float64 a * b + c rounded once (a fused multiply-add): a * b split exactly into p + e
    (Dekker's product), p + c into s + t (two-sum), then s + (t + e) rounded (a zero with the
    sign of s where that is 0: a sum of zeros, -0 for -0 + -0); where that lands
    within a hair of a rounding tie (where the inner sum's own rounding could decide it, rare),
    the exact sum of rationals decides. Where a step overflows (|a * b| near float64's limit)
    or meets inf or NaN, a * b + c rounded twice."""
    p = a * b
    scale = 134217729.0  # 2^27 + 1: Veltkamp's split into 26-bit halves
    ta, tb = a * scale, b * scale
    ah, bh = ta - (ta - a), tb - (tb - b)
    al, bl = a - ah, b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl  # p + e == a * b exactly
    s = p + c
    back = s - p
    t = (p - (s - back)) + (c - back)  # s + t == p + c exactly
    u = t + e
    out = np.asarray(s + u)
    finite = np.isfinite(out)
    rest = np.abs((s - out) + u)  # what out misses of the sum, near enough to spot a tie:
    # half a step above |out| (its power of two times 2^-53), or below it where |out| is a
    # power of two (half that)
    half = (np.abs(out).view(np.uint64) & _EXPONENT_BITS).view(np.float64) * 2.0 ** -53
    near_tie = (np.abs(rest - half) <= half * 1e-6) | (np.abs(rest - half / 2) <= half * 5e-7)
    near = np.flatnonzero(near_tie & finite)
    if near.size:  # only where t + e itself rounded can s + u be off: exact rationals decide
        sn = np.broadcast_to(s, out.shape).flat[near]  # (a zero result is among them: where
        zeros = near[(out.flat[near] == 0) & (sn == 0)]  # s is 0, its sign is the sum's,
        out.flat[zeros] = np.broadcast_to(s, out.shape).flat[zeros]  # -0 for -0 + -0)
        tn, en = (np.broadcast_to(v, out.shape).flat[near] for v in (t, e))
        un = tn + en
        back = un - tn
        for i in near[(tn - (un - back)) + (en - back) != 0]:
            terms = (float(np.broadcast_to(v, out.shape).flat[i]) for v in (a, b, c))
            x, y, z = (Fraction(v) for v in terms)
            out.flat[i] = float(x * y + z)
    if not finite.all():
        out = np.where(finite, out, s)
    return out


# torch's vectorized row reductions (vec::reduce_all) on an AVX2 CPU: the lanes one vector
# holds, and whether its last step folds them pairwise (float32's SIMD reduction: 4 + 4, 2 + 2,
# 1 + 1) or adds them left to right (float64's generic one)
_VECTOR = {_F32: (8, True), _F64: (4, False)}


def vector_sum(a):
    """sum(a, -1), kept, in the order of torch's vectorized row reduction (``reduce_all``, as an
    AVX2 CPU runs it; log_softmax's backward): lane sums over whole vectors, a short tail added
    to the first lanes, then the lanes folded (float32) or added in order (float64); a row
    shorter than a vector left to right. Other dtypes: NumPy's sum."""
    lanes, fold = _VECTOR.get(a.dtype, (0, False))
    n = a.shape[-1] if a.ndim else 0
    if not lanes or not n:
        return np.sum(a, axis=-1, keepdims=True)
    if n < lanes:
        return np.cumsum(a, axis=-1)[..., -1:]  # (a running sum: left to right)
    full = n - n % lanes
    if full <= 16 * lanes:  # vector after vector, lane by lane
        acc = a[..., :lanes].copy()
        for start in range(lanes, full, lanes):
            acc += a[..., start:start + lanes]
    else:  # (many: the vectors first in memory, then added in order along that axis)
        vectors = a[..., :full].reshape(a.shape[:-1] + (full // lanes, lanes))
        acc = np.add.reduce(np.ascontiguousarray(np.moveaxis(vectors, -2, 0)), axis=0)
    if full < n:
        acc[..., :n - full] += a[..., full:]
    if fold:
        while acc.shape[-1] > 1:
            half = acc.shape[-1] // 2
            acc = acc[..., :half] + acc[..., half:]
        return acc
    total = acc[..., :1].copy()
    for k in range(1, lanes):
        total += acc[..., k:k + 1]
    return total
