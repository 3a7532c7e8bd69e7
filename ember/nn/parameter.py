"""nn.Parameter: a Tensor that a Module registers as one of its learnable parameters."""
from .._tensor import Tensor


class Parameter(Tensor):
    """A leaf tensor sharing ``data``'s memory; assigning it to a Module attribute registers it."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from .._creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, got {type(data).__name__}")
        p = cls._make(data._data)
        p._vc = data._vc  # shares memory (and so the version counter) with data, as torch
        p.requires_grad = requires_grad
        return p

    def __init__(self, data=None, requires_grad=True):
        pass  # everything happens in __new__ (Tensor.__init__ would build a new array)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (self._data, self._requires_grad, self._grad))


def _rebuild_parameter(data, requires_grad, grad):
    p = Parameter._make(data, requires_grad)
    p._grad = grad
    return p
