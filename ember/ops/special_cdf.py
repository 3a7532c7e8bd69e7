"""Distribution functions NumPy lacks, vectorised over float64 arrays: the normal quantile
(ndtri), the log of the normal CDF (log_ndtr) and the regularized incomplete gamma functions
(gammainc, gammaincc); inputs and outputs in float64, with torch's special values."""
import math

import numpy as np

from . import special as S

_SQRT_HALF = math.sqrt(0.5)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
# Acklam's rational approximation of the normal quantile in its lower tail (relative error
# ~1e-9): numerator and denominator in t = sqrt(-2 log p), highest power first
_TAIL_NUMERATOR = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                   -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_TAIL_DENOMINATOR = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                     3.754408661907416e+00, 1.0)


def _quiet(fn):
    def wrapper(*args):
        with np.errstate(all="ignore"):
            return fn(*(np.asarray(a, np.float64) for a in args))
    wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
    return wrapper


@_quiet
def log_ndtr(x):
    """log of the standard normal CDF: log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 below 0 (no
    underflow), log1p(-erfc(x / sqrt 2) / 2) above."""
    negative = np.log(S.erfcx(-x * _SQRT_HALF) / 2) - x * x / 2
    positive = np.log1p(-S.erfc(np.maximum(x, 0) * _SQRT_HALF) / 2)
    return np.where(x < 0, negative, positive)


def _lower_tail_quantile(q):
    """x with ndtr(x) = q for 0 < q <= 0.5 (x <= 0): Acklam's start, then Newton's steps on
    log ndtr(x) = log q (no underflow however small q)."""
    t = np.sqrt(-2 * np.log(q))
    top = np.polyval(_TAIL_NUMERATOR, t)
    bottom = np.polyval(_TAIL_DENOMINATOR, t)
    x = top / bottom
    target = np.log(q)
    for _ in range(3):
        log_cdf = log_ndtr(x)
        # d log ndtr / dx = pdf / cdf = exp(-x^2/2 - log ndtr(x)) / sqrt(2 pi)
        slope = np.exp(-x * x / 2 - log_cdf - _LOG_SQRT_2PI)
        x = x - (log_cdf - target) / slope
    return x


@_quiet
def ndtri(p):
    """The standard normal quantile: sqrt 2 erfinv(2p - 1) in the middle, the lower tail's
    quantile of min(p, 1 - p) (sign restored) within 0.05 of 0 or 1; -inf at 0, inf at 1."""
    middle = (p > 0.05) & (p < 0.95)
    out = math.sqrt(2) * S.erfinv(np.where(middle, 2 * p - 1, 0.0))
    q = np.where(p < 0.5, p, 1 - p)
    tail = ~middle & (q > 0)
    if tail.any():
        x = _lower_tail_quantile(np.where(tail, q, 0.01))
        out = np.where(tail, np.where(p < 0.5, x, -x), out)
    out = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, out))
    return np.where((p < 0) | (p > 1) | np.isnan(p), np.nan, out)


def _log_prefactor(a, x):
    """log(x^a e^-x / Gamma(a)), the factor before both the series and the fraction."""
    return a * np.log(x) - x - S.lgamma(a)


def _iterate(state, step, limit=100000):
    """Run ``step(i, *state) -> (state, converged)`` over the elements not yet converged."""
    state = [s.copy() for s in state]
    active = np.arange(state[0].size)
    current = [s[active] for s in state]
    for i in range(1, limit):
        current, converged = step(i, *current)
        if converged.all() or i == limit - 1:
            for s, c in zip(state, current):
                s[active] = c
            return state
        keep = ~converged
        for s, c in zip(state, current):
            s[active[converged]] = c[converged]
        active = active[keep]
        current = [c[keep] for c in current]
    return state


def _lower_series(a, x):
    """P(a, x) = x^a e^-x / Gamma(a + 1) sum_n x^n / ((a + 1) ... (a + n)) (for x < a + 1)."""
    def step(i, total, term, a, x):
        term = term * x / (a + i)
        return (total + term, term, a, x), np.abs(term) <= np.abs(total) * 1e-17
    total = _iterate((np.ones_like(a), np.ones_like(a), a, x), step)[0]
    return np.exp(_log_prefactor(a, x)) * total / a


