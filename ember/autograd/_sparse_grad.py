"""A sparse COO gradient in flight through a backward pass (``embedding(sparse=True)``), and
torch's rules for summing it: into a leaf's ``.grad``, with another gradient, or into a dense
tensor (an optimizer's ``param.add_(grad, alpha)``).

torch sums two sparse gradients by its sparse add: the two entry lists merged in index order
(equal heads summed into one entry) when both value blocks are contiguous, else the lists joined
(coalesced once they hold more entries than the tensor has elements). The entry order is kept
exactly, since it decides the rounding of the later sums of duplicates.
"""
import numpy as np

from .._tensor import Tensor


class SparseGrad:
    """indices: int64 (sparse_dim, nnz); values: ndarray (nnz, *dense); size: the full shape.
    Interior nodes see it dense (``np.asarray``); leaves, hooks and autograd.grad get it as a
    sparse tensor (``tensor()``)."""

    __slots__ = ("indices", "values", "size", "coalesced")
    __array_ufunc__ = None  # ndarray + SparseGrad defers to __radd__

    def __init__(self, indices, values, size, coalesced=False):
        self.indices, self.values, self.size = indices, values, tuple(size)
        self.coalesced = coalesced

    @property
    def shape(self):
        return self.size

    @property
    def dtype(self):
        return self.values.dtype

    def nnz(self):
        return self.indices.shape[1]

    def dense(self):
        """The dense array: duplicates summed in entry order."""
        out = np.zeros(self.size, dtype=self.values.dtype)
        add_into(out, self)
        return out

    def __array__(self, dtype=None, copy=None):
        out = self.dense()
        return out if dtype is None else out.astype(dtype)

    def __add__(self, other):
        return buffer_sum(self, other)

    def __radd__(self, other):
        return buffer_sum(other, self)

    def tensor(self):
        """The sparse tensor users see (the arrays are shared)."""
        from ..sparse._coo import SparseTensor  # binding upwards: sparse tensors build on ops
        return SparseTensor._build(self.indices, Tensor._make(self.values), self.size,
                                   self.coalesced)

    @classmethod
    def of(cls, t):
        """The arrays of a sparse tensor (shared)."""
        return cls(t._sp_indices, t._sp_values._data, t._sp_size, t._sp_coalesced)


