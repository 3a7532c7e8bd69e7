"""torch.sparse: sparse COO tensors (sparse_coo_tensor, Tensor.to_sparse) and their products
with dense matrices."""
import numpy as np

from .._creation import tensor
from .._device import check_device
from .._tensor import Tensor
from ..ops import linalg as _linalg
from . import _nodes as N
from ._coo import SparseTensor, layout, sparse_coo, strided

__all__ = ["mm", "sparse_coo_tensor", "layout", "sparse_coo", "strided"]


def _as_values(values, dtype):
    if not isinstance(values, Tensor):
        values = tensor(values, dtype=dtype)
    elif dtype is not None:
        values = values.to(dtype)
    if values.ndim == 0:
        raise RuntimeError("values must be at least 1-dimensional (one entry per index)")
    if values.requires_grad:  # the sparse tensor is a new node over its values, as in torch
        values = N.SparseCooTensorWithDimsAndTensorsBackward0.apply(values)
    return values


def _as_indices(indices):
    data = indices._data if isinstance(indices, Tensor) else np.asarray(indices)
    if data.dtype.kind not in "iu":
        raise RuntimeError(f"indices must be an int64 tensor, got {data.dtype}")
    if data.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(data.shape)}")
    return data.astype(np.int64)


def _check_size(indices, values, size):
    sparse_dim, dense_shape = indices.shape[0], tuple(values.shape[1:])
    if len(size) != sparse_dim + len(dense_shape):
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) "
                           f"= {len(size)}, sparse_dim = {sparse_dim}, dense_dim = "
                           f"{len(dense_shape)}")
    if tuple(size[sparse_dim:]) != dense_shape:
        raise RuntimeError(f"values has incorrect size, expected {list(size[:sparse_dim])} + "
                           f"{list(dense_shape)}, got {list(values.shape)}")
    if indices.shape[1] and (indices.min() < 0 or np.any(
            indices.max(axis=1) >= np.asarray(size[:sparse_dim], dtype=np.int64))):
        dim = int(np.argmax((indices.min(axis=1) < 0) | (
            indices.max(axis=1) >= np.asarray(size[:sparse_dim]))))
        bad = indices[dim].min() if indices[dim].min() < 0 else indices[dim].max()
        raise RuntimeError(f"size is inconsistent with indices: for dim {dim}, size is "
                           f"{size[dim]} but found index {bad}")


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None, pin_memory=False,
                      requires_grad=False, check_invariants=None, is_coalesced=None):
    """A sparse COO tensor: ``values[k]`` at position ``indices[:, k]`` (duplicates add up)."""
    check_device(device)
    index = _as_indices(indices)
    values = _as_values(values, dtype)
    if index.shape[1] != values.shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{index.shape[1]}, nnz from values: {values.shape[0]}")
    if size is None:  # the smallest size that holds every index
        sparse = [int(row.max()) + 1 if row.size else 0 for row in index]
        size = tuple(sparse) + tuple(values.shape[1:])
    size = tuple(int(s) for s in size)
    _check_size(index, values, size)
    if requires_grad and not values.requires_grad:  # a new leaf; the caller's values untouched
        values = values.detach().requires_grad_()
    coalesced = index.shape[1] < 2 if is_coalesced is None else bool(is_coalesced)
    return SparseTensor._build(index, values, size, coalesced)


