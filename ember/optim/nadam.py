"""NAdam: Adam with Nesterov momentum (momentum_decay schedule for μ_t)."""
import numpy as np

from . import _common
from .adam import _check_adam_args
from .optimizer import Optimizer

__all__ = ["NAdam", "nadam_rule"]


def nadam_rule(p, g, state, *, step, mu, mu_next, mu_product, lr, betas, eps, weight_decay,
               maximize, decoupled_weight_decay):
    """m = lerp(m, d, 1-β1); v = β2 v + (1-β2) d²; D = sqrt(v/(1-β2^t)) + eps;
    p -= lr(1-μ_t)/(1-Πμ) · d/D + lr μ_{t+1}/(1-Πμ·μ_{t+1}) · m/D."""
    beta2 = betas[1]
    ops, p, g, state = _common.operands(p, g, state)
    d, exp_avg, exp_avg_sq = _common.adam_moments_(ops, p, g, state, lr, betas, weight_decay,
                                                   maximize, decoupled_weight_decay)
    denom = ops.add_scalar_(ops.sqrt_(ops.div(exp_avg_sq, 1 - beta2 ** step)), eps)
    ops.addcdiv_(p, d, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
    ops.addcdiv_(p, exp_avg, denom, (-lr * mu_next) / (1.0 - mu_product * mu_next))


class NAdam(Optimizer):
    """NAdam (see ``nadam_rule``)."""

    _rule = staticmethod(nadam_rule)
    _scalar_keys = ("step", "mu_product")
    _rule_keys = ("lr", "betas", "eps", "weight_decay", "maximize", "decoupled_weight_decay")

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_adam_args(lr, betas, eps, weight_decay)
        _common.check_range("momentum_decay", momentum_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, array, group):
        return {"step": _common.scalar_zero(), "mu_product": _common.scalar_zero(1.0),
                "exp_avg": np.zeros_like(array), "exp_avg_sq": np.zeros_like(array)}

    def _advance(self, scalars, group, fresh):
        """μ_t = β1 (1 - ½ 0.96^(t ψ)); the product Πμ is kept (in the scalar dtype)."""
        step, mu_product = scalars["step"], scalars["mu_product"]
        step += 1
        t, beta1, decay = float(step), group["betas"][0], group["momentum_decay"]
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (t * decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((t + 1) * decay)))
        mu_product *= mu
        return {"step": t, "mu": mu, "mu_next": mu_next, "mu_product": float(mu_product)}

    def step(self, closure=None):
        """One NAdam update of every parameter with a gradient; returns the closure's loss."""
        return self._rule_step(closure)
