"""Stochastic weight averaging (torch.optim.swa_utils): AveragedModel keeps a running (or
exponential) average of a model's parameters, SWALR anneals the learning rate to a constant,
update_bn recomputes BatchNorm statistics for the averaged weights."""
import copy
import itertools
import math

from .. import _creation
from .._dtype import int64
from ..autograd import grad_mode
from ..nn.modules.module import Module
from ..nn.modules.normalization import _BatchNorm
from ..ops import api
from ._lr_base import LRScheduler, per_group

__all__ = ["AveragedModel", "SWALR", "update_bn", "get_ema_multi_avg_fn",
           "get_swa_multi_avg_fn", "get_ema_avg_fn", "get_swa_avg_fn"]


def get_ema_multi_avg_fn(decay=0.999):
    """avg = decay * avg + (1 - decay) * current, over lists (a lerp, as torch's)."""
    def ema_update(ema_param_list, current_param_list, _num_averaged):
        with grad_mode.no_grad():
            for avg, cur in zip(ema_param_list, current_param_list):
                avg.lerp_(cur, 1 - decay)
    return ema_update


def get_swa_multi_avg_fn():
    """avg += (current - avg) / (n + 1), over lists (a lerp by 1 / (n + 1))."""
    def swa_update(averaged_param_list, current_param_list, num_averaged):
        with grad_mode.no_grad():
            weight = api.div(1, api.add(num_averaged, 1))
            for avg, cur in zip(averaged_param_list, current_param_list):
                avg.lerp_(cur, api.to_dtype(weight, avg.dtype))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    def ema_update(ema_param, current_param, num_averaged):
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    def swa_update(averaged_param, current_param, num_averaged):
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of ``model`` whose parameters (and buffers, with use_buffers) are averaged by
    update_parameters: equal weights by default, or avg_fn / multi_avg_fn (e.g. EMA)."""

    def __init__(self, model, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False):
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = copy.deepcopy(model)
        self.register_buffer("n_averaged", _creation.tensor(0, dtype=int64))
        self.avg_fn, self.multi_avg_fn, self.use_buffers = avg_fn, multi_avg_fn, use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def _tensors(self, model):
        if self.use_buffers:
            return list(itertools.chain(model.parameters(), model.buffers()))
        return list(model.parameters())

    def update_parameters(self, model):
        """Fold ``model``'s current parameters into the average (the first call copies)."""
        averaged, current = self._tensors(self.module), self._tensors(model)
        first = int(self.n_averaged.item()) == 0
        with grad_mode.no_grad():
            pairs = [(a, c.detach()) for a, c in zip(averaged, current)]
            if first:
                for a, c in pairs:
                    a.copy_(c)
            elif self.avg_fn is not None:
                for a, c in pairs:
                    a.copy_(self.avg_fn(a, c, self.n_averaged))
            else:
                floating = [(a, c) for a, c in pairs if a.is_floating_point()]
                fn = self.multi_avg_fn or get_swa_multi_avg_fn()
                fn([a for a, _ in floating], [c for _, c in floating], self.n_averaged)
            if not self.use_buffers:  # buffers follow the model's, not averaged
                for a, c in zip(self.module.buffers(), model.buffers()):
                    a.copy_(c.detach())
            self.n_averaged.add_(1)


def update_bn(loader, model, device=None):
    """One pass over ``loader`` (inputs, or (input, ...) batches) in train mode with every
    BatchNorm reset to a cumulative average: their running statistics for the current
    weights."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for batch in loader:
        if isinstance(batch, (list, tuple)):
            batch = batch[0]
        model(batch)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr from its value to swa_lr over anneal_epochs ('cos' or
    'linear'), then hold it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos",
                 last_epoch=-1):
        for group, lr in zip(optimizer.param_groups, per_group("swa_lr", optimizer, swa_lr)):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must by one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got "
                             f"{anneal_epochs}")
        self.anneal_func = (self._cosine_anneal if anneal_strategy == "cos"
                            else self._linear_anneal)
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self):
        self._warn_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_t = max(0, min(1, (step - 1) / max(1, self.anneal_epochs)))
        prev_alpha = self.anneal_func(prev_t)
        groups = self.optimizer.param_groups
        prev_lrs = [self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) for g in groups]
        t = max(0, min(1, step / max(1, self.anneal_epochs)))
        alpha = self.anneal_func(t)
        return [g["swa_lr"] * alpha + lr * (1 - alpha) for g, lr in zip(groups, prev_lrs)]