def fma(a, b, c):
    """a * b + c rounded once, as torch's CPU kernels' fused multiply-add: float32 through
    float64 (the product is exact there), float64 by error-free transformations (Dekker's
    product and Knuth's sum)."""
    if a.dtype != np.float64:
        return (a.astype(np.float64) * b + c).astype(a.dtype)
    product = a * b
    split = 134217729.0 * a  # Veltkamp: a and b in halves of 26 bits
    a_hi = split - (split - a)
    split = 134217729.0 * b
    b_hi = split - (split - b)
    a_lo, b_lo = a - a_hi, b - b_hi
    product_err = ((a_hi * b_hi - product) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    total = product + c
    back = total - product
    total_err = (product - (total - back)) + (c - back)
    return total + (total_err + product_err)


def add_into(dense, sparse, alpha=None):
    """dense[index] += (alpha *) value, entry by entry in order (torch's dense += sparse; with
    alpha a fused multiply-add per entry)."""
    index, values = sparse.indices, sparse.values.astype(dense.dtype, copy=False)
    if alpha is None:
        np.add.at(dense, tuple(index), values)
        return dense
    alpha = np.asarray(alpha, dense.dtype)
    keys = _keys(sparse)
    order = np.argsort(keys, kind="stable")
    rank = np.empty_like(order)  # the how-many-th entry of its index each entry is
    starts = np.r_[0, np.flatnonzero(np.diff(keys[order])) + 1]
    rank[order] = np.arange(keys.size) - np.repeat(starts, np.diff(np.r_[starts, keys.size]))
    for r in range(int(rank.max()) + 1 if rank.size else 0):  # duplicates in entry order
        at = tuple(index[:, rank == r])
        dense[at] = fma(values[rank == r], alpha, dense[at])
    return dense


def buffer_sum(old, new):
    """A backward buffer's sum of two gradients, one of them sparse: torch's engine adds
    ``new + old`` when the old one is sparse, else ``old + new``."""
    if type(old) is SparseGrad and type(new) is SparseGrad:
        return add(new, old)
    return dense_plus(new, old) if type(old) is SparseGrad else dense_plus(old, new)


def dense_plus(dense, sparse):
    """dense + sparse, out of place: a dense array (a tensor under create_graph)."""
    if not isinstance(dense, np.ndarray):  # a graph tensor: its dense form, as a constant
        return dense + Tensor._make(sparse.dense())
    return add_into(np.array(dense, dtype=np.result_type(dense, sparse.values)), sparse)


def _keys(sparse):
    size = sparse.size[:sparse.indices.shape[0]]
    if not size:
        return np.zeros(sparse.nnz(), dtype=np.int64)
    return np.ravel_multi_index(tuple(sparse.indices), size)


def _merge_order(tk, sk):
    """torch's merge loop over two entry lists: per result entry the position taken from each
    list (-1: none); equal heads are summed into one entry."""
    tk, sk = tk.tolist(), sk.tolist()
    i = j = 0
    nt, ns = len(tk), len(sk)
    take_t, take_s = [], []
    while i < nt or j < ns:
        t_first = j >= ns or (i < nt and tk[i] <= sk[j])
        s_first = i >= nt or (j < ns and sk[j] <= tk[i])
        take_t.append(i if t_first else -1)
        take_s.append(j if s_first else -1)
        i += t_first
        j += s_first
    return np.array(take_t, dtype=np.int64), np.array(take_s, dtype=np.int64)


def scaled(sparse, alpha):
    """The sparse tensor times a number (its values multiplied in their dtype)."""
    return SparseGrad(sparse.indices, sparse.values * np.asarray(alpha, sparse.values.dtype),
                      sparse.size, sparse.coalesced)


def add(t, s, alpha=None):
    """torch's sparse ``t + alpha * s`` of two sparse tensors of one size."""
    if not s.nnz():
        return SparseGrad(t.indices.copy(), t.values.copy(), t.size, t.coalesced)
    if not t.nnz():
        s = s if alpha is None else scaled(s, alpha)
        return SparseGrad(s.indices.copy(), s.values.copy(), s.size, s.coalesced)
    dtype = np.result_type(t.values, s.values)
    contiguous = t.values.flags.c_contiguous and s.values.flags.c_contiguous
    s_in, s = s, (s if alpha is None else scaled(s, alpha))
    if not contiguous:
        out = SparseGrad(np.concatenate([t.indices, s.indices], axis=1),
                         np.concatenate([t.values, s.values]).astype(dtype, copy=False),
                         t.size)
        return coalesce(out) if out.nnz() > int(np.prod(t.size)) else out
    take_t, take_s = _merge_order(_keys(t), _keys(s_in))
    from_t, from_s = take_t >= 0, take_s >= 0
    values = np.zeros((take_t.size,) + t.values.shape[1:], dtype=dtype)
    values[from_t] = t.values[take_t[from_t]]
    if alpha is None:
        values[from_s] += s.values[take_s[from_s]]
    else:  # torch's axpy: one fused multiply-add
        values[from_s] = fma(s_in.values[take_s[from_s]].astype(dtype, copy=False),
                             np.asarray(alpha, dtype), values[from_s])
    indices = np.where(from_t, t.indices[:, np.maximum(take_t, 0)],
                       s.indices[:, np.maximum(take_s, 0)])
    return SparseGrad(indices, values, t.size, t.coalesced and s.coalesced)


def coalesce(sparse):
    """Indices sorted and unique, duplicates summed in entry order."""
    if sparse.coalesced:
        return sparse
    unique, first, inverse = np.unique(_keys(sparse), return_index=True, return_inverse=True)
    values = np.zeros((unique.size,) + sparse.values.shape[1:], dtype=sparse.values.dtype)
    np.add.at(values, inverse.reshape(-1), sparse.values)
    return SparseGrad(sparse.indices[:, first], values, sparse.size, True)


def accumulate_leaf(var, g):
    """Add ``g`` into ``var.grad`` where a sparse gradient takes part (torch's AccumulateGrad):
    the first one is kept (copied when its values are not contiguous), sparse += sparse in
    place, dense += sparse in place, sparse + dense gives a dense gradient."""
    old = var._grad
    sparse_old = old is not None and old.is_sparse
    if old is None:
        var._grad = (SparseGrad(g.indices, g.values, g.size, g.nnz() < 2)  # a shallow copy
                     if g.values.flags.c_contiguous else SparseGrad(
                         g.indices.copy(), np.ascontiguousarray(g.values), g.size,
                         g.coalesced)).tensor()
    elif sparse_old and type(g) is SparseGrad:
        total = add(SparseGrad.of(old), g)
        old.__dict__.update(_sp_indices=total.indices, _sp_values=Tensor._make(total.values),
                            _sp_coalesced=total.coalesced)
    elif sparse_old:  # new dense + old sparse: a dense gradient
        total = dense_plus(g, SparseGrad.of(old))
        var._grad = total if isinstance(total, Tensor) else Tensor._make(total)
    elif old._requires_grad:
        var._grad = old + Tensor._make(g.dense())
    else:
        add_into(old._data, g)
