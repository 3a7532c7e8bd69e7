"""SparseAdam: Adam's update applied only where a sparse gradient has entries."""
import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from . import _common
from .optimizer import Optimizer

__all__ = ["SparseAdam", "sparse_adam_rule"]


def sparse_adam_rule(p, index, values, state, *, step, lr, betas, eps):
    """At the gradient's entries only: m += (1-β1)(g - m), v += (1-β2)(g² - v),
    p -= lr·sqrt(1-β2^t)/(1-β1^t) · m / (sqrt(v) + eps); ``index``: the coalesced entries."""
    beta1, beta2 = betas
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    old_avg, old_sq = exp_avg[index], exp_avg_sq[index]
    avg_step = (values - old_avg) * (1 - beta1)
    sq_step = (values * values - old_sq) * (1 - beta2)
    exp_avg[index] += avg_step
    exp_avg_sq[index] += sq_step
    numer = avg_step + old_avg
    denom = np.sqrt(sq_step + old_sq) + eps
    step_size = lr * (1 - beta2 ** step) ** 0.5 / (1 - beta1 ** step)
    p[index] += -step_size * (numer / denom)


class SparseAdam(Optimizer):
    """SparseAdam (see ``sparse_adam_rule``): dense parameters with sparse COO gradients."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, maximize=False):
        if not 0.0 < _common.as_float(lr):
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _common.check_betas(betas)
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, maximize=maximize))
        _refuse(self.param_groups, lambda p: p.is_sparse,
                "SparseAdam requires dense parameter tensors", "Sparse")
        _refuse(self.param_groups, lambda p: p.is_complex(),
                "SparseAdam does not support complex parameters", "Complex")

    def step(self, closure=None):
        """One SparseAdam update of every parameter with a gradient; returns the closure's
        loss."""
        loss = self._run_closure(closure)
        with grad_mode.no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p._grad is not None:
                        self._step_param(p, group)
        return loss

    def _step_param(self, p, group):
        if not p._grad.is_sparse:
            raise RuntimeError("SparseAdam does not support dense gradients, please consider "
                               "Adam instead")
        state = self.state[p]
        if not state:
            state.update(step=0, exp_avg=Tensor._make(np.zeros_like(p._data)),
                         exp_avg_sq=Tensor._make(np.zeros_like(p._data)))
        state["step"] += 1
        grad = p._grad.coalesce()
        values = grad._values()._data
        if not values.size:
            return
        values = -values if group["maximize"] else values
        arrays = {k: state[k]._data for k in ("exp_avg", "exp_avg_sq")}
        sparse_adam_rule(p._data, tuple(grad._indices()._data), values, arrays,
                         step=state["step"], lr=_common.as_float(group["lr"]),
                         betas=group["betas"], eps=group["eps"])
        p._vc[0] += 1


def _refuse(groups, test, reason, kind):
    """torch's check of the parameters SparseAdam cannot take, named by (group, position)."""
    found = [[g, i] for g, group in enumerate(groups) for i, p in enumerate(group["params"])
             if test(p)]
    if found:
        raise ValueError(f"{kind} params at indices {found}: {reason}")
