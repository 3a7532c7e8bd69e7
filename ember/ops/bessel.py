"""Bessel functions NumPy lacks, vectorised over float64 arrays (inputs and outputs float64):
J0, J1, Y0, Y1, K0, K1 (and exp(x) K0, exp(x) K1), the spherical j0 and Airy's Ai, each with
torch's special values.

Each function joins three published methods by range: the power series for small arguments,
an integral representation summed by the trapezoidal rule in the middle (exponentially
accurate for these analytic integrands), and Hankel's asymptotic expansion for large
arguments, whose phase x - (2 nu + 1) pi / 4 is formed as torch forms it."""
import math

import numpy as np

from . import special as S

_EULER = 0.5772156649015329
_SERIES_J, _SERIES_K, _ASYMPTOTIC = 8.0, 2.0, 25.0
# the trapezoidal rule over one period for J and Y's first integral (N nodes: the error is of
# the size of J_(N - n)(x), nothing for x <= 25), and over t in [0, 6] for the others
_PERIOD = np.arange(128) * (2 * np.pi / 128)
_STEP = 0.05
_HALF_LINE = np.arange(121) * _STEP
# Gauss-Legendre nodes and weights on [0, 1] for Y's integrals (not periodic)
_GAUSS_NODES, _GAUSS_WEIGHTS = (v / 2 for v in np.polynomial.legendre.leggauss(96))
_GAUSS_NODES = _GAUSS_NODES + 0.5


def _quiet(fn):
    def wrapper(x):
        with np.errstate(all="ignore"):
            return fn(np.asarray(x, np.float64))
    wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
    return wrapper


_CHUNK = 4096  # elements per call: the integrals hold (elements x nodes) arrays


def _on(mask, x, fn, fill=np.nan):
    """fn(x) where ``mask`` holds (computed on those elements only, a chunk at a time),
    ``fill`` elsewhere."""
    out = np.full(x.shape, fill)
    if mask.any():
        chosen = x[mask]
        out[mask] = np.concatenate([fn(chosen[i:i + _CHUNK])
                                    for i in range(0, chosen.size, _CHUNK)])
    return out


