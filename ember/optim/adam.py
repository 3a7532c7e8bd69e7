"""Adam (with amsgrad, L2 or decoupled weight decay); AdamW is Adam after a decoupled decay."""
import numpy as np

from . import _common
from .optimizer import Optimizer

__all__ = ["Adam", "adam_rule"]


def adam_rule(p, g, state, *, step, lr, betas, eps, weight_decay, amsgrad, maximize,
              decoupled_weight_decay):
    """m = lerp(m, d, 1-β1); v = β2 v + (1-β2) d²; v̂ = max(v̂, v) if amsgrad;
    p -= lr/(1-β1^t) * m / (sqrt(v̂)/sqrt(1-β2^t) + eps), d = ±g (+ wd p unless decoupled)."""
    beta1, beta2 = betas
    ops, p, g, state = _common.operands(p, g, state)
    d, m, v = _common.adam_moments_(ops, p, g, state, lr, betas, weight_decay, maximize,
                                    decoupled_weight_decay)
    if amsgrad:
        v = ops.maximum_(state["max_exp_avg_sq"], v)
    ops.adam_addcdiv_(p, m, v, lr / (1 - beta1 ** step), (1 - beta2 ** step) ** 0.5, eps,
                      scratch=d if d is not g else None)  # d: a temporary, free now


class Adam(Optimizer):
    """Adam: adaptive moment estimation (see ``adam_rule``)."""

    _rule = staticmethod(adam_rule)
    _sparse_advice = ", please consider SparseAdam instead"
    _scalar_keys = ("step",)
    _rule_keys = ("lr", "betas", "eps", "weight_decay", "amsgrad", "maximize",
                  "decoupled_weight_decay")

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        lr = _check_adam_args(lr, betas, eps, weight_decay, foreach, fused)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _init_state(self, array, group):
        state = {"step": _common.scalar_zero(), "exp_avg": np.zeros_like(array),
                 "exp_avg_sq": np.zeros_like(array)}
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = np.zeros_like(array)
        return state

    def step(self, closure=None):
        """One Adam update of every parameter with a gradient; returns the closure's loss."""
        return self._rule_step(closure)


def _check_adam_args(lr, betas, eps, weight_decay, foreach=None, fused=None):
    if hasattr(lr, "numel") and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    _common.check_lr(lr)
    _common.check_eps(eps)
    _common.check_betas(betas)
    _common.check_weight_decay(weight_decay)
    _common.check_fused(foreach, fused)
    return lr
