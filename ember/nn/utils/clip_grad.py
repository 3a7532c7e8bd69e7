"""Gradient clipping: scale all gradients to a maximum total norm, or clamp each value."""
import math

import numpy as np

from ..._tensor import Tensor


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def _total_norm(grads, norm_type):
    if norm_type == math.inf:
        norms = [np.max(np.abs(g._data)) for g in grads]
        return np.max(np.stack(norms))
    norms = [np.linalg.norm(g._data.reshape(-1), ord=norm_type) for g in grads]
    return np.linalg.norm(np.stack(norms).astype(grads[0]._data.dtype), ord=norm_type)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scale gradients in place so their joint p-norm is at most max_norm; returns that norm.

    coef = min(max_norm / (total_norm + 1e-6), 1) multiplies every gradient, as torch.
    """
    grads = _grads(parameters)
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return Tensor._make(np.asarray(0.0, dtype=np.float32))
    total = _total_norm(grads, norm_type)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`")
    dtype = grads[0]._data.dtype
    coef = np.minimum(np.asarray(max_norm, dtype) / (total + np.asarray(1e-6, dtype)), 1.0)
    for g in grads:
        np.multiply(g._data, coef.astype(g._data.dtype), out=g._data)
        g._vc[0] += 1
    return Tensor._make(np.asarray(total, dtype=dtype))


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """Deprecated alias of clip_grad_norm_."""
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient value into [-clip_value, clip_value] in place."""
    clip_value = float(clip_value)
    for g in _grads(parameters):
        np.clip(g._data, -clip_value, clip_value, out=g._data)
        g._vc[0] += 1
