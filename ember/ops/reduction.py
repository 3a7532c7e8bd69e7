"""Reductions (sum, mean, prod, max/min, var/std, logsumexp, norm) and their derivatives."""
import warnings

import numpy as np

from .. import _dtype
from .._memory_format import contiguous_result
from .._tensor import wrap_dim
from ..autograd import _opmath
from ..autograd._math import _sum_to
from ..autograd.graph import Node
from . import _bf16
from .shape import refuse_repeated_dims


def _dims(x, dim):
    """Normalise ``dim`` (None, int, or tuple) to a sorted tuple of non-negative axes."""
    n = x.ndim
    if dim is None:
        return tuple(range(n))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if not dims and dim is not None and not isinstance(dim, int):
        return tuple(range(n))
    try:
        out = [wrap_dim(d, n) for d in dims]
    except TypeError:  # (wrap_dim's names the dim alone)
        i, d = next((i, d) for i, d in enumerate(dims) if not isinstance(d, (int, np.integer)))
        raise TypeError(f"argument 'dim' must be tuple of ints, but found element of type "
                        f"{type(d).__name__} at pos {i}") from None
    refuse_repeated_dims(out)
    return tuple(sorted(out)) if n else ()  # a 0-d tensor takes dim 0 / -1: nothing to reduce


def check_nonempty(x, dims, op):
    """torch refuses max/min/argmax-like reductions over a dim of size 0 (named as given)."""
    for d in dims:
        if x.shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")


def check_floating(x, message):
    if x.dtype.kind != "f":
        raise RuntimeError(message.format(_dtype.of_numpy(x.dtype).scalar_name))


def _kept_shape(shape, dims):
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def _expand_back(m, g, shape, dims, keepdim):
    """Broadcast a reduced gradient back to the input's shape."""
    if not keepdim and len(shape):
        g = m.reshape(g, _kept_shape(shape, dims))
    return m.expand(g, shape)


class SumBackward1(Node):
    """out = sum of a over dims;  da = g broadcast back."""
    result_layout = contiguous_result

    def forward(self, a, dim=None, keepdim=False, dtype=None):
        x = a._data
        self.shape, self.dims, self.keepdim = x.shape, _dims(x, dim), keepdim
        if dtype is not None:
            x = x.astype(_dtype.to_numpy_dtype(dtype))
            if x.dtype.kind in "biu":  # summed in that dtype (NumPy would widen to int64)
                return np.add.reduce(x, axis=self.dims, keepdims=keepdim, dtype=x.dtype)
        elif x.dtype.kind in "bui" and x.dtype != np.int64:
            x = x.astype(np.int64)  # torch sums bools and small ints as int64
        if x.dtype == np.float16:  # torch accumulates float16 in float32, rounding once
            return np.sum(x, axis=self.dims, keepdims=keepdim, dtype=np.float32).astype(x.dtype)
        if type(x) is np.ndarray:  # what np.sum calls for an ndarray, without its Python layers
            return np.add.reduce(x, axis=self.dims, keepdims=keepdim)
        return np.sum(x, axis=self.dims, keepdims=keepdim)

    def backward(self, m, g):
        return (_expand_back(m, g, self.shape, self.dims, self.keepdim),)


class SumBackward0(SumBackward1):
    """out = sum of all elements;  da = g broadcast."""


class SumToSizeBackward(SumBackward1):
    """out = a summed down to a broadcast-compatible ``size`` (the engine's reducer); torch names
    this node SumBackward1."""

    def forward(self, a, size):
        self.shape = a._data.shape
        return _sum_to(a._data, tuple(size))

    def backward(self, m, g):
        return (m.expand(g, self.shape),)


class MeanBackward1(Node):
    """out = mean of a over dims;  da = g / n broadcast back."""
    result_layout = contiguous_result

    def forward(self, a, dim=None, keepdim=False, dtype=None):
        x = a._data
        if dtype is not None:
            x = x.astype(_dtype.to_numpy_dtype(dtype))
        if x.dtype.kind != "f" and x.dtype.kind != "c":
            raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either "
                               f"a floating point or complex dtype. Got: "
                               f"{_dtype.of_numpy(x.dtype).scalar_name}")
        self.shape, self.dims, self.keepdim = x.shape, _dims(x, dim), keepdim
        self.count = int(np.prod([x.shape[d] for d in self.dims])) if x.ndim else 1
        if self.count == 0:  # NaN, without NumPy's "Mean of empty slice" warning
            return np.true_divide(np.sum(x, axis=self.dims, keepdims=keepdim), 0)
        if x.dtype == np.float16:  # torch accumulates float16 in float32, rounding once
            return np.mean(x, axis=self.dims, keepdims=keepdim, dtype=np.float32).astype(x.dtype)
        return np.mean(x, axis=self.dims, keepdims=keepdim)

    def backward(self, m, g):
        return (_expand_back(m, g, self.shape, self.dims, self.keepdim) / self.count,)


