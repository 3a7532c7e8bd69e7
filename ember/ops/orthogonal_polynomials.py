"""The classical orthogonal polynomials of torch.special (Chebyshev T, U, V, W and their shifted
forms on [0, 1], Hermite H and He, Laguerre L, Legendre P), vectorised over float64 arrays of x
and the degree n. Each follows torch's conventions: n is truncated to an integer (NaN and
infinite n count as negative), a negative degree gives 0, x = +-1 gives the closed forms, and
the Chebyshev kinds use their trigonometric forms inside (-1, 1) for large n (T past 6, U, V
and W past 8), the three-term recurrence elsewhere."""
import numpy as np


def _degree(n):
    """n truncated to an integer-valued float; -1 where torch's cast to int64 is undefined."""
    finite = np.isfinite(n) & (np.abs(n) < 2.0 ** 63)
    return np.where(finite, np.trunc(np.where(finite, n, 0)), -1.0)


def _arrays(x, n):
    return np.broadcast_arrays(np.asarray(x, np.float64), _degree(np.asarray(n, np.float64)))


def _recurrence(x, n, first, second, step):
    """p_n(x) from p_0 = ``first``, p_1 = ``second`` and p_(k+1) = step(k, p_k, p_(k-1))."""
    out = np.where(n == 0, first, second)
    top = int(n.max(initial=0))
    previous, current = np.broadcast_to(first, x.shape), second
    for k in range(1, top):
        previous, current = current, step(k, current, previous)
        out = np.where(n == k + 1, current, out)
    return out


def _chebyshev(kind, x, n):
    """The Chebyshev polynomial of the given kind ("t", "u", "v", "w") by recurrence."""
    second = {"t": x, "u": 2 * x, "v": 2 * x - 1, "w": 2 * x + 1}[kind]
    return _recurrence(x, n, np.ones_like(x), second,
                       lambda k, q, p: (x + x) * q - p)


def _trigonometric(kind, x, n):
    """The Chebyshev forms in theta = acos x: cos(n t), sin((n+1) t) / sin t,
    cos((n+1/2) t) / cos(t/2), sin((n+1/2) t) / sin(t/2)."""
    theta = np.arccos(np.clip(x, -1, 1))
    if kind == "t":
        return np.cos(n * theta)
    if kind == "u":
        return np.sin((n + 1) * theta) / np.sin(theta)
    if kind == "v":
        return np.cos((n + 0.5) * theta) / np.cos(theta / 2)
    return np.sin((n + 0.5) * theta) / np.sin(theta / 2)


def _at_one(kind, x, n):
    """The values at x = 1 and x = -1."""
    even = n % 2 == 0
    if kind == "t":
        return np.where((x > 0) | even, 1.0, -1.0)
    if kind == "u":
        return np.where((x > 0) | even, n + 1, -(n + 1))
    if kind == "v":
        return np.where(x > 0, 1.0, np.where(even, 2 * n + 1, -(2 * n + 1)))
    return np.where(x > 0, 2 * n + 1, np.where(even, 1.0, -1.0))


def chebyshev(kind, x, n, shifted=False):
    """T_n, U_n, V_n or W_n at x (at 2x - 1 when ``shifted``), torch's conventions."""
    with np.errstate(all="ignore"):
        x, n = _arrays(x, n)
        if shifted:
            x = x + x - 1
        out = _chebyshev(kind, x, np.maximum(n, 0))
        inside = (n > (6 if kind == "t" else 8)) & (np.abs(x) < 1)
        if inside.any():
            out = np.where(inside, _trigonometric(kind, x, n), out)
        out = np.where(np.abs(x) == 1, _at_one(kind, x, n), out)
        return np.where(n < 0, 0.0, out)


def _family(x, n, first, second, step, at_one=None):
    with np.errstate(all="ignore"):
        x, n = _arrays(x, n)
        out = _recurrence(x, np.maximum(n, 0), first(x), second(x),
                          lambda k, q, p: step(k, x, q, p))
        if at_one is not None:
            out = at_one(x, n, out)
        return np.where(n < 0, 0.0, out)


def hermite_h(x, n):
    """The physicists' Hermite polynomial: H_(k+1) = 2x H_k - 2k H_(k-1)."""
    return _family(x, n, np.ones_like, lambda x: x + x,
                   lambda k, x, q, p: (x + x) * q - 2 * k * p)


def hermite_he(x, n):
    """The probabilists' Hermite polynomial: He_(k+1) = x He_k - k He_(k-1)."""
    return _family(x, n, np.ones_like, lambda x: x, lambda k, x, q, p: x * q - k * p)


def laguerre_l(x, n):
    """The Laguerre polynomial: (k+1) L_(k+1) = (2k + 1 - x) L_k - k L_(k-1); 1 at x = 0."""
    return _family(x, n, np.ones_like, lambda x: 1 - x,
                   lambda k, x, q, p: ((k + k + (1 - x)) * q - k * p) / (k + 1),
                   lambda x, n, out: np.where(x == 0, 1.0, out))


def legendre_p(x, n):
    """The Legendre polynomial: (k+1) P_(k+1) = (2k+1) x P_k - k P_(k-1); +-1 at x = +-1."""
    return _family(x, n, np.ones_like, lambda x: x,
                   lambda k, x, q, p: ((k + k + 1) * x * q - k * p) / (k + 1),
                   lambda x, n, out: np.where(np.abs(x) == 1, _at_one("t", x, n), out))
