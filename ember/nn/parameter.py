"""nn.Parameter and nn.Buffer: tensors that a Module registers as parameters or buffers; the
lazy modules' placeholders without a shape (UninitializedParameter, UninitializedBuffer)."""
import numpy as np

from .. import _dtype
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


class _Uninitialized:
    """A placeholder without a shape until ``materialize(shape)`` gives it one."""

    def materialize(self, shape, device=None, dtype=None):
        np_dtype = self._data.dtype if dtype is None else _dtype.to_numpy_dtype(dtype)
        self._data = np.empty(tuple(shape), np_dtype)
        self.__class__ = self.cls_to_become

    def __repr__(self):
        return f"<{type(self).__name__}>"


class UninitializedParameter(_Uninitialized, Parameter):
    """A Parameter whose shape is not known yet (becomes a Parameter when materialised)."""

    cls_to_become = Parameter

    def __new__(cls, requires_grad=True, device=None, dtype=None):
        data = Tensor._make(np.empty(0, _dtype.to_numpy_dtype(dtype or _dtype.get_default_dtype())))
        return Parameter.__new__(cls, data, requires_grad)

    def __init__(self, requires_grad=True, device=None, dtype=None):
        pass


class UninitializedBuffer(_Uninitialized, Tensor):
    """A buffer whose shape is not known yet (becomes a plain Tensor when materialised)."""

    cls_to_become = Tensor

    def __new__(cls, requires_grad=False, device=None, dtype=None):
        buffer = Tensor._make(np.empty(0, _dtype.to_numpy_dtype(
            dtype or _dtype.get_default_dtype())), requires_grad)
        buffer.__class__ = cls
        return buffer

    def __init__(self, requires_grad=False, device=None, dtype=None):
        pass


def is_lazy(param):
    """Whether ``param`` is a lazy module's placeholder, not yet given a shape."""
    return isinstance(param, _Uninitialized)


_fastpath.OPERAND_TYPES.add(Parameter)  # no state of its own: the fast paths may take it
