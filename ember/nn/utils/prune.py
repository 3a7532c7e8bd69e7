"""nn.utils.prune, as torch's: pruning a module's tensor by a mask, re-applied before each forward.

Pruning ``name`` moves the parameter to ``name + "_orig"``, keeps the mask as the buffer
``name + "_mask"``, sets the plain attribute ``name`` to ``mask * orig`` and registers the
method as a forward pre-hook that recomputes it. Pruning the same tensor again combines the
masks in a ``PruningContainer``; ``remove`` makes the pruning permanent.
"""
import numbers
from abc import ABC, abstractmethod
from collections.abc import Iterable

from ... import _creation
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "CustomFromMask", "Identity", "L1Unstructured", "LnStructured",
           "PruningContainer", "RandomStructured", "RandomUnstructured", "custom_from_mask",
           "global_unstructured", "identity", "is_pruned", "l1_unstructured", "ln_structured",
           "random_structured", "random_unstructured", "remove"]


class BasePruningMethod(ABC):
    """A pruning technique: ``compute_mask`` says which entries to zero; the rest is shared."""

    _tensor_name = None
    PRUNING_TYPE = None

    def __call__(self, module, inputs):
        """The forward pre-hook: the pruned tensor, recomputed from the original and mask."""
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t, default_mask):
        """The new mask for ``t``, on top of ``default_mask`` (same shape as ``t``)."""

    def apply_mask(self, module):
        """``name + '_mask'`` times ``name + '_orig'``, as stored on ``module``."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned")
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name, *args, importance_scores=None, **kwargs):
        """Prune ``module.<name>`` with ``cls(*args, **kwargs)`` (combined with any earlier
        pruning of it); returns the method registered as the forward pre-hook."""
        method = _composite_method(cls, module, name, *args, **kwargs)
        orig = getattr(module, name)
        if importance_scores is not None and importance_scores.shape != orig.shape:
            raise AssertionError(f"importance_scores should have the same shape as parameter "
                                 f"{name} of {module}")
        scores = importance_scores if importance_scores is not None else orig
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = _creation.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            mask = method.compute_mask(scores, default_mask=default_mask)
            module.register_buffer(name + "_mask", mask)
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:  # put the parameter back as it was
                module.register_parameter(name, getattr(module, name + "_orig"))
                del module._parameters[name + "_orig"]
            raise
        return method

    def prune(self, t, default_mask=None, importance_scores=None):
        """The pruned version of ``t`` (the module is not touched)."""
        if importance_scores is not None and importance_scores.shape != t.shape:
            raise AssertionError("importance_scores should have the same shape as tensor t")
        scores = importance_scores if importance_scores is not None else t
        default_mask = default_mask if default_mask is not None else _creation.ones_like(t)
        return t * self.compute_mask(scores, default_mask=default_mask)

    def remove(self, module):
        """Make the pruning permanent: ``name`` is a parameter again, holding the pruned
        values; ``name + '_orig'`` and ``name + '_mask'`` go."""
        if self._tensor_name is None:
            raise AssertionError(f"Module {module} has to be pruned before pruning can be "
                                 "removed")
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters[self._tensor_name + "_orig"]
        orig.data = weight.data
        del module._parameters[self._tensor_name + "_orig"]
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _composite_method(cls, module, name, *args, **kwargs):
    """The new method, or the container of the earlier pruning of ``name`` with it added."""
    old, keys = None, []
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            old = hook
            keys.append(key)
    if len(keys) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} "
                             f"of module {module}. Use a PruningContainer.")
    for key in keys:
        del module._forward_pre_hooks[key]
    method = cls(*args, **kwargs)
    method._tensor_name = name
    if old is None:
        return method
    container = old if isinstance(old, PruningContainer) else PruningContainer(old)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """The pruning methods applied to one tensor, in order; the last acts on what the earlier
    ones kept (entries, channels or everything, by its ``PRUNING_TYPE``)."""

    def __init__(self, *args):
        self._pruning_methods = ()
        if len(args) == 1 and not isinstance(args[0], Iterable):
            self._tensor_name = args[0]._tensor_name
            self.add_pruning_method(args[0])
        else:
            for method in (args[0] if len(args) == 1 else args):
                self.add_pruning_method(method)

    def add_pruning_method(self, method):
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named "
                             f"'{self._tensor_name}' to PruningContainer {self}. Found "
                             f"'{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self):
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, idx):
        return self._pruning_methods[idx]

    def compute_mask(self, t, default_mask):
        method = self._pruning_methods[-1]
        new_mask = default_mask.to(dtype=t.dtype)
        slc = _unpruned_part(method, t, default_mask)
        partial = method.compute_mask(t[slc], default_mask=default_mask[slc])
        new_mask[slc] = partial.to(dtype=new_mask.dtype)
        return new_mask


def _unpruned_part(method, t, mask):
    """The index of what the earlier masks kept, as the method's PRUNING_TYPE reads it."""
    kind, n_dims = method.PRUNING_TYPE, t.dim()
    if kind == "unstructured":
        return mask == 1
    if kind == "global":
        return (slice(None),) * n_dims
    if kind != "structured":
        raise ValueError(f"Unrecognized PRUNING_TYPE {kind}")
    if not hasattr(method, "dim"):
        raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the '
                             "attribute `dim` defined.")
    dim = method.dim + n_dims if method.dim < 0 else method.dim
    if dim < 0:
        raise IndexError(f"Index is out of bounds for tensor with dimensions {n_dims}")
    keep = mask.sum(dim=[d for d in range(n_dims) if d != dim]) != 0
    slc = [slice(None)] * n_dims
    slc[dim] = keep
    return tuple(slc)


