"""ember.utils: data loading (``ember.utils.data``), as ``torch.utils``."""
import importlib

_LAZY = ("checkpoint", "data", "dlpack", "tensorboard")


def __getattr__(name):
    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'ember.utils' has no attribute '{name}'")
