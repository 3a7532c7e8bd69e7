"""The sparse COO tensor: int64 indices (sparse_dim x nnz), a dense values tensor (nnz, ...) and
a size. Only the operations below are supported; every other (dense) operation raises
NotImplementedError instead of computing on data the tensor does not have."""
import numpy as np

from .. import _dtype
from .._tensor import Size, Tensor, wrap_dim
from .._tensor_str import tensor_repr
from . import _nodes as N


class layout:
    """How a tensor's elements are stored: ``ember.strided`` (dense) or ``ember.sparse_coo``."""

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"ember.{self._name}"

    def __reduce__(self):
        return self._name


strided, sparse_coo = layout("strided"), layout("sparse_coo")


class _NoDenseData:
    """A sparse tensor's ``_data``: any dense operation that reaches for it fails loudly."""

    __slots__ = ()

    def _refuse(self, *args, **kwargs):
        raise NotImplementedError(
            "ember: this operation does not support sparse COO tensors (layout "
            "ember.sparse_coo); supported are to_dense, coalesce, indices, values, "
            "torch.sparse.mm, mm/matmul/@ with a dense matrix, dense + sparse, sparse + sparse "
            "and multiplication by a number. Call .to_dense() first.")

    __getattr__ = __array__ = __array_ufunc__ = __array_function__ = __len__ = _refuse
    __getitem__ = __iter__ = __float__ = __int__ = __index__ = _refuse


_NO_DATA = _NoDenseData()


