"""SGD: stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""
import numpy as np

from ..autograd import _sparse_grad
from ..autograd._sparse_grad import SparseGrad
from . import _common
from .optimizer import Optimizer

__all__ = ["SGD", "sgd_rule"]


def sgd_rule(p, g, state, *, lr, momentum, dampening, weight_decay, nesterov, maximize,
             fresh=False):
    """d = ±g + wd*p; b = d (first step) else m*b + (1-τ)*d; d = d + m*b (Nesterov) or b;
    p -= lr*d (torch's ops: ``buf.mul_(m).add_(d, alpha=1-τ)``, ``p.add_(d, alpha=-lr)``)."""
    ops, p, g, state = _common.operands(p, g, state)
    d = _common.direction(ops, p, g, weight_decay, maximize)
    buf = None
    if momentum != 0:
        buf = state["momentum_buffer"]
        if fresh:
            ops.copy_(buf, d)
        else:
            ops.mul_(buf, momentum)
            ops.add_(buf, d, 1 - dampening)
        d = ops.add(d, buf, momentum, free=d is not g) if nesterov else buf
    ops.add_(p, d, -lr, free=d is not g and d is not buf)


def sgd_sparse_rule(p, g, state, *, lr, momentum, dampening, weight_decay, nesterov, maximize,
                    fresh=False):
    """``sgd_rule`` for a sparse gradient, as torch runs it: sparse sums (the momentum buffer
    is a sparse tensor), then p += -lr * d entry by entry; weight decay is refused (torch's
    sparse + dense)."""
    g = _sparse_grad.scaled(g, -1) if maximize else g
    if weight_decay != 0:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) "
                           "instead.")
    if momentum != 0:
        old = state.get("momentum_buffer")
        if fresh:  # torch.clone: contiguous values
            buf = SparseGrad(g.indices.copy(), np.array(g.values, order="C"), g.size,
                             g.coalesced)
        elif not old.is_sparse:
            raise NotImplementedError("ember: SGD with a dense momentum buffer and a sparse "
                                      "gradient")
        else:
            buf = _sparse_grad.add(_sparse_grad.scaled(SparseGrad.of(old), momentum), g,
                                   None if dampening == 0 else 1 - dampening)
        state["momentum_buffer"] = buf.tensor()
        g = _sparse_grad.add(g, buf, momentum) if nesterov else buf
    _sparse_grad.add_into(p, g, -lr)


class SGD(Optimizer):
    """Stochastic gradient descent (optionally with momentum): see ``sgd_rule``."""

    _rule_keys = ("lr", "momentum", "dampening", "weight_decay", "nesterov", "maximize")

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 *, maximize=False, foreach=None, differentiable=False, fused=None):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        _common.check_lr(lr)
        _common.check_range("momentum", momentum)
        _common.check_range("dampening", dampening, low=-float("inf"))  # refuses NaN only
        _common.check_weight_decay(weight_decay)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        _common.check_fused(foreach, fused)
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)

    _rule = staticmethod(sgd_rule)
    _sparse_rule = staticmethod(sgd_sparse_rule)

    def _init_state(self, array, group):
        if group["momentum"] == 0:
            return {}
        return {"momentum_buffer": np.empty_like(array)}

    def _advance(self, scalars, group, fresh):
        return {"fresh": fresh}

    def step(self, closure=None):
        """One update of every parameter with a gradient; returns the closure's loss."""
        return self._rule_step(closure)
