"""RMSprop: divide the gradient by a running root-mean-square (optionally centered, momentum)."""
import numpy as np

from . import _common
from .optimizer import Optimizer

__all__ = ["RMSprop", "rmsprop_rule"]


def rmsprop_rule(p, g, state, *, lr, alpha, eps, weight_decay, momentum, centered, maximize,
                 step=None):
    """s = α s + (1-α) d²; a = sqrt(s - ḡ²) (centered, ḡ = lerp(ḡ, d, 1-α)) or sqrt(s);
    b = μ b + d/(a+eps), p -= lr b (momentum) or p -= lr d/(a+eps), d = ±g + wd p."""
    d = _common.direction(p, g, weight_decay, maximize)
    square_avg = state["square_avg"]
    square_avg *= alpha
    _common.add_square_(square_avg, d, 1 - alpha)
    avg = np.empty_like(square_avg)
    if centered:
        grad_avg = state["grad_avg"]
        _common.lerp_(grad_avg, d, 1 - alpha)
        np.multiply(grad_avg, grad_avg, out=avg)
        np.subtract(square_avg, avg, out=avg)
        np.sqrt(avg, out=avg)
    else:
        np.sqrt(square_avg, out=avg)
    avg += eps
    if momentum > 0:
        buf = state["momentum_buffer"]
        buf *= momentum
        buf += np.divide(d, avg, out=avg)
        np.multiply(buf, lr, out=avg)
    else:
        np.divide(np.multiply(d, lr, out=np.empty_like(d)), avg, out=avg)
    p -= avg


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
