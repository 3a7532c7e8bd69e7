"""Adagrad: per-coordinate learning rates from the running sum of squared gradients."""
import numpy as np

from .._tensor import Tensor
from ..autograd import _sparse_grad
from ..autograd._sparse_grad import SparseGrad
from . import _common
from .optimizer import Optimizer

__all__ = ["Adagrad", "adagrad_rule"]


def adagrad_rule(p, g, state, *, step, lr, lr_decay, eps, weight_decay, maximize):
    """s += d²; p -= lr/(1 + (t-1) lr_decay) · d / (sqrt(s) + eps), d = ±g + wd p."""
    ops, p, g, state = _common.operands(p, g, state)
    d = _common.direction(ops, p, g, weight_decay, maximize)
    clr = lr / (1 + (step - 1) * lr_decay)
    total = state["sum"]
    ops.addcmul_(total, d, d, 1)
    std = ops.add_scalar_(ops.sqrt(total), eps)
    ops.addcdiv_(p, d, std, -clr)


def adagrad_sparse_rule(p, g, state, *, step, lr, lr_decay, eps, weight_decay, maximize):
    """``adagrad_rule`` at a sparse gradient's entries (coalesced first):
    s[i] += v², p[i] -= clr · v / (sqrt(s[i]) + eps); weight decay is refused (as torch)."""
    if weight_decay != 0:
        raise RuntimeError("weight_decay option is not compatible with sparse gradients")
    g = _sparse_grad.coalesce(_sparse_grad.scaled(g, -1) if maximize else g)
    clr = lr / (1 + (step - 1) * lr_decay)
    index = tuple(g.indices)
    total = state["sum"]._data
    total[index] += g.values * g.values
    std = np.sqrt(total[index])
    std += np.asarray(eps, std.dtype)
    _sparse_grad.add_into(p, SparseGrad(g.indices, g.values / std, g.size), -clr)


class Adagrad(Optimizer):
    """Adagrad (see ``adagrad_rule``); like torch, its state exists from construction."""

    _rule = staticmethod(adagrad_rule)
    _sparse_rule = staticmethod(adagrad_sparse_rule)
    _scalar_keys = ("step",)
    _rule_keys = ("lr", "lr_decay", "eps", "weight_decay", "maximize")

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _common.check_lr(lr)
        _common.check_range("lr_decay", lr_decay)
        _common.check_weight_decay(weight_decay)
        _common.check_range("initial_accumulator_value", initial_accumulator_value)
        _common.check_eps(eps)
        _common.check_fused(foreach, fused)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p] = {k: Tensor._make(v)
                                 for k, v in self._init_state(p._data, group).items()}

    def _init_state(self, array, group):
        return {"step": _common.scalar_zero(),
                "sum": np.full_like(array, group["initial_accumulator_value"])}

    def step(self, closure=None):
        """One Adagrad update of every parameter with a gradient; returns the closure's loss."""
        return self._rule_step(closure)