def _upper_fraction(a, x):
    """Q(a, x) = x^a e^-x / Gamma(a) / (x + 1 - a - 1 (1 - a) / (x + 3 - a - ...)), the
    continued fraction by Lentz's method (for x >= a + 1)."""
    tiny = 1e-300

    def step(i, h, c, d, b, a, x):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        d = 1 / d
        delta = c * d
        return (h * delta, c, d, b, a, x), np.abs(delta - 1) <= 1e-16
    b = x + 1 - a
    d = 1 / b
    h = _iterate((d, np.full_like(a, 1 / tiny), d, b, a, x), step)[0]
    return np.exp(_log_prefactor(a, x)) * h


_ZETA_INTEGERS = S.zeta(np.arange(2.0, 62.0), 1.0)  # zeta(2), ..., zeta(61)


def _lgamma1p(a):
    """log Gamma(1 + a) for 0 < a < 0.5 without the cancellation near 0: its Taylor series
    -euler a + sum_k>=2 (-a)^k zeta(k) / k."""
    total = np.zeros_like(a)
    for k in range(61, 1, -1):
        total = (total + _ZETA_INTEGERS[k - 2] / k) * -a
    return (total + 0.5772156649015329) * -a


def _upper_small_a(a, x):
    """Q(a, x) for a < 0.5 and x < a + 1, where 1 - P would cancel: with
    P = x^a / Gamma(a + 1) (1 + a s), s = sum_n>=1 (-x)^n / (n! (a + n)),
    Q = -expm1(log(x^a / Gamma(a + 1))) - x^a / Gamma(a + 1) a s."""
    log_front = a * np.log(x) - _lgamma1p(a)
    total, term = np.zeros_like(a), np.ones_like(a)
    for n in range(1, 40):  # (x < 1.5: the terms fall below 1e-17 of the first by n = 35)
        term = term * -x / n
        total += term / (a + n)
    return -np.expm1(log_front) - np.exp(log_front) * a * total


def _gamma_pair(a, x):
    """(value, lower): P by the series where x < a + 1 (True in ``lower``), else Q (by the
    fraction, or where a < 0.5 by the small-a series), for the valid finite elements only."""
    a, x = np.broadcast_arrays(a, x)
    valid = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    small = valid & (x < a + 1) & (a < 0.5)
    lower = valid & (x < a + 1) & ~small
    upper = valid & ~lower & ~small
    value = np.full(a.shape, np.nan)
    for where, fn in ((lower, _lower_series), (upper, _upper_fraction),
                      (small, _upper_small_a)):
        if where.any():
            value[where] = fn(a[where], x[where])
    return value, lower


def _gamma_special(a, x, upper):
    """torch's (Cephes') answers at the edges: NaN for negative arguments, a = 0, x = 0 and
    infinite arguments; ``taken`` False where the general formula applies."""
    one, zero = (0.0, 1.0) if upper else (1.0, 0.0)
    conditions = [(a < 0) | (x < 0), a == 0, x == 0, np.isinf(a), np.isinf(x)]
    values = [np.nan, np.where(x > 0, one, np.nan), zero, np.where(np.isinf(x), np.nan, zero),
              one]
    return np.select(conditions, values, np.nan), np.any(conditions, axis=0)


def _incomplete_gamma(a, x, upper):
    a, x = np.broadcast_arrays(a, x)
    special, taken = _gamma_special(a, x, upper)
    value, lower = _gamma_pair(np.where(taken, 1.0, a), np.where(taken, 1.0, x))
    general = np.where(lower != upper, value, 1 - value)
    return np.where(taken, special, general)


@_quiet
def gammainc(a, x):
    """The regularized lower incomplete gamma function P(a, x) = gamma(a, x) / Gamma(a)."""
    return _incomplete_gamma(a, x, upper=False)


@_quiet
def gammaincc(a, x):
    """The regularized upper incomplete gamma function Q(a, x) = 1 - P(a, x)."""
    return _incomplete_gamma(a, x, upper=True)