class MeanBackward0(MeanBackward1):
    """out = mean of all elements."""


class ProdBackward1(Node):
    """out = prod of a over one dim;  da = g * (product of the other elements)."""
    result_layout = contiguous_result

    saves_output = True

    def forward(self, a, dim=None, keepdim=False, dtype=None):
        x = a._data if dtype is None else a._data.astype(_dtype.to_numpy_dtype(dtype))
        self.save(a)
        self.shape, self.dims, self.keepdim = x.shape, _dims(x, dim), keepdim
        if x.dtype.kind in "bui":  # torch multiplies small ints as int64, or in the dtype asked
            x = x.astype(np.int64) if dtype is None else x
            return np.multiply.reduce(x, axis=self.dims, keepdims=keepdim, dtype=x.dtype)
        if dtype is None and _opmath.source(a) is not None and x.size:  # torch's low-dtype steps
            out = _bf16.product(x, self.dims, _opmath.source_array(a).flags.c_contiguous)
            return out.reshape(_kept_shape(x.shape, self.dims)) if keepdim else out
        return np.prod(x, axis=self.dims, keepdims=keepdim)

    def backward(self, m, g, a, out):
        g = _expand_back(m, g, self.shape, self.dims, self.keepdim)
        if not (m.data(a) == 0).any():
            return (g * (_expand_back(m, out, self.shape, self.dims, self.keepdim) / a),)
        flat = m.reshape(a, (-1,)) if self.dims == tuple(range(len(self.shape))) else None
        others = _prod_others(m, flat if flat is not None else a,
                              0 if flat is not None else self.dims[0])
        return (g * m.reshape(others, self.shape),)


def _prod_others(m, x, dim):
    """Product of all elements along ``dim`` except the one at each position (zero-safe)."""
    if m.is_graph:
        return _prod_others_graph(m, x, dim)
    data = m.data(x)
    ones = np.ones_like(np.take(data, [0], axis=dim))
    left = np.concatenate([ones, np.cumprod(data, axis=dim)], axis=dim)
    right = np.flip(np.cumprod(np.flip(data, dim), axis=dim), dim)
    right = np.concatenate([right, ones], axis=dim)
    n = data.shape[dim]
    return np.take(left, range(n), axis=dim) * np.take(right, range(1, n + 1), axis=dim)



def _prod_others_graph(m, x, dim):
    """The same product built from differentiable ops, so that prod's second derivative is
    right where inputs are zero (O(n^2), used only under create_graph)."""
    n = x.shape[dim]
    lead = (slice(None),) * dim
    parts = [m.prod(m.cat([m.index(x, lead + (slice(0, i),)),
                           m.index(x, lead + (slice(i + 1, n),))], dim), dim)
             for i in range(n)]
    return m.stack(parts, dim)


class ProdBackward0(ProdBackward1):
    """out = product of all elements."""


class AmaxBackward0(Node):
    """out = max over dims; the gradient is shared evenly among tied maxima, as torch."""
    result_layout = contiguous_result

    saves_output = True
    _np = staticmethod(np.amax)

    def forward(self, a, dim=(), keepdim=False):
        x = a._data
        name = type(self).__name__.split("Backward")[0].lower()  # amax, amin, max, min
        if x.size == 0 and dim in ((), None):
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        self.save(a)
        self.shape, self.dims, self.keepdim = x.shape, _dims(x, dim if dim != () else None), keepdim
        given = self.dims if dim in ((), None) else (dim,) if isinstance(dim, int) else dim
        check_nonempty(x, given if x.ndim else (), name)  # (amax names a dim as given)
        return self._np(x, axis=self.dims, keepdims=keepdim)

    def backward(self, m, g, a, out):
        o = _expand_back(m, out, self.shape, self.dims, self.keepdim)
        mask = self._winners(m.data(a), m.data(o))
        count = np.sum(mask, axis=self.dims, keepdims=True)
        share = (mask / count).astype(m.data(g).dtype)
        return (_expand_back(m, g, self.shape, self.dims, self.keepdim) * share,)

    @staticmethod
    def _winners(x, out):
        return x == out


