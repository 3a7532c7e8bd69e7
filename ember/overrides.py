"""torch.overrides: the helpers of the __torch_function__ protocol (see ember/_torch_function.py)
for functions written in Python that want their arguments' overrides consulted."""
from . import _torch_function
from ._tensor import Tensor

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "handle_torch_function", "is_tensor_like", "get_default_nowrap_functions"]


def has_torch_function(relevant_args):
    """Whether any of ``relevant_args`` takes part in the protocol (and it is not disabled)."""
    level = _torch_function.disabled_level()
    if level >= 2:
        return False
    found = _torch_function.overloaded(tuple(relevant_args))
    if level == 1:
        found = [v for v in found if not isinstance(v, Tensor)]
    return bool(found)


def has_torch_function_unary(obj):
    return has_torch_function((obj,))


def has_torch_function_variadic(*args):
    return has_torch_function(args)


def handle_torch_function(public_api, relevant_args, *args, **kwargs):
    """Call the overloaded arguments' __torch_function__ for ``public_api``."""
    found = _torch_function.overloaded(tuple(relevant_args))
    return _torch_function.dispatch(public_api, args, kwargs, found)


def is_tensor_like(inp):
    """A Tensor, or an object whose type defines __torch_function__."""
    return type(inp) is Tensor or hasattr(type(inp), "__torch_function__")


def get_default_nowrap_functions():
    """Functions whose results Tensor.__torch_function__ leaves as they are (none in ember:
    its properties are not dispatched)."""
    return set()
