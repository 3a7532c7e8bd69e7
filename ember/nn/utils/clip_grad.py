"""Gradient clipping: scale all gradients to a maximum total norm, or clamp each value."""
import math

import numpy as np

from ..._tensor import Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _total_norm(arrays, norm_type):
    if norm_type == math.inf:
        return np.max(np.stack([np.max(np.abs(a)) for a in arrays]))
    norms = [np.linalg.norm(a.reshape(-1), ord=norm_type) for a in arrays]
    return np.linalg.norm(np.stack(norms).astype(arrays[0].dtype), ord=norm_type)


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The p-norm of all the tensors' values together (as if concatenated)."""
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    arrays = [t._data for t in tensors if t is not None]
    norm_type = float(norm_type)
    if not arrays:
        return Tensor._make(np.asarray(0.0, dtype=np.float32))
    with np.errstate(all="ignore"):  # inf/NaN gradients: a non-finite norm, silently as torch
        total = _total_norm(arrays, norm_type)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`")
    return Tensor._make(np.asarray(total, dtype=arrays[0].dtype))


def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    """Multiply every gradient by min(max_norm / (total_norm + 1e-6), 1), in place."""
    grads = _grads(parameters)
    if not grads:
        return
    dtype = grads[0]._data.dtype
    total = total_norm._data if isinstance(total_norm, Tensor) else np.asarray(total_norm)
    with np.errstate(all="ignore"):  # a non-finite norm scales by 0 or NaN, silently as torch
        coef = np.minimum(np.asarray(float(max_norm), dtype) / (total + np.asarray(1e-6, dtype)),
                          1.0)
        for g in grads:
            np.multiply(g._data, coef.astype(g._data.dtype), out=g._data)
            g._vc[0] += 1


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scale gradients in place so their joint p-norm is at most max_norm; returns that norm.

    coef = min(max_norm / (total_norm + 1e-6), 1) multiplies every gradient, as torch.
    """
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    parameters = list(parameters)
    total = get_total_norm(_grads(parameters), norm_type, error_if_nonfinite)
    clip_grads_with_norm_(parameters, max_norm, total)
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of clip_grad_norm_."""
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient value into [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    for g in _grads(parameters):
        np.clip(g._data, -clip_value, clip_value, out=g._data)
        g._vc[0] += 1
