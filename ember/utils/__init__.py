"""ember.utils: data loading (``ember.utils.data``), pytrees (``_pytree``) and swap_tensors, as
``torch.utils``."""
import importlib
import weakref

from .._tensor import Tensor

_LAZY = ("_pytree", "benchmark", "checkpoint", "data", "dlpack", "tensorboard")


def __getattr__(name):
    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'ember.utils' has no attribute '{name}'")


def _slot_names(cls):
    """Every __slots__ entry along the class's MRO (but __dict__ and __weakref__)."""
    names = []
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    return names


def swap_tensors(t1, t2):
    """Exchange everything two tensors are (class, data, grad_fn, attributes) in place, so
    every reference to ``t1`` now sees what ``t2`` was, and the other way round."""
    for name, t in (("t1", t1), ("t2", t2)):
        if not isinstance(t, Tensor):
            raise AttributeError(f"swap_tensors expects tensors, but {name} is a "
                                 f"{type(t).__name__}")
        if weakref.getweakrefs(t):
            raise RuntimeError(f"Cannot swap {name} because it has weakref associated with it")
    slots = _slot_names(type(t1))
    if set(slots) != set(_slot_names(type(t2))):
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")
    t1.__class__, t2.__class__ = t2.__class__, t1.__class__
    t1.__dict__, t2.__dict__ = t2.__dict__, t1.__dict__
    for name in slots:
        missing = object()
        a, b = getattr(t1, name, missing), getattr(t2, name, missing)
        for t, value in ((t1, b), (t2, a)):
            if value is missing:
                delattr(t, name)
            else:
                setattr(t, name, value)
