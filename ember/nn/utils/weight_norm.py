"""Weight normalization (the hook-based API): w = g * v / ||v||, recomputed before each forward."""
import warnings

from ...ops import api
from ..parameter import Parameter

__all__ = ["WeightNorm", "weight_norm", "remove_weight_norm"]


def _norm_except_dim(v, dim):
    """2-norm of ``v`` over every axis but ``dim``, kept broadcastable; dim=-1: one 0-d norm."""
    if dim == -1:
        return v.norm(2)
    keep = dim % v.ndim
    axes = tuple(a for a in range(v.ndim) if a != keep)
    if not axes:
        return v.abs()
    return v.norm(2, dim=axes, keepdim=True)


def weight_from(g, v, dim):
    """w = g * v / ||v|| (the norm over every axis but ``dim``; -1: over all)."""
    return api.mul(v, api.div(g, _norm_except_dim(v, dim)))


def _check_dim(weight, dim):
    if dim != -1 and not -weight.ndim <= dim < weight.ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-weight.ndim}, {weight.ndim - 1}], but got {dim})")


class WeightNorm:
    """Forward pre-hook that rebuilds ``name`` from ``name_g`` (magnitude) and ``name_v``."""

    def __init__(self, name, dim):
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module):
        return weight_from(getattr(module, self.name + "_g"), getattr(module, self.name + "_v"),
                           self.dim)

    @staticmethod
    def apply(module, name, dim):
        warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                      "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning,
                      stacklevel=3)
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        _check_dim(weight, fn.dim)  # before any change (torch fails after removing the weight)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(_norm_except_dim(weight, fn.dim).data))
        module.register_parameter(name + "_v", Parameter(weight.data))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module):
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.data))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module, name="weight", dim=0):
    """Replace ``module.<name>`` by ``<name>_g`` and ``<name>_v``; dim=None: one norm overall."""
    WeightNorm.apply(module, name, dim)
    return module


def remove_hook(module, name, kind, what):
    """Undo the reparametrisation hook of class ``kind`` on ``module.<name>`` (ValueError naming
    ``what`` when there is none)."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, kind) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"{what} of '{name}' not found in {module}")


def remove_weight_norm(module, name="weight"):
    """Fold ``<name>_g`` and ``<name>_v`` back into one parameter ``<name>``."""
    return remove_hook(module, name, WeightNorm, "weight_norm")