def _asymptotic_terms(nu, x, count=26):
    """Hankel's P and Q for order nu at x: sums of a_k / x^k with alternating pairs."""
    mu = 4.0 * nu * nu
    term = np.ones_like(x)
    p, q = term.copy(), np.zeros_like(x)
    for k in range(1, count):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8 * x)
        sign = -1 if (k // 2) % 2 else 1
        if k % 2:
            q += sign * term
        else:
            p += sign * term
    return p, q


def _hankel(nu, x, second_kind):
    """J_nu(x) (or Y_nu) for large x: sqrt(2 / (pi x)) (P cos c - Q sin c) (P sin c + Q cos c
    for Y), c = x - (2 nu + 1) pi / 4."""
    p, q = _asymptotic_terms(nu, x)
    phase = x - (2 * nu + 1) * np.pi / 4
    scale = np.sqrt(2 / (np.pi * x))
    if second_kind:
        return scale * (p * np.sin(phase) + q * np.cos(phase))
    return scale * (p * np.cos(phase) - q * np.sin(phase))


def _j_series(nu, x):
    """(x/2)^nu sum_k (-x^2/4)^k / (k! (k + nu)!)."""
    quarter = -x * x / 4
    term = (x / 2) ** nu / math.factorial(nu)
    total = term.copy()
    for k in range(1, 40):
        term = term * quarter / (k * (k + nu))
        total += term
    return total


def _j_integral(nu, x):
    """Bessel's integral J_n(x) = (1 / 2 pi) int_0^2pi cos(n t - x sin t) dt."""
    return np.cos(nu * _PERIOD - x[:, None] * np.sin(_PERIOD)).mean(axis=1)


def _bessel_j(nu, x):
    a = np.abs(x)
    small, large = a <= _SERIES_J, a > _ASYMPTOTIC
    out = _on(small, a, lambda v: _j_series(nu, v))
    out = np.where(large, _on(large & np.isfinite(a), a, lambda v: _hankel(nu, v, False)), out)
    middle = ~small & ~large
    out = np.where(middle, _on(middle, a, lambda v: _j_integral(nu, v)), out)
    return np.where(np.isnan(x), np.nan, out)


@_quiet
def j0(x):
    """The Bessel function of the first kind, order 0 (even; NaN at +-inf, as torch)."""
    return _bessel_j(0, x)


@_quiet
def j1(x):
    """The Bessel function of the first kind, order 1 (odd; NaN at +-inf, as torch)."""
    value = _bessel_j(1, x)
    return np.where(np.signbit(x), -value, value)


def _harmonic(k):
    return sum(1.0 / j for j in range(1, k + 1))


def _log_series(nu, x, alternating):
    """sum_k (psi(k+1) + psi(k+nu+1)) / 2 (s x^2/4)^k / (k! (k+nu)!) (x/2)^nu, s = -1 for
    J's companions (Y), +1 for I's (K): the series part of Y_nu and K_nu."""
    quarter = (-1 if alternating else 1) * x * x / 4
    term = (x / 2) ** nu / math.factorial(nu)
    total = np.zeros_like(x)
    for k in range(40):
        if k:
            term = term * quarter / (k * (k + nu))
        total += term * ((_harmonic(k) + _harmonic(k + nu)) / 2 - _EULER)
    return total


def _y_series(nu, x):
    """Y0 = (2/pi)(log(x/2) J0 - series), Y1 = (2/pi)(log(x/2) J1 - series) - 2 / (pi x)."""
    out = 2 / np.pi * (np.log(x / 2) * _j_series(nu, x) - _log_series(nu, x, True))
    return out - 2 / (np.pi * x) if nu else out


def _schlaefli(nu, x, second_kind):
    """Schlaefli's integrals, for any real order nu:
    J_nu(x) = (1/pi) int_0^pi cos(nu t - x sin t) dt
              - (sin(nu pi) / pi) int_0^inf exp(-x sinh t - nu t) dt,
    Y_nu(x) = (1/pi) int_0^pi sin(x sin t - nu t) dt
              - (1/pi) int_0^inf (exp(nu t) + cos(nu pi) exp(-nu t)) exp(-x sinh t) dt,
    by Gauss-Legendre, the infinite one cut where x sinh t passes 50."""
    t = np.pi * _GAUSS_NODES
    angle = x[:, None] * np.sin(t) - nu * t
    first = np.pi * ((np.sin(angle) if second_kind else np.cos(angle)) @ _GAUSS_WEIGHTS)
    end = np.arcsinh(50 / x)[:, None]
    u = end * _GAUSS_NODES
    decay = np.exp(-x[:, None] * np.sinh(u))
    if second_kind:
        inner = (np.exp(nu * u) + math.cos(nu * math.pi) * np.exp(-nu * u)) * decay
    else:
        inner = math.sin(nu * math.pi) * np.exp(-nu * u) * decay
    second = end[:, 0] * (inner @ _GAUSS_WEIGHTS)
    return (first - second) / np.pi


def _bessel_y(nu, x):
    small, large = x <= _SERIES_J, x > _ASYMPTOTIC
    out = _on(small & (x > 0), x, lambda v: _y_series(nu, v))
    out = np.where(large, _on(large & np.isfinite(x), x, lambda v: _hankel(nu, v, True)), out)
    middle = ~small & ~large
    out = np.where(middle, _on(middle, x, lambda v: _schlaefli(nu, v, True)), out)
    return np.where(x == 0, -np.inf, np.where(x < 0, np.nan, out))


@_quiet
def y0(x):
    """The Bessel function of the second kind, order 0 (-inf at 0, NaN below and at inf)."""
    return _bessel_y(0, x)


@_quiet
def y1(x):
    """The Bessel function of the second kind, order 1 (-inf at 0, NaN below and at inf)."""
    return _bessel_y(1, x)


def _k_series(nu, x):
    """K0 = -log(x/2) I0 + series, K1 = 1/x + log(x/2) I1 - series (the series of I's
    companion)."""
    if nu == 0:
        return -np.log(x / 2) * S._bessel_i(0, x) + _log_series(0, x, False)
    return 1 / x + np.log(x / 2) * S._bessel_i(1, x) - _log_series(1, x, False)


def _k_integral_scaled(nu, x):
    """exp(x) K_nu(x) = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt (even in t: the
    trapezoidal rule is exact to rounding for x >= 0.2 with t up to 6)."""
    values = np.exp(-x[:, None] * (np.cosh(_HALF_LINE) - 1)) * np.cosh(nu * _HALF_LINE)
    return _STEP * (values.sum(axis=1) - values[:, 0] / 2)


def _k_asymptotic_scaled(nu, x):
    """exp(x) K_nu(x) ~ sqrt(pi / (2x)) sum_k a_k(nu) / x^k."""
    mu = 4.0 * nu * nu
    term, total = np.ones_like(x), np.ones_like(x)
    for k in range(1, 26):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8 * x)
        total += term
    return np.sqrt(np.pi / (2 * x)) * total


