"""ASGD: averaged stochastic gradient descent (Polyak-Ruppert averaging in state['ax'])."""
import numpy as np

from . import _common
from .optimizer import Optimizer

__all__ = ["ASGD", "asgd_rule"]


def asgd_rule(p, g, state, *, eta, mu, lambd, weight_decay, maximize):
    """d = ±g + wd p; p *= 1 - lambd eta; p -= eta d; ax += (p - ax) mu (ax = p while mu is 1).
    eta and mu are the values before this step's update of them."""
    ops, p, g, state = _common.operands(p, g, state)
    d = _common.direction(ops, p, g, weight_decay, maximize)
    ops.mul_(p, 1 - lambd * eta)
    ops.add_(p, d, -eta)
    ax = state["ax"]
    if mu != 1:
        ops.add_(ax, ops.mul_(ops.sub(p, ax), mu))
    else:
        ops.copy_(ax, p)


class ASGD(Optimizer):
    """ASGD (see ``asgd_rule``): eta = lr / (1 + lambd lr t)^alpha and mu = 1 / max(1, t - t0)
    per parameter, in torch's scalar dtype."""

    _rule = staticmethod(asgd_rule)
    _scalar_keys = ("step", "eta", "mu")
    _rule_keys = ("lambd", "weight_decay", "maximize")

    def __init__(self, params, lr=1e-2, lambd=1e-4, alpha=0.75, t0=1e6, weight_decay=0,
                 foreach=None, maximize=False, differentiable=False, capturable=False):
        _common.check_lr(_common.as_float(lr))
        _common.check_weight_decay(weight_decay)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay,
                        foreach=foreach, maximize=maximize, differentiable=differentiable,
                        capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, array, group):
        return {"step": _common.scalar_zero(), "eta": _common.scalar_zero(
            _common.as_float(group["lr"])), "mu": _common.scalar_zero(1.0),
            "ax": np.zeros_like(array)}

    def _advance(self, scalars, group, fresh):
        step, eta, mu = scalars["step"], scalars["eta"], scalars["mu"]
        step += 1
        used = {"eta": float(eta), "mu": float(mu)}
        t, lr, lambd = float(step), _common.as_float(group["lr"]), group["lambd"]
        eta[...] = lr / ((1 + lambd * lr * t) ** group["alpha"])
        mu[...] = 1 / max(1, t - group["t0"])
        return used

    def step(self, closure=None):
        """One ASGD update of every parameter with a gradient; returns the closure's loss."""
        return self._rule_step(closure)
