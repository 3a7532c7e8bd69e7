"""nn.Parameter and nn.Buffer: tensors that a Module registers as parameters or buffers."""
from .._creation import empty
from .._tensor import Tensor, pickled_data
from ..ops import fastpath as _fastpath


class Parameter(Tensor):
    """A leaf tensor sharing ``data``'s memory; assigning it to a Module attribute registers it."""

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): data must be a Tensor, got {type(data).__name__}")
        if requires_grad and data._data.dtype.kind not in "fcV":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        p = cls._make(data._data)
        p._vc = data._vc  # shares memory (and so the version counter) with data, as torch
        p.requires_grad = requires_grad
        return p

    def __init__(self, data=None, requires_grad=True):
        pass  # everything happens in __new__ (Tensor.__init__ would build a new array)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __reduce_ex__(self, protocol):
        return (_rebuild_parameter, (pickled_data(self), self._requires_grad, self._grad,
                                     self.__dict__.get("_shared", False)))


def _rebuild_parameter(data, requires_grad, grad, shared=False):
    p = Parameter._make(data, requires_grad)
    p._grad = grad
    if shared:
        p.__dict__["_shared"] = True
    return p


class Buffer(Tensor):
    """Marks a tensor to be registered as a buffer when assigned to a Module attribute (the
    module stores a plain tensor sharing its memory)."""

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            data = empty(0)
        b = cls._make(data._data, data._requires_grad)
        b._vc = data._vc
        b.persistent = persistent
        return b

    def __init__(self, data=None, *, persistent=True):
        pass


_fastpath.OPERAND_TYPES.add(Parameter)  # no state of its own: the fast paths may take it
