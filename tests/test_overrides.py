"""ember.overrides: torch.overrides's helpers for Python functions taking part in the protocol."""
import torch.overrides as toverrides

import ember
import ember.overrides as eoverrides


class _Meta:
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return ("handled", func.__name__, len(args))


def _op(a, b=0):
    for mod in (eoverrides, toverrides):
        if mod.has_torch_function_variadic(a, b):
            return mod.handle_torch_function(_op, (a, b), a, b)
    return "plain"


def test_helpers_as_torch():
    for mod in (eoverrides, toverrides):
        assert mod.is_tensor_like(_Meta()) and not mod.is_tensor_like(3)
        assert mod.has_torch_function((_Meta(),)) and mod.has_torch_function_unary(_Meta())
    assert eoverrides.is_tensor_like(ember.ones(1))
    assert not eoverrides.has_torch_function((ember.ones(1), 3))
    assert eoverrides.handle_torch_function(_op, (_Meta(),), _Meta(), 1) == ("handled", "_op", 2)
    assert eoverrides.get_default_nowrap_functions() == set()
