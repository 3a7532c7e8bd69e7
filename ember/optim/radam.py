"""RAdam: Adam with a variance-rectified adaptive learning rate."""
import numpy as np

from . import _common
from .adam import _check_adam_args
from .optimizer import Optimizer

__all__ = ["RAdam", "radam_rule"]


def radam_rule(p, g, state, *, step, lr, betas, eps, weight_decay, maximize,
               decoupled_weight_decay):
    """m, v as Adam; ρ_t = ρ∞ - 2tβ2^t/(1-β2^t); p -= lr m/(1-β1^t) · r_t sqrt(1-β2^t)/(sqrt(v)
    + eps) when ρ_t > 5 (r_t the rectifier), else p -= lr m/(1-β1^t)."""
    beta1, beta2 = betas
    ops, p, g, state = _common.operands(p, g, state)
    d, exp_avg, exp_avg_sq = _common.adam_moments_(ops, p, g, state, lr, betas, weight_decay,
                                                   maximize, decoupled_weight_decay)
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    update = ops.mul_(ops.div(exp_avg, bias_correction1), lr)
    rho_inf = 2 / (1 - beta2) - 1
    rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
    if rho_t > 5.0:
        rect = ((rho_t - 4) * (rho_t - 2) * rho_inf
                / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
        # torch: bias_correction2 ** 0.5 / (sqrt(v) + eps), a reciprocal times the number
        adaptive = ops.reciprocal_(ops.add_scalar_(ops.sqrt(exp_avg_sq), eps))
        ops.mul_(adaptive, bias_correction2 ** 0.5)
        ops.mul_(update, adaptive)
        ops.mul_(update, rect)
    ops.add_(p, update, -1)


class RAdam(Optimizer):
    """RAdam (see ``radam_rule``)."""

    _rule = staticmethod(radam_rule)
    _scalar_keys = ("step",)
    _rule_keys = ("lr", "betas", "eps", "weight_decay", "maximize", "decoupled_weight_decay")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False,
                 capturable=False, differentiable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, array, group):
        return {"step": _common.scalar_zero(), "exp_avg": np.zeros_like(array),
                "exp_avg_sq": np.zeros_like(array)}

    def step(self, closure=None):
        """One RAdam update of every parameter with a gradient; returns the closure's loss."""
        return self._rule_step(closure)
