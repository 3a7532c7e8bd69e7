"""Special functions NumPy lacks, vectorised over float64 arrays: lgamma, digamma, polygamma
(through Hurwitz's zeta), erfc, erfinv and the modified Bessel functions i0 and i1.

Each takes an ndarray and returns one of the same shape and dtype; lower precisions compute in
float64 and round once (as torch's float32 kernels match to ~1 ulp)."""
import math

import numpy as np

from .activation_ops import _np_erf

# Lanczos' approximation, g = 7, nine coefficients: ~1e-15 relative for Gamma(x), x >= 0.5
_LANCZOS_G = 7.0
_LANCZOS = (0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
            -176.61502916214059, 12.507343278686905, -0.13857109526572012,
            9.9843695780195716e-6, 1.5056327351493116e-7)
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)
# Bernoulli numbers B_2, B_4, ..., B_16 (the Euler-Maclaurin and asymptotic tails)
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510)


def _in_float64(fn):
    """Compute ``fn`` in float64 (quietly: NaN and inf come as torch's) and cast back."""
    def wrapper(x, *args):
        dt = x.dtype
        with np.errstate(all="ignore"):
            out = np.asarray(fn(np.asarray(x, np.float64), *args))
            return out.astype(dt, copy=False)
    wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
    return wrapper


def _lgamma_positive(x):
    """log Gamma(x) for x >= 0.5 (Lanczos)."""
    z = x - 1
    series = np.full_like(z, _LANCZOS[0])
    for i, c in enumerate(_LANCZOS[1:], 1):
        series += c / (z + i)
    t = z + (_LANCZOS_G + 0.5)
    return _HALF_LOG_2PI + (z + 0.5) * np.log(t) - t + np.log(series)


@_in_float64
def lgamma(x):
    """log |Gamma(x)|; inf at the poles (0, -1, ...) and at +-inf, as torch."""
    low = x < 0.5
    safe = np.where(low, 1 - x, x)
    out = _lgamma_positive(np.where(np.isinf(safe), 1.0, safe))
    # reflection: lgamma(x) = log(pi / |sin(pi x)|) - lgamma(1 - x), sin taken of x's fraction
    fraction = x - np.round(x)
    out = np.where(low, np.log(np.pi / np.abs(np.sin(np.pi * fraction))) - out, out)
    out = np.where((x == 1) | (x == 2), 0.0, out)  # the roots, exactly (as torch's)
    return np.where(np.isinf(x), np.inf, out)


def _digamma_positive(x):
    """psi(x) for x > 0: the recurrence psi(x) = psi(x + 1) - 1/x up to 10, then the
    asymptotic series."""
    acc = np.zeros_like(x)
    for _ in range(10):
        small = x < 10
        acc -= np.where(small, 1 / x, 0)
        x = np.where(small, x + 1, x)
    inv2 = 1 / (x * x)
    tail = np.zeros_like(x)
    for k in range(len(_BERNOULLI) - 1, -1, -1):
        tail = tail * inv2 + _BERNOULLI[k] / (2 * (k + 1))
    return acc + np.log(x) - 0.5 / x - tail * inv2


@_in_float64
def digamma(x):
    """psi(x) = d/dx log Gamma(x); NaN at negative integers, -inf at +0 and inf at -0 (torch)."""
    low = x < 0.5
    out = _digamma_positive(np.where(low, 1 - x, x))
    # reflection: psi(x) = psi(1 - x) - pi / tan(pi x)
    fraction = x - np.round(x)
    out = np.where(low, out - np.pi / np.tan(np.pi * fraction), out)
    out = np.where((x < 0) & (fraction == 0), np.nan, out)
    return np.where(x == 0, np.copysign(np.inf, -x), out)


