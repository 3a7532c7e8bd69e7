"""ember.nn: modules, layers, losses, functional forms and initialisation, as torch.nn."""
from . import functional, init, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from .parameter import Parameter  # noqa: F401


def __getattr__(name):
    # sub-packages that load on first use (ember.nn.parallel is heavy and rarely needed)
    if name == "parallel":
        import importlib
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'ember.nn' has no attribute '{name}'")
