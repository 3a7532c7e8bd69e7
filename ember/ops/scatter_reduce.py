"""scatter_reduce: src reduced into a copy of input at index along dim (sum, prod, mean, amax,
amin), input's own value taking part unless ``include_self=False``; with torch's gradients."""
import numpy as np

from .. import _dtype
from .._tensor import Tensor
from .._warn import warn_once
from ..autograd import _opmath
from ..autograd._math import array_math
from ..autograd.graph import Node
from .indexing import _check_bounds, _check_index_shape, _index_array, _scatter_positions
from .shape import _dim

_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
           "amin": np.minimum}
_ALIASES = {"max": "amax", "min": "amin"}  # torch still takes the old names


def _identity(reduce, dtype):
    """The value a reduction starts from where input does not take part."""
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f" or dtype.kind == "V":
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce == "amin"
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


class ScatterReduceBackward0(Node):
    """out = a with src reduced in at index along dim; gradients: sum/mean pass g (divided by
    the count for mean), amax/amin share g evenly among the values equal to the result, prod
    multiplies g by the product of the others; a's entries that src reached get none when
    ``include_self=False``."""

    def forward(self, a, src, dim, index, reduce, include_self):
        x = a._data
        if _opmath.given_dtype(src) != _opmath.given_dtype(a):
            raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
        if (x.dtype.kind == "c" and reduce in ("amax", "amin")) or \
                (x.dtype.kind == "b" and reduce == "mean"):
            raise NotImplementedError(f'"scatter_gather_tensor_cpu_reduce_{reduce}" not '
                                      f"implemented for '{a.dtype.scalar_name}'")
        self.dim = _dim(x.ndim, dim) if x.ndim else 0
        self.index = _index_array(index, "scatter")
        _check_index_shape(self.index.shape, x.shape, self.dim, src._data.shape)
        _check_bounds(self.index, x.shape[self.dim] if x.ndim else 1, self.dim)
        pos = _scatter_positions(self.index, self.dim)
        s = src._data[tuple(slice(0, n) for n in self.index.shape)]
        counts = np.zeros(x.shape, np.int64)
        np.add.at(counts, pos, 1)
        hit = counts > 0
        out = x.copy()
        if not include_self:
            out[hit] = _identity(reduce, x.dtype)
        ufunc = _UFUNCS[reduce]
        if x.dtype == np.bool_ and ufunc is np.add:
            ufunc = np.logical_or
        ufunc.at(out, pos, s)
        n = counts + 1 if include_self else np.maximum(counts, 1)
        if reduce == "mean":
            out = np.floor_divide(out, n.astype(x.dtype)) if x.dtype.kind in "iu" else \
                (out / n).astype(x.dtype, copy=False)
        self.reduce, self.include_self, self.pos = reduce, include_self, pos
        self.hit, self.n, self.src_shape = hit, n, src._data.shape
        if reduce in ("amax", "amin", "prod"):
            self.x, self.s, self.out = x, s, out
        return out

    def _src_grad(self, m, gs):
        """gs (shaped as index) placed into src's shape: entries past index's get none."""
        if self.src_shape != self.index.shape:
            part = tuple(slice(0, k) for k in self.index.shape)
            return m.index_into_zeros(gs, self.src_shape, part, False)
        return gs

    def backward(self, m, g):
        reduce, hit = self.reduce, self.hit
        if reduce in ("sum", "mean"):
            if reduce == "mean":
                g = g / self.n.astype(m.data(g).dtype)
            ga = g if self.include_self else m.keep(~hit, g)
            return ga, self._src_grad(m, m.gather(g, self.dim, self.index))
        if reduce == "prod":
            if m is not array_math:
                raise NotImplementedError("ember: double backward through "
                                          "scatter_reduce(reduce='prod') is not implemented")
            return self._prod_grads(g)
        # amax / amin: g shared evenly among the entries equal to the result (torch counts
        # input's equal entries even where include_self=False leaves them out), each share
        # times its 0/1 tie (-0.0 for a negative g off the ties, as torch's product)
        src_ties = self.s == self.out[self.pos]
        self_ties = self.x == self.out
        ties = self_ties.astype(np.int64)
        np.add.at(ties, self.pos, src_ties)
        shared = g / np.maximum(ties, 1).astype(m.data(g).dtype)
        ga = m.where(self_ties, shared, shared * 0)
        if not self.include_self:
            ga = m.keep(~hit, ga)
        gathered = m.gather(shared, self.dim, self.index)
        gs = m.where(src_ties, gathered, gathered * 0)
        return ga, self._src_grad(m, gs)

    def _prod_grads(self, g):
        """g times the product of the other members of each group (exact where one is 0)."""
        x, s, pos, hit = self.x, self.s, self.pos, self.hit
        zeros = np.zeros(x.shape, np.int64)
        np.add.at(zeros, pos, s == 0)
        if self.include_self:
            zeros += x == 0
        nonzero = np.where(x == 0, 1, x) if self.include_self else np.ones_like(x)
        np.multiply.at(nonzero, pos, np.where(s == 0, 1, s))  # each group's nonzero product

        def others(values, group_zeros, group_nonzero):
            with np.errstate(divide="ignore", invalid="ignore"):
                rest = np.where(values == 0, group_nonzero,
                                group_nonzero / np.where(values == 0, 1, values))
            return np.where((group_zeros - (values == 0)) > 0, 0, rest).astype(values.dtype)
        ga = g * others(x, zeros, nonzero) if self.include_self else np.where(hit, 0, g)
        gs = g[pos] * others(s, zeros[pos], nonzero[pos])
        return ga.astype(g.dtype, copy=False), self._src_grad(array_math, gs)


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """out[index[i]] (along dim) = reduce(input's value unless include_self=False, src[i]...)."""
    reduce = _ALIASES.get(reduce, reduce)
    if reduce not in _UFUNCS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_reduce(): argument 'src' (position 4) must be Tensor, not "
                        f"{type(src).__name__}")
    _dtype.refuse_kinds(input._data.dtype, f"scatter_gather_tensor_cpu_reduce_{reduce}", "")
    return ScatterReduceBackward0.apply(input, src, dim=dim, index=index, reduce=reduce,
                                        include_self=bool(include_self))


