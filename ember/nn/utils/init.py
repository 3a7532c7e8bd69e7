"""skip_init: build a module without initialising (or drawing random numbers for) its tensors."""
import inspect

from ... import random
from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls, *args, **kwargs):
    """``module_cls(*args, **kwargs)`` with uninitialised parameters and buffers; as torch
    (which builds it on the meta device), the global random stream is left untouched."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final_device = kwargs.pop("device", "cpu")
    # ember has no meta tensors: build on the CPU, then give back the random numbers it drew
    state = random.get_rng_state()
    try:
        module = module_cls(*args, device=final_device, **kwargs)
    finally:
        random.set_rng_state(state)
    return module.to_empty(device=final_device)
