"""Adamax: Adam with the infinity norm in place of the second moment."""
import numpy as np

from . import _common
from .adam import _check_adam_args
from .optimizer import Optimizer

__all__ = ["Adamax", "adamax_rule"]


def adamax_rule(p, g, state, *, step, lr, betas, eps, weight_decay, maximize):
    """m = lerp(m, d, 1-β1); u = max(β2 u, |d| + eps); p -= lr/(1-β1^t) · m/u, d = ±g + wd p."""
    beta1, beta2 = betas
    ops, p, g, state = _common.operands(p, g, state)
    d = _common.direction(ops, p, g, weight_decay, maximize)
    exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
    ops.lerp_(exp_avg, d, 1 - beta1)
    ops.maximum_(ops.mul_(exp_inf, beta2), ops.add_scalar_(ops.abs(d), eps))
    ops.addcdiv_(p, exp_avg, exp_inf, -(lr / (1 - beta1 ** step)))


class Adamax(Optimizer):
    """Adamax (see ``adamax_rule``)."""

    _rule = staticmethod(adamax_rule)
    _scalar_keys = ("step",)
    _rule_keys = ("lr", "betas", "eps", "weight_decay", "maximize")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, array, group):
        return {"step": _common.scalar_zero(), "exp_avg": np.zeros_like(array),
                "exp_inf": np.zeros_like(array)}

    def step(self, closure=None):
        """One Adamax update of every parameter with a gradient; returns the closure's loss."""
        return self._rule_step(closure)