class IndexReduceBackward0(ScatterReduceBackward0):
    """index_reduce: scatter_reduce with the index vector spread along dim over source."""


_INDEX_REDUCES = ("prod", "mean", "amax", "amin")


def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """Slices of ``source`` along dim reduced into input's slices ``index`` (prod, mean, amax,
    amin; input's own value taking part unless include_self=False)."""
    warn_once("index_reduce() is in beta and the API may change at any time.")
    if reduce not in _INDEX_REDUCES:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    x, idx, s = input._data, index._data, source._data
    d = _dim(x.ndim, dim) if x.ndim else 0
    if idx.dtype != np.int64 and idx.dtype != np.int32:
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{index.dtype.scalar_name}")
    if idx.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: "
                         f"{idx.ndim} with type: {index.dtype.scalar_name} and size: "
                         f"{list(idx.shape)}")
    if s.dtype != x.dtype:
        raise RuntimeError(f"index_reduce_(): self ({input.dtype.scalar_name}) and source "
                           f"({source.dtype.scalar_name}) must have the same scalar type")
    along = s.shape[d] if s.ndim else 1
    if idx.size != along:
        raise RuntimeError(f"index_reduce_(): Number of indices ({idx.size}) should be equal to "
                           f"source.size(dim): ({along}), for dim: {d}")
    if x.ndim and (s.ndim != x.ndim or any(s.shape[k] != x.shape[k]
                                           for k in range(x.ndim) if k != d)):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(x.shape)} "
                           f"source.shape = {list(s.shape)}")
    size = x.shape[d] if x.ndim else 1
    if idx.size and (idx.min() < -size or idx.max() >= size):
        raise IndexError("index out of range in self")
    spread = np.broadcast_to(np.mod(idx, size).reshape(
        [-1 if k == d else 1 for k in range(max(s.ndim, 1))]), s.shape if s.ndim else (1,))
    full = Tensor._make(np.ascontiguousarray(spread, np.int64).reshape(s.shape))
    return IndexReduceBackward0.apply(input, source, dim=d, index=full, reduce=reduce,
                                      include_self=bool(include_self))
