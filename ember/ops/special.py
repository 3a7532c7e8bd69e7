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
    """zeta(s, q) = sum_k (q + k)^-s for s > 1 (Euler-Maclaurin past q + k >= 10; s and q
    broadcast); inf at q = 0, -1, ...; q below -1e4 gives NaN (the shifted sum would be too
    long)."""
    s, q = np.broadcast_arrays(np.asarray(s, np.float64), np.asarray(q, np.float64))
    q = np.where(q < -1e4, np.nan, q)
    acc = np.zeros_like(q)
    a = q.copy()
    # the tail's terms shrink as ((s + 2k) / (2 pi a))^2: summed directly up to a >= 0.8 s,
    # which stops early where the terms no longer reach the sum (large s)
    done = np.zeros(q.shape, bool)
    while True:
        small = ~done & (a < np.maximum(10, 0.8 * s))  # NaN compares False: it leaves
        if not small.any():
            break
        term = np.where(small, a ** -s, 0)
        acc += term
        a = np.where(small, a + 1, a)
        done |= small & (a > 0) & (np.abs(term) < 1e-18 * np.abs(acc))
    tail, rising, power = 0.0, s * 1.0, a ** (-s - 1)
    inv2 = 1 / (a * a)
    for k, b in enumerate(_BERNOULLI):  # B_2k / (2k)! * s (s+1) ... (s+2k-2) a^(-s-2k+1)
        tail = tail + b / math.factorial(2 * k + 2) * rising * power
        rising = rising * (s + 2 * k + 1) * (s + 2 * k + 2)
        power = power * inv2
    out = np.where(done, acc, acc + a ** (1 - s) / (s - 1) + 0.5 * a ** -s + tail)
    return np.where((q <= 0) & (q == np.floor(q)), np.inf, out)


def _zeta_special(x, q):
    """torch's (Cephes') answers outside the series' domain, NaN where the series applies."""
    pole = (q <= 0) & (q == np.floor(q))
    conditions = [x == 1, x < 1, pole, (q <= 0) & (x != np.floor(x)),
                  np.isnan(x) | np.isnan(q), (x == np.inf) & (q == 1),
                  (x == np.inf) & (q < 1), (x == np.inf) | (q == np.inf)]
    values = [np.inf, np.nan, np.inf, np.nan, np.nan, 1.0, np.inf, np.nan]
    return np.select(conditions, values, np.nan), np.any(conditions, axis=0)


def zeta(x, q):
    """The Hurwitz zeta function sum_k (q + k)^-x, in float64 (with torch's special values)."""
    x, q = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(q, np.float64))
    with np.errstate(all="ignore"):
        special, taken = _zeta_special(x, q)
        if taken.all():
            return special
        general = _hurwitz_zeta(np.where(taken, 2.0, x), np.where(taken, 1.0, q))
        return np.where(taken, special, general)


@_in_float64
def polygamma(x, n):
    """The n-th derivative of psi: digamma for n = 0, else (-1)^(n+1) n! zeta(n + 1, x)."""
    if n == 0:
        return digamma(x)
    return (-1.0) ** (n + 1) * math.factorial(n) * _hurwitz_zeta(n + 1, x)


def _erfcx_fraction(x):
    """exp(x^2) erfc(x) for x >= 2: 1 / sqrt(pi) over the continued fraction
    x + (1/2) / (x + 1 / (x + (3/2) / (x + ...))), evaluated from 80 terms back."""
    f = x.copy()
    for k in range(80, 0, -1):
        f = x + (k / 2) / f
    return 1 / (math.sqrt(math.pi) * f)


@_in_float64
def erfc(x):
    """1 - erf(x), without the cancellation for large x."""
    large = x >= 2
    out = np.asarray(1 - _np_erf(x))  # (an array for a 0-d x too: written below)
    if large.any():
        out[large] = np.exp(-x[large] ** 2) * _erfcx_fraction(x[large])
    return out


@_in_float64
def erfcx(x):
    """exp(x^2) erfc(x), the scaled complement: 2 exp(x^2) - erfcx(-x) below 0 (inf past
    -26.7, as torch), the continued fraction from 2 on."""
    a = np.abs(x)
    large = a >= 2
    positive = np.asarray(np.exp(a * a) * (1 - _np_erf(a)))
    if large.any():
        positive[large] = _erfcx_fraction(a[large])
    return np.where(x < 0, 2 * np.exp(a * a) - positive, positive)


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