def _hurwitz_zeta(s, q):
    """zeta(s, q) = sum_k (q + k)^-s for an integer s >= 2 (Euler-Maclaurin past q + k >= 10);
    inf at q = 0, -1, ...; q below -1e4 gives NaN (the shifted sum would be too long)."""
    q = np.where(q < -1e4, np.nan, q)
    acc = np.zeros_like(q)
    a = q.copy()
    while True:
        small = a < 10  # NaN compares False: it leaves the loop
        if not small.any():
            break
        acc += np.where(small, a ** -s, 0)
        a = np.where(small, a + 1, a)
    tail, rising, power = 0.0, float(s), a ** (-s - 1)
    inv2 = 1 / (a * a)
    for k, b in enumerate(_BERNOULLI):  # B_2k / (2k)! * s (s+1) ... (s+2k-2) a^(-s-2k+1)
        tail = tail + b / math.factorial(2 * k + 2) * rising * power
        rising *= (s + 2 * k + 1) * (s + 2 * k + 2)
        power = power * inv2
    out = acc + a ** (1 - s) / (s - 1) + 0.5 * a ** -s + tail
    return np.where((q <= 0) & (q == np.floor(q)), np.inf, out)


@_in_float64
def polygamma(x, n):
    """The n-th derivative of psi: digamma for n = 0, else (-1)^(n+1) n! zeta(n + 1, x)."""
    if n == 0:
        return digamma(x)
    return (-1.0) ** (n + 1) * math.factorial(n) * _hurwitz_zeta(n + 1, x)


def _erfc_fraction(x):
    """erfc(x) for x >= 2: exp(-x^2) / sqrt(pi) over the continued fraction
    x + (1/2) / (x + 1 / (x + (3/2) / (x + ...))), evaluated from 80 terms back."""
    f = x.copy()
    for k in range(80, 0, -1):
        f = x + (k / 2) / f
    return np.exp(-x * x) / (math.sqrt(math.pi) * f)


@_in_float64
def erfc(x):
    """1 - erf(x), without the cancellation for large x."""
    large = x >= 2
    out = 1 - _np_erf(x)
    if large.any():
        out[large] = _erfc_fraction(x[large])
    return out


def _erfinv_guess(x):
    """Giles' single-precision approximation of erfinv (a starting point for Newton)."""
    w = -np.log((1 - x) * (1 + x))
    central = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087,
               -0.00125372503, -0.00417768164, 0.246640727, 1.50140941)
    tail = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773,
            -0.0076224613, 0.00943887047, 1.00167406, 2.83297682)
    u, v = w - 2.5, np.sqrt(np.maximum(w, 0)) - 3
    p, q = np.zeros_like(x), np.zeros_like(x)
    for a, b in zip(central, tail):
        p, q = p * u + a, q * v + b
    return np.where(w < 5, p, q) * x


@_in_float64
def erfinv(x):
    """The inverse of erf on (-1, 1); +-inf at +-1, NaN outside."""
    a = np.abs(x)
    z = np.abs(_erfinv_guess(np.where(a < 1, a, 0.0)))
    tail = a > 0.5
    target = np.log1p(-np.where(tail, a, 0.0))
    for _ in range(4):  # Newton on erf(z) = a; near 1 on log erfc(z) = log(1 - a) (no cancellation)
        slope = 2 / math.sqrt(math.pi) * np.exp(-z * z)
        complement = erfc(z)
        step = np.where(tail, (np.log(complement) - target) * complement / -slope,
                        (_np_erf(z) - a) / slope)
        z = z - step
    out = np.copysign(z, x)
    out = np.where(a == 1, np.copysign(np.inf, x), out)
    return np.where(a > 1, np.nan, out)


def _bessel_i(order, x):
    """I_order(|x|) for order 0 or 1: the power series up to 15, the asymptotic one beyond."""
    a = np.abs(x)
    quarter = a * a / 4
    term = np.ones_like(a) if order == 0 else a / 2
    series = term.copy()
    for k in range(1, 60):
        term = term * quarter / (k * (k + order))
        series += term
    mu = 4.0 * order * order
    coefficient, asymptotic = np.ones_like(a), np.ones_like(a)
    big = np.where(a > 15, a, 15.0)
    for k in range(1, 25):
        coefficient = coefficient * -(mu - (2 * k - 1) ** 2) / (k * 8 * big)
        asymptotic += coefficient
    asymptotic *= np.exp(big) / np.sqrt(2 * np.pi * big)
    return np.where(a > 15, asymptotic, series)


@_in_float64
def i0(x):
    """The modified Bessel function of the first kind, order 0."""
    return _bessel_i(0, x)


@_in_float64
def i1(x):
    """The modified Bessel function of the first kind, order 1 (odd)."""
    return np.copysign(_bessel_i(1, x), x)
