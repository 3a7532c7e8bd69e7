"""Rprop: resilient backpropagation, a per-element step size grown while the gradient keeps
its sign and shrunk when it flips."""
import numpy as np

from . import _common
from .optimizer import Optimizer

__all__ = ["Rprop", "rprop_rule"]


def rprop_rule(p, g, state, *, step, etas, step_sizes, maximize):
    """s = sign(d * prev) -> factor etaplus (s > 0), etaminus (s < 0), 1 (s == 0);
    step_size = clamp(step_size * factor); d = 0 where the sign flipped; p -= sign(d) step_size;
    prev = d."""
    etaminus, etaplus = etas
    ops, p, g, state = _common.operands(p, g, state)
    d = ops.neg(g) if maximize else ops.clone(g)
    prev, step_size = state["prev"], state["step_size"]
    factor = ops.sign(ops.mul(d, prev))  # torch's sign: 0 at NaN
    ops.masked_fill_(factor, factor > 0, etaplus)  # in torch's order: a later rule sees the
    ops.masked_fill_(factor, factor < 0, etaminus)  # values the earlier ones wrote
    ops.masked_fill_(factor, factor == 0, 1)
    ops.clamp_(ops.mul_(step_size, factor), step_sizes[0], step_sizes[1])
    ops.masked_fill_(d, factor == etaminus, 0)
    ops.addcmul_(p, ops.sign(d), step_size, -1)
    ops.copy_(prev, d)


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