def _bessel_i(order, x, scaled=False):
    """I_order(|x|) for order 0 or 1 (times exp(-|x|) when ``scaled``): the power series up to
    15, the asymptotic one beyond."""
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
    asymptotic /= np.sqrt(2 * np.pi * big)
    if scaled:
        return np.where(a > 15, asymptotic, series * np.exp(-a))
    return np.where(a > 15, asymptotic * np.exp(big), series)


@_in_float64
def i0(x):
    """The modified Bessel function of the first kind, order 0."""
    return _bessel_i(0, x)


@_in_float64
def i1(x):
    """The modified Bessel function of the first kind, order 1 (odd)."""
    return np.copysign(_bessel_i(1, x), x)


@_in_float64
def i0e(x):
    """exp(-|x|) I0(x), the exponentially scaled I0."""
    return _bessel_i(0, x, scaled=True)


@_in_float64
def i1e(x):
    """exp(-|x|) I1(x), the exponentially scaled I1 (odd)."""
    return np.copysign(_bessel_i(1, x, scaled=True), x)


def _gamma_cdf_alpha_derivative(alpha, x):
    """dP(alpha, x)/dalpha for the regularized lower incomplete gamma P, by its series
    sum_n t_n (log x - digamma(alpha + n + 1)), t_n = x^(alpha+n) e^-x / Gamma(alpha + n + 1),
    summed until the terms past the peak (n ~ x) are negligible."""
    log_x = np.log(x)
    total = np.zeros_like(x)
    n_max = int(np.max(x + 12 * np.sqrt(x) + 40)) if x.size else 0
    for n in range(n_max):
        shifted = alpha + n + 1
        term = np.exp((alpha + n) * log_x - x - lgamma(shifted))
        total += term * (log_x - digamma(shifted))
    return total


@_in_float64
def standard_gamma_grad(alpha, x):
    """d x / d alpha of a Gamma(alpha, 1) draw x held at its quantile (implicit
    reparameterization): -(dP/dalpha) / density(x)."""
    x = np.maximum(x, np.finfo(np.float64).tiny)
    log_density = (alpha - 1) * np.log(x) - x - lgamma(alpha)
    return -_gamma_cdf_alpha_derivative(alpha, x) / np.exp(log_density)


def _beta_fraction(a, b, x):
    """The continued fraction of I_x(a, b) (modified Lentz), converging for x < (a+1)/(a+b+2)."""
    tiny = 1e-300

    def guard(v):
        return np.where(np.abs(v) < tiny, tiny, v)
    c = np.ones_like(x)
    d = 1 / guard(1 - (a + b) * x / (a + 1))
    h = d.copy()
    for m in range(1, 5000):
        for numerator in (m * (b - m) * x / ((a - 1 + 2 * m) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 1 + 2 * m))):
            d = 1 / guard(1 + numerator * d)
            c = guard(1 + numerator / c)
            h = h * d * c
        if not np.any(np.abs(d * c - 1) > 1e-16):
            break
    return h


def _incomplete_beta(a, b, x):
    """The regularized incomplete beta function I_x(a, b), 0 < x < 1 (through the symmetry
    I_x(a, b) = 1 - I_(1-x)(b, a) where the fraction converges slowly)."""
    log_front = (lgamma(a + b) - lgamma(a) - lgamma(b) + a * np.log(x) + b * np.log1p(-x))
    front = np.exp(log_front)
    flip = x > (a + 1) / (a + b + 2)
    a_, b_, x_ = np.where(flip, b, a), np.where(flip, a, b), np.where(flip, 1 - x, x)
    part = front * _beta_fraction(a_, b_, x_) / a_
    return np.where(flip, 1 - part, part)


@_in_float64
def dirichlet_grad(x, alpha, total):
    """torch._dirichlet_grad: -(d I_x(alpha, beta) / d alpha) / (density (1 - x)), beta = total
    - alpha held fixed, for a Dirichlet coordinate x whose marginal is Beta(alpha, beta); the
    alpha-derivative by central differences of I (relative error ~1e-9)."""
    x = np.clip(x, np.finfo(np.float64).tiny, np.nextafter(1.0, 0.0))
    beta = total - alpha
    step = 1e-5 * np.maximum(alpha, 1e-3)
    slope = (_incomplete_beta(alpha + step, beta, x) -
             _incomplete_beta(alpha - step, beta, x)) / (2 * step)
    log_density = ((alpha - 1) * np.log(x) + (beta - 1) * np.log1p(-x) -
                   (lgamma(alpha) + lgamma(beta) - lgamma(total)))
    return -slope / (np.exp(log_density) * (1 - x))