def _bessel_k_scaled(nu, x):
    """exp(x) K_nu(x) for x > 0 (NaN elsewhere)."""
    small, large = (x > 0) & (x <= _SERIES_K), x > _ASYMPTOTIC
    out = _on(small, x, lambda v: _k_series(nu, v) * np.exp(v))
    out = np.where(large, _on(large, x, lambda v: _k_asymptotic_scaled(nu, v)), out)
    middle = (x > _SERIES_K) & ~large
    return np.where(middle, _on(middle, x, lambda v: _k_integral_scaled(nu, v)), out)


def _bessel_k(nu, x, scaled):
    out = _bessel_k_scaled(nu, x)
    if not scaled:
        out = np.where(x <= _SERIES_K, _on((x > 0) & (x <= _SERIES_K), x,
                                           lambda v: _k_series(nu, v)), out * np.exp(-x))
    return np.where(x == 0, np.inf, np.where(x < 0, np.nan, out))


@_quiet
def k0(x):
    """The modified Bessel function of the second kind, order 0 (inf at 0, NaN below)."""
    return _bessel_k(0, x, False)


@_quiet
def k1(x):
    """The modified Bessel function of the second kind, order 1 (inf at 0, NaN below)."""
    return _bessel_k(1, x, False)


@_quiet
def k0e(x):
    """exp(x) K0(x), the exponentially scaled K0."""
    return _bessel_k(0, x, True)


@_quiet
def k1e(x):
    """exp(x) K1(x), the exponentially scaled K1."""
    return _bessel_k(1, x, True)


@_quiet
def modified_i0(x):
    """I0(x) as torch.special.modified_bessel_i0: NaN at +-inf."""
    return np.where(np.isinf(x), np.nan, S._bessel_i(0, x))


@_quiet
def modified_i1(x):
    """I1(x) as torch.special.modified_bessel_i1: NaN at +-inf."""
    return np.where(np.isinf(x), np.nan, np.copysign(S._bessel_i(1, x), x))


@_quiet
def spherical_j0(x):
    """sin(x) / x: its Taylor series below 0.5, 0 at +-inf (as torch)."""
    square = x * x
    series = np.ones_like(x)
    for k in range(7, 0, -1):  # 1 - x^2/3! + x^4/5! - ...: nested from the last term
        series = 1 - series * square / ((2 * k) * (2 * k + 1))
    out = np.where(np.abs(x) < 0.5, series, np.sin(x) / x)
    return np.where(np.isinf(x), 0.0, out)


_AI0, _AI1 = 0.3550280538878172, 0.2588194037928068  # Ai(0), -Ai'(0)


def _airy_series(x):
    """Ai(x) = Ai(0) f(x) + Ai'(0) g(x), f = 1 + x^3/3! + 1.4 x^6/6! + ...,
    g = x + 2 x^4/4! + 2.5 x^7/7! + ... (Maclaurin)."""
    cube = x * x * x
    f, g = np.ones_like(x), x.copy()
    f_total, g_total = f.copy(), g.copy()
    for k in range(1, 60):
        f = f * cube / ((3 * k - 1) * (3 * k))
        g = g * cube / ((3 * k) * (3 * k + 1))
        f_total += f
        g_total += g
    return _AI0 * f_total - _AI1 * g_total


def _airy_positive(x):
    """Ai(x) = (1/pi) sqrt(x/3) K_(1/3)(z), z = 2/3 x^(3/2), for x > 2."""
    z = 2 / 3 * x ** 1.5
    scaled = np.where(z > _ASYMPTOTIC, _k_asymptotic_scaled(1 / 3, z),
                      _on(z <= _ASYMPTOTIC, z, lambda v: _k_integral_scaled(1 / 3, v)))
    return np.sqrt(x / 3) / np.pi * scaled * np.exp(-z)


def _airy_negative(x):
    """Ai(-y) = sqrt(y)/3 (J_(1/3)(z) + J_(-1/3)(z)), z = 2/3 y^(3/2), for -y < -6."""
    y = -x
    z = 2 / 3 * y ** 1.5
    large = z > _ASYMPTOTIC
    total = np.where(large, _on(large, z, lambda v: _hankel(1 / 3, v, False)
                                + _hankel(-1 / 3, v, False)),
                     _on(~large, z, lambda v: _schlaefli(1 / 3, v, False)
                         + _schlaefli(-1 / 3, v, False)))
    return np.sqrt(y) / 3 * total


@_quiet
def airy_ai(x):
    """Airy's Ai (NaN at +-inf, as torch)."""
    series = (x >= -6) & (x <= 2)
    out = _on(series, x, _airy_series)
    out = np.where(x > 2, _on(x > 2, x, _airy_positive), out)
    out = np.where(x < -6, _on(x < -6, x, _airy_negative), out)
    return np.where(np.isinf(x), np.nan, out)