class Identity(BasePruningMethod):
    """Prunes nothing (a mask of ones)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        return default_mask

    @classmethod
    def apply(cls, module, name):
        return super().apply(module, name)


class _Amount(BasePruningMethod):
    """A method pruning ``amount`` entries or channels: a count, or a fraction of them."""

    def __init__(self, amount):
        _check_amount(amount)
        self.amount = amount

    def _count(self, size):
        n = self.amount if isinstance(self.amount, numbers.Integral) else \
            round(self.amount * size)
        if isinstance(self.amount, numbers.Integral) and n > size:
            raise ValueError(f"amount={n} should be smaller than the number of parameters to "
                             f"prune={size}")
        return n


class RandomUnstructured(_Amount):
    """Zero ``amount`` entries chosen at random (the largest of uniform draws, as torch)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        n = self._count(t.nelement())
        mask = default_mask.clone()
        if n:
            prob = _creation.rand_like(t)
            mask.view(-1)[prob.view(-1).topk(n).indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(_Amount):
    """Zero the ``amount`` entries of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t, default_mask):
        n = self._count(t.nelement())
        mask = default_mask.clone()
        if n:
            mask.view(-1)[t.abs().view(-1).topk(n, largest=False).indices] = 0
        return mask

    @classmethod
    def apply(cls, module, name, amount, importance_scores=None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(_Amount):
    """Zero ``amount`` channels along ``dim`` chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim=-1):
        super().__init__(amount)
        self.dim = dim

    def compute_mask(self, t, default_mask):
        size = _check_structured(t, self.dim)
        n = self._count(size)
        if not n:
            return default_mask
        prob = _creation.rand(size)
        threshold = prob.kthvalue(n).values
        mask = _channel_mask(t, self.dim, prob > threshold)
        return mask * default_mask.to(dtype=mask.dtype)

    @classmethod
    def apply(cls, module, name, amount, dim=-1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(_Amount):
    """Zero the ``amount`` channels along ``dim`` of smallest L-``n`` norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim=-1):
        super().__init__(amount)
        self.n, self.dim = n, dim

    def compute_mask(self, t, default_mask):
        size = _check_structured(t, self.dim)
        n = self._count(size)
        dims = list(range(t.dim()))
        dims.remove(dims[self.dim])
        norm = t.norm(p=self.n, dim=dims)
        keep = norm.topk(size - n, largest=True).indices
        if not n:
            return default_mask
        mask = _channel_mask(t, self.dim, keep)
        return mask * default_mask.to(dtype=mask.dtype)

    @classmethod
    def apply(cls, module, name, amount, n, dim, importance_scores=None):
        return super().apply(module, name, amount=amount, n=n, dim=dim,
                             importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prune by a given mask."""

    PRUNING_TYPE = "global"

    def __init__(self, mask):
        self.mask = mask

    def compute_mask(self, t, default_mask):
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match "
                                 f"self.mask shape {self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name, mask):
        return super().apply(module, name, mask=mask)


def _channel_mask(t, dim, channels):
    mask = _creation.zeros_like(t)
    slc = [slice(None)] * t.dim()
    slc[dim] = channels
    mask[tuple(slc)] = 1
    return mask


def _check_amount(amount):
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if (isinstance(amount, numbers.Integral) and amount < 0) or (
            not isinstance(amount, numbers.Integral) and not 0.0 <= float(amount) <= 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a "
                         "non-negative integer")


def _check_structured(t, dim):
    """Structured pruning needs a tensor of 2+ dims and a valid ``dim``; returns its size."""
    if t.dim() <= 1:
        raise ValueError(f"Structured pruning can only be applied to multidimensional tensors. "
                         f"Found tensor of shape {t.shape} with {t.dim()} dims")
    if dim >= t.dim():
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")
    return t.shape[dim]


def identity(module, name):
    Identity.apply(module, name)
    return module


def random_unstructured(module, name, amount):
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name, amount, importance_scores=None):
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name, amount, dim):
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name, amount, n, dim, importance_scores=None):
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name, mask):
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters, pruning_method, importance_scores=None, **kwargs):
    """Prune the (module, name) pairs together: ``pruning_method`` (unstructured) ranks all
    their entries at once."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    parameters = list(parameters)
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    scores = parameters_to_vector([importance_scores.get((m, n), getattr(m, n))
                                   for m, n in parameters])
    default_mask = parameters_to_vector([
        getattr(m, n + "_mask", None) if hasattr(m, n + "_mask")
        else _creation.ones_like(getattr(m, n)) for m, n in parameters])
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError('Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. '
                        f"Found method {pruning_method} of type {method.PRUNING_TYPE}")
    container = PruningContainer()
    container._tensor_name = "temp"
    container.add_pruning_method(method)
    final_mask = container.compute_mask(scores, default_mask)
    pointer = 0
    for module, name in parameters:
        param = getattr(module, name)
        count = param.numel()
        custom_from_mask(module, name, mask=final_mask[pointer:pointer + count].view_as(param))
        pointer += count


def remove(module, name):
    """Make the pruning of ``module.<name>`` permanent and drop its hook."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning "
                     "can be removed")


def is_pruned(module):
    """Whether any submodule of ``module`` has a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, sub in module.named_modules() for hook in sub._forward_pre_hooks.values())
