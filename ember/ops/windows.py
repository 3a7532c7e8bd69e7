"""Window functions for signal processing (torch.hann_window, hamming, blackman, bartlett,
kaiser): built in the window's own dtype with the steps torch takes (an arange scaled by
2 pi / (L - 1), its cosine, then the affine terms), so float64 windows equal torch's and
float32 ones differ only where NumPy's float32 cosine rounds otherwise than torch's."""
import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor


def _make(name, window_length, periodic, dtype, requires_grad, build):
    if isinstance(window_length, bool) or not isinstance(window_length, int):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    dtype = _dtype.get_default_dtype() if dtype is None else dtype
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dtype}")
    np_dtype = _dtype.to_numpy_dtype(dtype)
    if window_length <= 1:
        values = np.ones(window_length, np_dtype)
    else:
        length = window_length + 1 if periodic else window_length
        values = build(np.arange(length, dtype=np_dtype), length, np_dtype)[:window_length]
    out = Tensor._make(np.ascontiguousarray(values, dtype=np_dtype))
    return out.requires_grad_() if requires_grad else out


def _cosine_terms(n, length, np_dtype, coefficients):
    """sum_k (-1)^k a_k cos(2 pi k n / (L - 1)), the terms added in torch's order."""
    step = n * np_dtype.type(math.pi * 2.0 / (length - 1)) if len(coefficients) == 2 else \
        n * np_dtype.type(math.pi / (length - 1))
    if len(coefficients) == 2:  # hamming / hann: alpha - beta cos(step)
        alpha, beta = coefficients
        return np.cos(step) * np_dtype.type(-beta) + np_dtype.type(alpha)
    a0, a1, a2 = coefficients  # blackman: a2 cos(4 x) - a1 cos(2 x) + a0, x = pi n / (L - 1)
    return (np.cos(step * np_dtype.type(4)) * np_dtype.type(a2)
            - np.cos(step * np_dtype.type(2)) * np_dtype.type(a1) + np_dtype.type(a0))


def hamming_window(window_length, periodic=True, alpha=0.54, beta=0.46, *, dtype=None,
                   layout=None, device=None, pin_memory=False, requires_grad=False):
    """alpha - beta cos(2 pi n / (N - 1)); periodic drops the last value of an N+1 window."""
    return _make("hamming_window", window_length, periodic, dtype, requires_grad,
                 lambda n, length, t: _cosine_terms(n, length, t, (alpha, beta)))


def hann_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                requires_grad=False):
    """0.5 - 0.5 cos(2 pi n / (N - 1)) (sin^2(pi n / (N - 1)))."""
    return _make("hann_window", window_length, periodic, dtype, requires_grad,
                 lambda n, length, t: _cosine_terms(n, length, t, (0.5, 0.5)))


def blackman_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1))."""
    return _make("blackman_window", window_length, periodic, dtype, requires_grad,
                 lambda n, length, t: _cosine_terms(n, length, t, (0.42, 0.5, 0.08)))


def _bartlett(n, length, np_dtype):
    values = n * np_dtype.type(2.0 / (length - 1))
    first_half = ((length - 1) >> 1) + 1
    values[first_half:] = np_dtype.type(2) - values[first_half:]
    return values


def bartlett_window(window_length, periodic=True, *, dtype=None, layout=None, device=None,
                    requires_grad=False):
    """The triangle 1 - |2n / (N - 1) - 1|."""
    return _make("bartlett_window", window_length, periodic, dtype, requires_grad, _bartlett)


def kaiser_window(window_length, periodic=True, beta=12.0, *, dtype=None, layout=None,
                  device=None, requires_grad=False):
    """I0(beta sqrt(1 - (2n / (N - 1) - 1)^2)) / I0(beta): the argument in the window's dtype,
    the Bessel function I0 in float64 (torch evaluates it in the window's dtype)."""
    def build(n, length, np_dtype):
        middle = np_dtype.type((length - 1) / 2.0)
        ratio = (n - middle) / middle
        arg = np_dtype.type(beta) * np.sqrt(np.abs(np_dtype.type(1) - ratio * ratio))
        return (np.i0(arg.astype(np.float64)) / np.i0(float(beta))).astype(np_dtype)
    return _make("kaiser_window", window_length, periodic, dtype, requires_grad, build)
