"""The ``functorch.*`` API: torch.func's transforms, each warning that it moved (as torch)."""
import functools
import warnings

from .. import func as _func
from . import make_functional as _nn_impl

__all__ = ["vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
           "functionalize", "make_functional", "make_functional_with_buffers",
           "combine_state_for_ensemble"]


def _deprecated(function, new_api):
    name = function.__name__

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        warnings.warn(f"We've integrated functorch into PyTorch. As the final step of the "
                      f"integration, `functorch.{name}` is deprecated as of PyTorch 2.0 and will "
                      f"be deleted in a future version of PyTorch >= 2.3. Please use "
                      f"`{new_api}` instead; see the PyTorch 2.0 release notes and/or the "
                      "`torch.func` migration guide for more details "
                      "https://pytorch.org/docs/main/func.migrating.html", FutureWarning,
                      stacklevel=2)
        return function(*args, **kwargs)
    return wrapper


def functionalize(func, *, remove="mutations"):
    raise NotImplementedError("functionalize: ember has no functionalization pass; in-place ops "
                              "already run eagerly")


def combine_state_for_ensemble(models):
    raise NotImplementedError("combine_state_for_ensemble: ember has no vmap to run the ensemble; "
                              "loop over the models, or use torch.func.stack_module_state")


vmap, grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian = (
    _deprecated(getattr(_func, name), f"torch.func.{name}")
    for name in ("vmap", "grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian"))
functionalize = _deprecated(functionalize, "torch.func.functionalize")
make_functional = _deprecated(_nn_impl.make_functional, "torch.func.functional_call")
make_functional_with_buffers = _deprecated(_nn_impl.make_functional_with_buffers,
                                           "torch.func.functional_call")
combine_state_for_ensemble = _deprecated(combine_state_for_ensemble,
                                         "torch.func.stack_module_state")
