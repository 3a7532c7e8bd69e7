"""Adafactor: Adam-like steps with a factored (row x column) second moment and a relative,
clipped step size."""
import math

import numpy as np

from . import _common, _flat
from .optimizer import Optimizer

__all__ = ["Adafactor", "adafactor_rule"]


def _second_moment(ops, g, state, beta, eps1):
    """The variance estimate: v = lerp(v, g², β_t) for vectors; for matrices (and stacks of
    them) R = lerp(R, ‖g‖²_row / n, β_t), C = lerp(C, ‖g‖²_col / m, β_t), v = R C / mean(R)
    (mean(R) at least eps1); a new tensor."""
    if len(g.shape) <= 1:
        variance = state["variance"]
        ops.lerp_(variance, ops.mul(g, g), beta)
        return ops.clone(variance)
    row_var, col_var = state["row_var"], state["col_var"]
    ops.lerp_(row_var, ops.div_(ops.square_(ops.norm(g, -1)), g.shape[-1]), beta)
    ops.lerp_(col_var, ops.div_(ops.square_(ops.norm(g, -2)), g.shape[-2]), beta)
    return ops.div_(ops.matmul(row_var, col_var), ops.clamp_min_(ops.mean(row_var, -2), eps1))


def adafactor_rule(p, g, state, *, step, lr, beta2_decay, eps, d, weight_decay, maximize):
    """β_t = t^beta2_decay; α = max(eps2, rms(p)) · min(lr, 1/√t); p *= 1 - lr·wd;
    u = ±g / sqrt(max(v, eps1²)) (v the factored second moment); p -= α u / max(1, rms(u)/d)."""
    ops, p, g, state = _common.operands(p, g, state)
    eps1, eps2 = eps
    if eps1 is None:
        eps1 = ops.eps(p)
    g = ops.neg(g) if maximize else g
    rho = min(lr, 1 / step ** 0.5)
    alpha = max(eps2, ops.norm(p) / math.prod(p.shape) ** 0.5) * rho
    if weight_decay != 0:
        ops.mul_(p, 1 - lr * weight_decay)
    estimate = _second_moment(ops, g, state, step ** beta2_decay, eps1)
    update = ops.mul_(ops.rsqrt_(ops.clamp_min_(estimate, eps1 * eps1)), g)
    denom = max(1.0, ops.norm(update) / (math.prod(update.shape) ** 0.5 * d))
    ops.add_(p, update, -alpha / denom)


class Adafactor(Optimizer):
    """Adafactor (see ``adafactor_rule``); its factored state is not elementwise, so it always
    steps tensor by tensor."""

    _rule = staticmethod(adafactor_rule)
    _scalar_keys = ("step",)
    _rule_keys = ("lr", "beta2_decay", "eps", "d", "weight_decay", "maximize")

    def __init__(self, params, lr=1e-2, beta2_decay=-0.8, eps=(None, 1e-3), d=1.0,
                 weight_decay=0.0, *, foreach=None, maximize=False):
        if not 0.0 <= _common.as_float(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize)
        super().__init__(params, defaults)

    def _init_state(self, array, group):
        state = {"step": _common.scalar_zero()}
        if array.ndim > 1:
            state["row_var"] = np.zeros(array.shape[:-1] + (1,), dtype=array.dtype)
            state["col_var"] = np.zeros(array.shape[:-2] + (1, array.shape[-1]), dtype=array.dtype)
        else:
            state["variance"] = np.zeros_like(array)
        return state

    def step(self, closure=None):
        """One Adafactor update of every parameter with a gradient; returns the closure's loss."""
        return _flat.step_tensors(self, closure, lambda p: _check_grad(p, "Adafactor"))


def _check_grad(p, name):
    if p.is_complex():
        raise RuntimeError(f"{name} does not support complex parameters")
    if p._grad.is_sparse:
        raise RuntimeError(f"{name} does not support sparse gradients")
