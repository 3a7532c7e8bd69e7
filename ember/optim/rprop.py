"""Rprop: resilient backpropagation, a per-element step size grown while the gradient keeps
its sign and shrunk when it flips."""
import numpy as np

from ..autograd._math import sign as _sign
from . import _common
from .optimizer import Optimizer

__all__ = ["Rprop", "rprop_rule"]


def rprop_rule(p, g, state, *, step, etas, step_sizes, maximize):
    """s = sign(d * prev) -> factor etaplus (s > 0), etaminus (s < 0), 1 (s == 0);
    step_size = clamp(step_size * factor); d = 0 where the sign flipped; p -= sign(d) step_size;
    prev = d."""
    etaminus, etaplus = etas
    d = np.negative(g) if maximize else np.array(g, copy=True)
    prev, step_size = state["prev"], state["step_size"]
    factor = _sign(np.multiply(d, prev, out=np.empty_like(d)))  # torch's: 0 at NaN
    factor = np.where(factor > 0, etaplus, factor)  # in torch's order: a later rule sees the
    factor = np.where(factor < 0, etaminus, factor)  # values the earlier ones wrote
    factor = np.where(factor == 0, 1, factor)
    step_size *= factor
    np.clip(step_size, step_sizes[0], step_sizes[1], out=step_size)
    d = np.where(factor == etaminus, 0, d)
    p -= _sign(d) * step_size
    np.copyto(prev, d)


class Rprop(Optimizer):
    """Rprop (see ``rprop_rule``)."""

    _rule = staticmethod(rprop_rule)
    _scalar_keys = ("step",)
    _rule_keys = ("etas", "step_sizes", "maximize")

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        _common.check_lr(_common.as_float(lr))
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, array, group):
        lr = _common.as_float(group["lr"])
        return {"step": _common.scalar_zero(), "prev": np.zeros_like(array),
                "step_size": np.full_like(array, lr)}

    def step(self, closure=None):
        """One Rprop update of every parameter with a gradient; returns the closure's loss."""
        return self._rule_step(closure)
