"""The arithmetic of sparse COO tensors: sums with dense or sparse tensors, scaling by a number,
and matrix products; bound here onto SparseTensor (and to_sparse/to_dense onto Tensor)."""
import numbers

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from ..autograd import _sparse_grad
from ..autograd._sparse_grad import SparseGrad
from ..ops.api import cat
from . import _coo
from ._coo import SparseTensor


def _refuse_sparse_dense(self, other):
    raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) instead.")


def _add(self, other, alpha=1):
    """sparse + sparse: both entry lists, duplicates summed (a coalesced result)."""
    if not isinstance(other, SparseTensor):
        _refuse_sparse_dense(self, other)
    if self.shape != other.shape:
        raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but "
                           f"{list(self.shape)} != {list(other.shape)}")
    if self.sparse_dim() != other.sparse_dim():
        raise NotImplementedError("ember: adding sparse tensors of different sparse_dim")
    if not (self.requires_grad or other.requires_grad):  # torch's entry order (merged/joined)
        total = _sparse_grad.add(SparseGrad.of(self), SparseGrad.of(
            other if alpha == 1 else other * alpha))
        return total.tensor()
    values = cat([self._sp_values, other._sp_values * alpha if alpha != 1 else
                  other._sp_values])
    index = np.concatenate([self._sp_indices, other._sp_indices], axis=1)
    return SparseTensor._build(index, values, self._sp_size, False).coalesce()


def _add_(self, other, alpha=1):
    """In place: self's entries become those of self + alpha * other (sparse other)."""
    if self.requires_grad:
        raise RuntimeError("ember: in-place add of a sparse tensor that requires grad")
    total = _add(self, other, alpha)
    self.__dict__.update(_sp_indices=total._sp_indices, _sp_values=total._sp_values,
                         _sp_coalesced=total._sp_coalesced)
    return self


def _zero_(self):
    """In place: no entries left (a coalesced empty tensor of the same size)."""
    values = self._sp_values
    self.__dict__.update(_sp_indices=np.zeros((self.sparse_dim(), 0), dtype=np.int64),
                         _sp_values=Tensor._make(np.zeros((0,) + tuple(values.shape[1:]),
                                                          dtype=values._data.dtype)),
                         _sp_coalesced=True)
    return self


def _radd(self, other):
    """dense + sparse: a dense tensor (dtype promoted as dense + dense)."""
    if not isinstance(other, Tensor):
        _refuse_sparse_dense(self, other)
    return other + self.to_dense()


def _rsub(self, other):
    if not isinstance(other, Tensor):
        _refuse_sparse_dense(self, other)
    return other - self.to_dense()


def _scalar(other, op):
    if isinstance(other, numbers.Number) or (
            isinstance(other, Tensor) and not other.is_sparse and other.ndim == 0):
        return other
    raise NotImplementedError(f"ember: {op} of a sparse tensor supports only a number (or a 0-d "
                              f"dense tensor), got {type(other).__name__}")


def _with_values(self, values):
    return SparseTensor._build(self._sp_indices, values, self._sp_size, self._sp_coalesced)


def _mul(self, other):
    return _with_values(self, self._sp_values * _scalar(other, "multiplication"))


def _div(self, other):
    return _with_values(self, self._sp_values / _scalar(other, "division"))


def _bind():
    from . import dispatch_matmul, dispatch_mm  # cycle: the package imports this module last
    methods = {
        "__add__": _add, "add": _add, "__radd__": _radd, "add_": _add_, "__iadd__": _add_,
        "zero_": _zero_,
        "__sub__": lambda self, other: _add(self, other, alpha=-1), "__rsub__": _rsub,
        "__mul__": _mul, "__rmul__": _mul, "mul": _mul,
        "__truediv__": _div, "div": _div,
        "__neg__": lambda self: _with_values(self, -self._sp_values),
        "__matmul__": dispatch_matmul, "matmul": dispatch_matmul, "mm": dispatch_mm,
        "__rmatmul__": lambda self, other: dispatch_matmul(other, self),
    }
    for dt in _dtype._ALL:  # s.float(), s.double(), s.long(), ...
        methods[dt.scalar_name.lower()] = (
            lambda d: lambda self, memory_format=None: self.to(d))(dt)
    for name, fn in methods.items():
        setattr(SparseTensor, name, fn)
    Tensor.is_sparse = False
    Tensor.layout = _coo.strided
    Tensor.to_dense = _dense_to_dense
    from . import _to_sparse  # cycle: the package imports this module last
    Tensor.to_sparse = Tensor.to_sparse_coo = _to_sparse


def _dense_to_dense(self, dtype=None, *, masked_grad=None):
    """A dense tensor is its own dense form."""
    return self if dtype is None else self.to(dtype)


_bind()
