"""The public indexing functions: gather, scatter, index_select, masked_select, nonzero,
``a[index]`` and ``a[index] = value``."""
import numpy as np

from ... import _meta
from ..._tensor import Tensor
from ...autograd import graph as _graph
from .. import indexing as I
from .. import shape as S
from .shapes import reshape as _reshape


def _vector(t):
    """A 0-d tensor (or index) as a one-element vector: torch indexes a scalar's dim 0 (or -1)
    as that of one element."""
    return _reshape(t, (-1,)) if isinstance(t, Tensor) and t._data.ndim == 0 else t


def _scalar_dim(input, dim, index):
    """True for a 0-d input (dim checked: only 0 and -1), whose index is then at most 1-d."""
    if input._data.ndim:
        return False
    S._dim(0, dim)
    if isinstance(index, Tensor) and index._data.ndim > 1:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    return True


def gather(input, dim, index):
    if _scalar_dim(input, dim, index):
        out = I.GatherBackward0.apply(_vector(input), dim=0, index=_vector(index))
        return _reshape(out, tuple(index.shape))
    if isinstance(index, Tensor) and index._data.ndim == 0 and input._data.ndim == 1:
        S._dim(1, dim)  # torch reads a 0-d index of a vector as a one-element one
        return _reshape(I.GatherBackward0.apply(input, dim=0, index=_vector(index)), ())
    return I.GatherBackward0.apply(input, dim=dim, index=index)


def scatter(input, dim, index, src=None, value=None, *, reduce=None):
    src = src if src is not None else value
    cls = I.ScatterBackward0 if isinstance(src, Tensor) else I.ScatterBackward1
    if _scalar_dim(input, dim, index):
        out = cls.apply(_vector(input), _vector(src), dim=0, index=_vector(index), reduce=reduce)
        return _reshape(out, ())
    return cls.apply(input, src, dim=dim, index=index, reduce=reduce)


def scatter_add(input, dim, index, src):
    if _scalar_dim(input, dim, index):
        out = I.ScatterAddBackward0.apply(_vector(input), _vector(src), dim=0,
                                          index=_vector(index))
        return _reshape(out, ())
    return I.ScatterAddBackward0.apply(input, src, dim=dim, index=index)


def index_select(input, dim, index):
    if _scalar_dim(input, dim, index):
        count = index._data.size if isinstance(index, Tensor) else np.size(index)
        if count != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                               f"{count} value(s)")
        out = I.IndexSelectBackward0.apply(_vector(input), dim=0, index=_vector(index))
        return _reshape(out, ())
    return I.IndexSelectBackward0.apply(input, dim=dim, index=index)


def masked_select(input, mask):
    """The elements of input where the (broadcast) boolean mask is True, as a 1-D tensor."""
    if input.is_meta or mask.is_meta:
        _meta.refuse("masked_select")
    if mask.shape != input.shape:
        message = _graph.broadcast_message(tuple(mask.shape), tuple(input.shape))
        if message:
            raise RuntimeError(message)
        shape = np.broadcast_shapes(mask.shape, input.shape)
        if shape != tuple(input.shape):  # torch broadcasts both
            input = input.expand(*shape)
    m = mask._data if mask.shape == input.shape else np.broadcast_to(mask._data, input.shape)
    return I.MaskedSelectBackward0.apply(input, index=m)


def nonzero(input, *, as_tuple=False):
    """Indices of the nonzero elements: one row each, or one tensor per dimension (a 0-d input
    counts as 1-d there, as torch's; its rows have no columns)."""
    if input.is_meta:
        _meta.refuse("nonzero")
    x = input._data
    if x.ndim == 0:
        hit = np.flatnonzero(x.reshape(1))
        if as_tuple:
            return (Tensor._make(hit.astype(np.int64)),)
        return Tensor._make(np.zeros((hit.size, 0), np.int64))
    idx = np.nonzero(x)
    if as_tuple:
        return tuple(Tensor._make(i.astype(np.int64)) for i in idx)
    return Tensor._make(np.stack(idx, axis=1).astype(np.int64))


def setitem(self, index, value, masked_fill=False):
    I.setitem(self, index, value, masked_fill)


def getitem(self, index):
    return I.getitem(self, index)
