"""ember.nn: modules, layers, losses, functional forms and initialisation, as torch.nn."""
import importlib

from . import functional, grad, init, utils  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import Module  # noqa: F401
from .modules import attention as _attention
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter  # noqa: F401

globals().pop("attention", None)  # `import *` above brought modules/attention.py under this name
from . import attention  # noqa: E402, F401  (torch.nn.attention: SDPBackend, sdpa_kernel)

functional.grad = grad  # torch.nn.functional.grad is torch.nn.grad (bound here: no cycle)
functional.multi_head_attention_forward = _attention.multi_head_attention_forward


def __getattr__(name):
    # sub-packages that load on first use (ember.nn.parallel is heavy and rarely needed)
    if name == "parallel":
        try:
            return importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as error:
            if error.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module 'ember.nn' has no attribute '{name}'")

