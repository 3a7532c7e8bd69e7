"""Adadelta: step sizes from running averages of squared gradients and squared updates."""
import numpy as np

from . import _common
from .optimizer import Optimizer

__all__ = ["Adadelta", "adadelta_rule"]


def adadelta_rule(p, g, state, *, lr, rho, eps, weight_decay, maximize, step=None):
    """s = ρ s + (1-ρ) d²; Δ = sqrt(u + eps)/sqrt(s + eps) · d; u = ρ u + (1-ρ) Δ²;
    p -= lr Δ, d = ±g + wd p."""
    ops, p, g, state = _common.operands(p, g, state)
    d = _common.direction(ops, p, g, weight_decay, maximize)
    square_avg, acc_delta = state["square_avg"], state["acc_delta"]
    ops.addcmul_(ops.mul_(square_avg, rho), d, d, 1 - rho)
    std = ops.sqrt_(ops.add_scalar(square_avg, eps))
    delta = ops.sqrt_(ops.add_scalar(acc_delta, eps))
    ops.mul_(ops.div_(delta, std), d)
    ops.addcmul_(ops.mul_(acc_delta, rho), delta, delta, 1 - rho)
    ops.add_(p, delta, -lr)


class Adadelta(Optimizer):
    """Adadelta (see ``adadelta_rule``)."""

    _rule = staticmethod(adadelta_rule)
    _scalar_keys = ("step",)
    _rule_keys = ("lr", "rho", "eps", "weight_decay", "maximize")

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _common.check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _common.check_eps(eps)
        _common.check_weight_decay(weight_decay)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, array, group):
        return {"step": _common.scalar_zero(), "square_avg": np.zeros_like(array),
                "acc_delta": np.zeros_like(array)}

    def step(self, closure=None):
        """One Adadelta update of every parameter with a gradient; returns the closure's loss."""
        return self._rule_step(closure)
