"""torch's vectorized element-wise kernels on bfloat16, lane by lane: GELU's erf and tanh forms.

torch's CPU kernels run an element-wise op on bfloat16 through AVX2 vectors (32 values a step,
converted to float32) and the values a step does not fill (each part's tail) through a scalar
function. For GELU the two differ: the vectors use an approximate erf (Abramowitz-Stegun 7.1.26
with a fused multiply-add Horner scheme) and Sleef's exp and tanh, the scalar tail the C
library's erf. ``vector_lanes`` says which elements a vector reached; the functions here take
float32 arrays of bfloat16 values and return float32 results that round to torch's.
"""
import math

import numpy as np

from . import _parallel
from ._bf16 import _F32, _fma, rounded, thread_chunks

_STEP = 32  # bfloat16 values one vectorized step of cpu_kernel_vec handles (2 x 16, AVX2)
_GRAIN = 32768  # torch's internal GRAIN_SIZE: below it an element-wise kernel runs on one part
_GELU_PARALLEL = 16384  # GELU's own threshold for splitting over threads


def vector_lanes(source, grain=_GRAIN, any_order=True):
    """A boolean array over ``source`` (the bfloat16 input): True where torch's vectorized loop
    reaches the element. A compact array runs as one line in memory order, cut in parts over
    threads (``grain``); otherwise each contiguous last-axis row is a line (a strided row
    none). Without ``any_order`` the loop runs in C order (a C-contiguous operand leads)."""
    if source.flags.c_contiguous or (any_order and source.flags.f_contiguous):
        order = "C" if source.flags.c_contiguous else "F"
        lanes = np.zeros(source.size, bool)
        starts = thread_chunks(source.size, grain) if source.size >= grain else np.array([0])
        bounds = np.append(starts, source.size)
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            lanes[lo:lo + (hi - lo) // _STEP * _STEP] = True
        return lanes.reshape(source.shape, order=order)
    if source.ndim and source.strides[-1] == source.itemsize:
        width = source.shape[-1]
        return np.broadcast_to(np.arange(width) < width // _STEP * _STEP, source.shape)
    return np.zeros(source.shape, bool)


def scaled_sum(x, y, alpha, source, sign=1):
    """x + sign alpha y as torch's bfloat16/float16 add and sub with alpha (already rounded to
    the low dtype): in float32, rounded once, where a vector lane reaches (``source``: the
    low-dtype operand's layout); on the scalar tail in the low dtype's arithmetic, alpha y
    rounded first."""
    term = y * _F32(alpha)
    once = x + term if sign > 0 else x - term
    lanes = vector_lanes(source, any_order=False)
    if lanes.all():
        return once
    term = rounded(term)
    return np.where(lanes, once, x + term if sign > 0 else x - term)


def gelu_lanes(source):
    """``vector_lanes`` for GELU, which splits over threads from 16384 elements on."""
    size = source.size
    grain = max(size // _parallel.get_num_threads(), 1) if size > _GELU_PARALLEL else _GRAIN
    return vector_lanes(source, grain)


def _exp(x):
    return np.exp(x.astype(np.float64)).astype(_F32)  # Sleef's expf: within an ulp


def _tanh(x):
    """Sleef's tanhf: within an ulp, and exactly +-1 beyond |x| = 8.664339742."""
    y = np.tanh(x.astype(np.float64)).astype(_F32)
    return np.where(np.abs(x) > _F32(8.664339742), np.sign(x), y)


_ERF_P = [_F32(c) for c in (0.3275911, 0.254829592, -0.284496736, 1.421413741, -1.453152027,
                            1.061405429)]


def vector_erf(x):
    """torch's AVX2 erf: 1 - (r(t) t) exp(-x^2), t = 1 / (1 + p |x|), sign of x."""
    p, p1, p2, p3, p4, p5 = _ERF_P
    one = np.ones_like(x)
    t = one / _fma(np.full_like(x, p), np.abs(x), one)
    r = _fma(np.full_like(x, p5), t, np.full_like(x, p4))
    for coefficient in (p3, p2, p1):
        r = _fma(r, t, np.full_like(x, coefficient))
    result = _fma(-_exp(-(x * x)) * t, r, one)
    return np.where(np.signbit(x), -result, result)


def erf(x, lanes, scalar_erf):
    """erf as torch's bfloat16 kernel: ``vector_erf`` on the lanes, ``scalar_erf`` (float64
    in, float64 out) on the scalar tail."""
    return _split(x, lanes, vector_erf,
                  lambda v: scalar_erf(v.astype(np.float64)).astype(_F32))


def _split(x, lanes, vector_fn, scalar_fn):
    out = np.empty_like(x)
    out[lanes] = vector_fn(x[lanes])
    scalar = ~lanes
    if scalar.any():
        out[scalar] = scalar_fn(x[scalar])
    return out


_ALPHA = _F32(math.sqrt(0.5))
_HALF, _ONE = _F32(0.5), _F32(1)


def gelu(x, lanes, erf):
    """GELU x (1 + erf(x / sqrt 2)) / 2, as torch's bfloat16 kernel: ``erf`` (float64) for the
    scalar tail."""
    def scalar(v):
        return v * _HALF * (_ONE + erf((v * _ALPHA).astype(np.float64)).astype(_F32))
    return _split(x, lanes, lambda v: v * _HALF * (_ONE + vector_erf(v * _ALPHA)), scalar)


_BETA = _F32(math.sqrt(2) * (2 / math.sqrt(math.pi)) * 0.5)
_KAPPA = _F32(0.044715)


def gelu_tanh(x, lanes):
    """GELU's tanh form 0.5 x (1 + tanh(beta (x + kappa x^3))), as torch's bfloat16 kernel."""
    def vector(v):
        return _HALF * v * (_ONE + _tanh(_BETA * (v + _KAPPA * (v * v * v))))

    def scalar(v):  # the C library's tanh
        inner = _BETA * (v + _KAPPA * (v * v * v))
        return _HALF * v * (_ONE + np.tanh(inner.astype(np.float64)).astype(_F32))
    return _split(x, lanes, vector, scalar)


_BETA_PDF = _F32(2 / math.sqrt(math.pi) * math.sqrt(0.5) * 0.5)  # 1 / sqrt(2 pi)
_BETA_PDF_SCALAR = _F32(2 / math.sqrt(math.pi)) * _ALPHA * _HALF  # the tail's float products


def gelu_grad(g, x, lanes, erf):
    """GELU's gradient g (cdf + x pdf) as torch's bfloat16 backward kernel."""
    def vector(v, dy):
        cdf = _HALF * (_ONE + vector_erf(v * _ALPHA))
        return dy * (cdf + v * (_BETA_PDF * _exp(v * v * _F32(-0.5))))

    def scalar(v, dy):
        cdf = _HALF * (_ONE + erf((v * _ALPHA).astype(np.float64)).astype(_F32))
        return dy * (cdf + v * (_BETA_PDF_SCALAR * _exp(v * v * _F32(-0.5))))
    return _split2(g, x, lanes, vector, scalar)


def gelu_tanh_grad(g, x, lanes):
    """The tanh form's gradient, as torch's bfloat16 backward kernel: 0.5 (1 + t) +
    0.5 x (1 - t^2) beta (1 + 3 kappa x^2), t = tanh(beta (x + kappa x^3))."""
    def grad(v, dy, cube, tanh):
        t = tanh(_BETA * (v + _KAPPA * cube))
        inner = _BETA * (_ONE + _F32(3) * _KAPPA * (v * v))
        slope = _fma(-t, t, np.ones_like(t))  # 1 - t t: GCC fuses it
        return dy * (_HALF * (_ONE + t) + _HALF * v * slope * inner)

    def scalar(v, dy):
        return grad(v, dy, v * v * v, lambda u: np.tanh(u.astype(np.float64)).astype(_F32))
    return _split2(g, x, lanes, lambda v, dy: grad(v, dy, v * v * v, _tanh), scalar)


def _split2(g, x, lanes, vector_fn, scalar_fn):
    g = np.broadcast_to(np.asarray(g, _F32), x.shape)
    out = np.empty_like(x)
    out[lanes] = vector_fn(x[lanes], g[lanes])
    scalar = ~lanes
    if scalar.any():
        out[scalar] = scalar_fn(x[scalar], g[scalar])
    return out