def _to_sparse(self, sparse_dim=None, *, layout=None, blocksize=None, dense_dim=None):
    """The sparse COO form of a dense tensor (entries that are not all zero); coalesced."""
    if layout not in (None, sparse_coo) or blocksize is not None or dense_dim is not None:
        raise NotImplementedError("ember: to_sparse supports only the COO layout")
    x = self._data
    sparse_dim = x.ndim if sparse_dim is None else sparse_dim
    if not 0 <= sparse_dim <= x.ndim:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{x.ndim}] "
                           f"range, but {sparse_dim} is given")
    if sparse_dim == 0 and x.ndim:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when "
                           "self.dim()>0")
    nonzero = x != 0
    if sparse_dim < x.ndim:  # a hybrid tensor: whole dense blocks are the values
        nonzero = nonzero.any(axis=tuple(range(sparse_dim, x.ndim)))
    if x.ndim == 0:  # one entry (or none, for a zero) at the empty index
        index = np.zeros((0, int(nonzero)), dtype=np.int64)
        values = self.reshape(1)[:int(nonzero)]
    else:
        index = np.stack(np.nonzero(nonzero)).astype(np.int64)
        values = N.ToSparseBackward1.apply(self, index=tuple(index))
    return SparseTensor._build(index, values, x.shape, True)


def _check_mm(sparse, dense, name):
    if sparse.ndim != 2 or sparse.dense_dim():
        raise NotImplementedError(f"ember: {name} supports only 2-D sparse tensors with no "
                                  f"dense dims, got size {list(sparse.shape)}")
    if dense.ndim != 2:
        raise RuntimeError(f"{name}: expected a 2-D dense matrix, got {dense.ndim}-D")
    if sparse.shape[1] != dense.shape[0]:
        raise RuntimeError(f"{name}: Argument #3 (dense): Expected dim 0 size "
                           f"{sparse.shape[1]}, got {dense.shape[0]}")
    if sparse.dtype is not dense.dtype:
        raise RuntimeError(f"expected scalar type {sparse.dtype.scalar_name} but found "
                           f"{dense.dtype.scalar_name}")


def _sparse_dense_mm(sparse, dense, node, name):
    _check_mm(sparse, dense, name)
    index = sparse._sp_indices
    return node.apply(sparse._sp_values, dense, rows=index[0], cols=index[1],
                      n_rows=sparse.shape[0])


def mm(mat1, mat2, reduce="sum"):
    """Sparse @ dense (dense result); the sparse operand's gradient keeps its sparsity."""
    if reduce != "sum":
        raise NotImplementedError(f"ember: torch.sparse.mm with reduce={reduce!r}")
    if not isinstance(mat1, SparseTensor):
        return _dense_mm(mat1, mat2)
    return _sparse_dense_mm(mat1, mat2, N.SparseAddmmBackward0, "addmm")


def _product(a, b, name):
    """torch.mm / matmul / @ with a sparse operand (either side); the result is dense."""
    for t in (a, b):
        if isinstance(t, SparseTensor) and t._is_requires_grad_leaf():
            raise NotImplementedError(
                f"ember: {name} of a sparse leaf that requires grad (torch gives it a dense "
                "gradient); use torch.sparse.mm for a sparse gradient, or .to_dense()")
    if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
        raise NotImplementedError(f"ember: {name} of two sparse tensors")
    if isinstance(b, SparseTensor):  # dense @ sparse = (sparse^T @ dense^T)^T
        if a.ndim == 1:
            return _product(b.t(), a, name)
        return _product(b.t(), a.mT, name).mT
    if b.ndim == 1:
        return _product(a, b.unsqueeze(-1), name).squeeze(-1)
    return _sparse_dense_mm(a, b, N.MmBackward0, "addmm")


_dense_mm, _dense_matmul = _linalg.mm, _linalg.matmul


def dispatch_mm(input, mat2):
    """2-D matrix product (sparse operands included)."""
    if isinstance(input, SparseTensor) or isinstance(mat2, SparseTensor):
        return _product(input, mat2, "mm")
    return _dense_mm(input, mat2)


def dispatch_matmul(input, other):
    """Matrix product with torch.matmul's rules (a 2-D sparse operand included)."""
    if isinstance(input, SparseTensor) or isinstance(other, SparseTensor):
        return _product(input, other, "matmul")
    return _dense_matmul(input, other)


from . import _arith  # noqa: E402,F401  (binds the operators of SparseTensor)