class AminBackward0(AmaxBackward0):
    """out = min over dims; ties share the gradient evenly."""

    _np = staticmethod(np.amin)


class MaxBackward1(AmaxBackward0):
    """out = max of all elements (ties share the gradient; a NaN result: the NaNs share it)."""

    @staticmethod
    def _winners(x, out):
        return np.isnan(x) if np.isnan(out).any() else x == out


class MinBackward1(AminBackward0):
    """out = min of all elements (ties share the gradient; a NaN result: the NaNs share it)."""

    _winners = staticmethod(MaxBackward1._winners)


class MaxBackward0(Node):
    """values of max(dim): the gradient goes to the selected index only."""

    _arg = staticmethod(np.argmax)

    def forward(self, a, dim, keepdim=False):
        x = a._data
        self.dim = _dims(x, dim)[0] if x.ndim else 0
        self.shape, self.keepdim = x.shape, keepdim
        check_nonempty(x, (self.dim,) if x.ndim else (), type(self).__name__[:3].lower())
        if x.ndim == 0:
            self.indices = np.zeros((), dtype=np.int64)
            return x.copy()
        idx = self._arg(x, axis=self.dim, keepdims=True)
        self.indices = idx if keepdim else np.squeeze(idx, self.dim)
        values = np.take_along_axis(x, idx, axis=self.dim)
        return values if keepdim else np.squeeze(values, self.dim)

    def backward(self, m, g):
        if not self.shape:
            return (g,)
        idx = self.indices if self.keepdim else np.expand_dims(self.indices, self.dim)
        gk = g if self.keepdim else m.unsqueeze(g, self.dim)
        return (m.scatter_add_zeros(gk, self.shape, self.dim, idx),)


class MinBackward0(MaxBackward0):
    """values of min(dim)."""

    _arg = staticmethod(np.argmin)


class VarBackward0(Node):
    """out = sum((a - mean)^2) / (N - correction);  da = g * 2 (a - mean) / (N - correction)."""
    result_layout = contiguous_result

    def forward(self, a, dim=None, correction=1, keepdim=False):
        x = a._data
        check_floating(x, "std and var only support floating point and complex dtypes")
        self.save(a)
        self.shape, self.dims, self.keepdim = x.shape, _dims(x, dim), keepdim
        n = int(np.prod([x.shape[d] for d in self.dims])) if x.ndim else 1
        self.denominator = max(n - correction, 0)
        if self.denominator == 0 or not x.size:  # torch's warning (also for any empty input)
            warnings.warn(f"{type(self).__name__[:3].lower()}(): degrees of freedom is <= 0. "
                          "Correction should be strictly less than the reduction factor (input "
                          "numel divided by output numel).", UserWarning, stacklevel=4)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return self._wide(x, correction, keepdim)
        return self._wide(x, correction, keepdim)

    def _wide(self, x, correction, keepdim):
        # torch accumulates a float32 (or narrower) variance in double and rounds once at the
        # end (std takes its root in double too); NumPy's float32 var is an ulp off at times
        wide = x.astype(np.float64) if x.dtype.itemsize < 8 else x
        out = np.var(wide, axis=self.dims, ddof=correction, keepdims=keepdim)
        return np.asarray(self._root(out)).astype(x.dtype, copy=False)

    @staticmethod
    def _root(variance):
        return variance

    def backward(self, m, g, a):
        centered = a - m.sum(a, self.dims, True) / _count(self)
        g = _expand_back(m, g, self.shape, self.dims, self.keepdim)
        scale = 2.0 / self.denominator if self.denominator else float("nan")
        return (g * scale * centered,)  # torch's order: (2 / (N - correction)) * g first


def _count(node):
    return int(np.prod([node.shape[d] for d in node.dims])) if node.shape else 1


class StdBackward0(VarBackward0):
    """out = sqrt(var);  da = var's gradient for g / (2 out) (0 where out is 0), as torch."""

    saves_output = True
    _root = staticmethod(np.sqrt)

    def backward(self, m, g, a, out):
        g_var = g / (out * 2)
        zero = np.asarray(m.data(out) == 0)  # torch: 0 where the std is 0 (not 0/0)
        if zero.any():
            g_var = m.where(zero, m.zeros_like(g_var), g_var)
        return super().backward(m, g_var, a)


