"""RMSprop: divide the gradient by a running root-mean-square (optionally centered, momentum)."""
import numpy as np

from . import _common
from .optimizer import Optimizer

__all__ = ["RMSprop", "rmsprop_rule"]


def rmsprop_rule(p, g, state, *, lr, alpha, eps, weight_decay, momentum, centered, maximize,
                 step=None):
    """s = α s + (1-α) d²; a = sqrt(s - ḡ²) (centered, ḡ = lerp(ḡ, d, 1-α)) or sqrt(s);
    b = μ b + d/(a+eps), p -= lr b (momentum) or p -= lr d/(a+eps), d = ±g + wd p."""
    ops, p, g, state = _common.operands(p, g, state)
    d = _common.direction(ops, p, g, weight_decay, maximize)
    square_avg = state["square_avg"]
    ops.mul_(square_avg, alpha)
    ops.addcmul_(square_avg, d, d, 1 - alpha)
    if centered:
        grad_avg = state["grad_avg"]
        ops.lerp_(grad_avg, d, 1 - alpha)
        avg = ops.sqrt_(ops.addcmul(square_avg, grad_avg, grad_avg, -1))
    else:
        avg = ops.sqrt(square_avg)
    ops.add_scalar_(avg, eps)
    if momentum > 0:
        buf = state["momentum_buffer"]
        ops.mul_(buf, momentum)
        ops.addcdiv_(buf, d, avg, 1)
        ops.add_(p, buf, -lr)
    else:
        ops.addcdiv_(p, d, avg, -lr)


class RMSprop(Optimizer):
    """RMSprop (see ``rmsprop_rule``)."""

    _rule = staticmethod(rmsprop_rule)
    _scalar_keys = ("step",)
    _rule_keys = ("lr", "alpha", "eps", "weight_decay", "momentum", "centered", "maximize")

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _common.check_lr(lr)
        _common.check_eps(eps)
        _common.check_range("momentum", momentum)
        _common.check_weight_decay(weight_decay)
        _common.check_range("alpha", alpha)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, array, group):
        state = {"step": _common.scalar_zero(), "square_avg": np.zeros_like(array)}
        if group["momentum"] > 0:
            state["momentum_buffer"] = np.zeros_like(array)
        if group["centered"]:
            state["grad_avg"] = np.zeros_like(array)
        return state

    def step(self, closure=None):
        """One RMSprop update of every parameter with a gradient; returns the closure's loss."""
        return self._rule_step(closure)