class SparseTensor(Tensor):
    """A sparse COO tensor (``layout == ember.sparse_coo``); built by ``sparse_coo_tensor`` or
    ``Tensor.to_sparse``. Its gradient flows through its values tensor."""

    is_sparse = True
    layout = sparse_coo

    @classmethod
    def _build(cls, indices, values, size, coalesced):
        """indices: int64 ndarray (sparse_dim, nnz); values: Tensor (nnz, *dense); no checks."""
        t = Tensor._make.__func__(cls, _NO_DATA)
        t.__dict__.update(_sp_indices=indices, _sp_values=values, _sp_size=tuple(size),
                          _sp_coalesced=coalesced)
        return t

    # ----- metadata -----
    @property
    def shape(self):
        return Size(self._sp_size)

    def size(self, dim=None):
        return Size(self._sp_size) if dim is None else self._sp_size[self._wrap_dim(dim)]

    def _wrap_dim(self, dim):
        return wrap_dim(dim, len(self._sp_size))

    @property
    def dtype(self):
        return self._sp_values.dtype

    @property
    def ndim(self):
        return len(self._sp_size)

    def dim(self):
        return len(self._sp_size)

    ndimension = dim

    def numel(self):
        return int(np.prod(self._sp_size, dtype=np.int64))

    nelement = numel

    def __len__(self):
        if not self._sp_size:
            raise TypeError("len() of a 0-d tensor")
        return self._sp_size[0]

    def is_floating_point(self):
        return self._sp_values.is_floating_point()

    def is_contiguous(self, memory_format=None):
        return False

    def stride(self, dim=None):
        raise RuntimeError("Sparse tensors do not have strides")

    def numpy(self, force=False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() "
                        "first.")

    def sparse_dim(self):
        return self._sp_indices.shape[0]

    def dense_dim(self):
        return self._sp_values.ndim - 1

    def _nnz(self):
        return self._sp_indices.shape[1]

    def is_coalesced(self):
        return self._sp_coalesced

    # ----- autograd state: the values tensor's -----
    @property
    def requires_grad(self):
        return self._sp_values.requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        self._sp_values.requires_grad = value

    def requires_grad_(self, requires_grad=True):
        self._sp_values.requires_grad_(requires_grad)
        return self

    @property
    def grad_fn(self):
        return self._sp_values.grad_fn

    @property
    def is_leaf(self):
        return self._sp_values.is_leaf

    def _is_requires_grad_leaf(self):
        return self._sp_values.requires_grad and self._sp_values.is_leaf

    @property
    def grad(self):
        """A leaf's gradient: sparse, one entry per distinct index (duplicates share it)."""
        g = self._sp_values._grad
        if g is None:
            return None
        _, first = np.unique(_linear(self._sp_indices, self._sp_size), return_index=True)
        return SparseTensor._build(self._sp_indices[:, first], g[first], self._sp_size, True)

    @grad.setter
    def grad(self, value):
        if value is not None:
            raise NotImplementedError("ember: only None can be assigned to the .grad of a "
                                      "sparse tensor")
        self._sp_values._grad = None

    def detach(self):
        return SparseTensor._build(self._sp_indices, self._sp_values.detach(), self._sp_size,
                                   self._sp_coalesced)

    def clone(self, memory_format=None):
        return SparseTensor._build(self._sp_indices.copy(), self._sp_values.clone(),
                                   self._sp_size, self._sp_coalesced)

    # ----- conversion -----
    def indices(self):
        if not self._sp_coalesced:
            raise RuntimeError("Cannot get indices on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return Tensor._make(self._sp_indices)

    def values(self):
        if not self._sp_coalesced:
            raise RuntimeError("Cannot get values on an uncoalesced tensor, please call "
                               ".coalesce() first")
        return self._sp_values

    def _indices(self):
        return Tensor._make(self._sp_indices)

    def _values(self):
        return self._sp_values

    def coalesce(self):
        """Indices sorted (row-major) and unique, the values of duplicates summed."""
        if self._sp_coalesced:
            return self
        keys = _linear(self._sp_indices, self._sp_size)
        unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        values = self._sp_values
        shape = (len(unique),) + tuple(values.shape[1:])
        summed = N.CoalesceBackward0.apply(values, shape=shape, index=inverse.reshape(-1),
                                           accumulate=True)
        return SparseTensor._build(self._sp_indices[:, first], summed, self._sp_size, True)

    def to_dense(self, dtype=None, *, masked_grad=None):
        """The dense tensor (duplicate indices summed); differentiable in the values."""
        values = self._sp_values if dtype is None else self._sp_values.to(dtype)
        if self.sparse_dim() == 0:  # every entry is the whole (dense) tensor
            return values.sum(0)
        return N.ToDenseBackward0.apply(values, shape=self._sp_size,
                                        index=tuple(self._sp_indices), accumulate=True)

    def to_sparse(self, *args, **kwargs):
        if args and args[0] != self.sparse_dim() or kwargs.get("sparse_dim") not in (
                None, self.sparse_dim()):
            raise RuntimeError("to_sparse: conversion to a different sparse_dim is not "
                               "supported by ember")
        return self

    def to(self, *args, **kwargs):
        """A dtype cast of the values (device 'cpu' only)."""
        values = self._sp_values.to(*args, **kwargs)
        if values is self._sp_values:
            return self
        return SparseTensor._build(self._sp_indices, values, self._sp_size, self._sp_coalesced)

    def type(self, dtype=None, non_blocking=False):
        if dtype is None:
            return f"ember.sparse.{self.dtype.scalar_name}Tensor"
        raise NotImplementedError("ember: Tensor.type(dtype) of a sparse tensor; use .to(dtype)")

    def t(self):
        if len(self._sp_size) > 2 or self.dense_dim():
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, "
                               f"but self is {self.sparse_dim()} sparse and {self.dense_dim()} "
                               f"dense dimensions")
        return SparseTensor._build(self._sp_indices[::-1].copy(), self._sp_values,
                                   self._sp_size[::-1], self._sp_coalesced and self.ndim < 2)

    @property
    def T(self):
        return self.t()

    def __repr__(self):
        pad = " " * len("tensor(indices=")
        indices = tensor_repr(Tensor._make(self._sp_indices)).replace("\n", "\n" + pad)
        values = tensor_repr(self._sp_values.detach()).replace("\n", "\n" + " " * 14)
        extra = "" if self.dtype is _dtype.get_default_dtype() or \
            self.dtype in (_dtype.int64, _dtype.bool_) else f", dtype={self.dtype}"
        grad = f",\n       grad_fn=<{self.grad_fn.name()}>" if self.grad_fn is not None else (
            ", requires_grad=True" if self.requires_grad else "")
        return (f"tensor(indices={indices},\n       values={values},\n       size="
                f"{self._sp_size}, nnz={self._nnz()}{extra}, layout=ember.sparse_coo{grad})")

    def __format__(self, spec):
        return object.__format__(self, spec)

    def __reduce_ex__(self, protocol):
        raise NotImplementedError("ember: pickling sparse tensors is not supported; save "
                                  "their indices() and values()")

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.")
        values = self._sp_values.detach().clone().requires_grad_(self.requires_grad)
        copy = SparseTensor._build(self._sp_indices.copy(), values, self._sp_size,
                                   self._sp_coalesced)
        memo[id(self)] = copy
        return copy


def _linear(indices, size):
    """The row-major position of each index column among the sparse dims."""
    sparse_size = size[:indices.shape[0]]
    if not sparse_size:
        return np.zeros(indices.shape[1], dtype=np.int64)
    return np.ravel_multi_index(tuple(indices), sparse_size)