class LogsumexpBackward0(Node):
    """out = log(sum(exp(a)));  da = g * exp(a - out)."""
    result_layout = contiguous_result

    saves_output = True

    def forward(self, a, dim, keepdim=False):
        x = a._data
        if x.dtype.kind != "f":
            x = x.astype(_dtype.get_default_dtype().np)
        self.save(a)
        self.shape, self.dims, self.keepdim = x.shape, _dims(x, dim), keepdim
        top = np.amax(x, axis=self.dims, keepdims=True) if x.size else np.zeros((), x.dtype)
        top = np.where(np.isfinite(top), top, 0)
        if _opmath.source(a) is not None:  # torch composes it of bfloat16 ops, each rounded
            r = _bf16.rounded
            total = r(np.sum(r(np.exp(r(x - top))), axis=self.dims, keepdims=True))
            out = r(np.log(total)) + top
        else:
            out = np.log(np.sum(np.exp(x - top), axis=self.dims, keepdims=True)) + top
        return out if keepdim else np.squeeze(out, self.dims)

    def backward(self, m, g, a, out):
        out = _expand_back(m, out, self.shape, self.dims, self.keepdim)
        return (_expand_back(m, g, self.shape, self.dims, self.keepdim) * m.exp(a - out),)


def refuse_empty_extreme(x, p, dim):
    """torch's error for an inf or -inf norm over nothing (a max or min has no identity): of an
    empty tensor, or over an empty dim (named as given)."""
    if x.size or p not in (float("inf"), -float("inf")):
        return
    name = "inf" if p > 0 else "-inf"
    if dim is None:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {name} norm on an empty "
                           f"tensor because the operation does not have an identity")
    for d in (dim,) if isinstance(dim, int) else dim:
        if x.shape[d] == 0:  # (torch's message runs "dimension 0because")
            raise RuntimeError(f"linalg.vector_norm cannot compute the {name} norm on the "
                               f"dimension {d}because this dimension is empty and the "
                               f"operation does not have an identity")


class LinalgVectorNormBackward0(Node):
    """out = (sum |a|^p)^(1/p);  da = g * a |a|^(p-2) / out^(p-1) (p=2: g * a / out). p=inf:
    elements tied at the maximum share g, or each take all of it with ``each_tie`` (torch's
    cdist)."""
    result_layout = contiguous_result

    saves_output = True

    def forward(self, a, p=2, dim=None, keepdim=False, each_tie=False):
        self.each_tie = each_tie
        x = a._data
        check_floating(x, "linalg.vector_norm: Expected a floating point or complex tensor as "
                          "input. Got {}")
        if not each_tie:  # (torch's cdist: 0 between vectors of no elements)
            refuse_empty_extreme(x, p, dim)
        self.save(a)
        self.p, self.shape, self.dims, self.keepdim = p, x.shape, _dims(x, dim), keepdim
        ax = np.abs(x)
        if p == float("inf"):  # (|a| >= 0: the initial 0 only gives cdist's empty max)
            return np.amax(ax, axis=self.dims, keepdims=keepdim, initial=0)
        if p == 1:
            return np.sum(ax, axis=self.dims, keepdims=keepdim)
        if p == 2:
            return np.sqrt(np.sum(x * x, axis=self.dims, keepdims=keepdim))
        return np.sum(ax ** p, axis=self.dims, keepdims=keepdim) ** (1.0 / p)

    def backward(self, m, g, a, out):
        g = _expand_back(m, g, self.shape, self.dims, self.keepdim)
        out = _expand_back(m, out, self.shape, self.dims, self.keepdim)
        p = self.p
        if p == 1:
            return (g * m.sign(a),)
        if p == float("inf"):
            mask = m.data(m.abs(a)) == m.data(out)
            share = (mask if self.each_tie else mask / np.sum(mask, axis=self.dims, keepdims=True)
                     ).astype(m.data(g).dtype)
            return (g * m.sign(a) * share,)
        safe = m.where(m.data(out) == 0, 1.0, out)
        if p == 2:
            return (m.where(m.data(out) == 0, 0.0, g * (a / safe)),)  # torch's order
        return (g * a * m.abs(a) ** (p - 2) / safe ** (p - 1),)


SumToSizeBackward.__name__ = SumToSizeBackward.__qualname__ = "SumBackward1"
