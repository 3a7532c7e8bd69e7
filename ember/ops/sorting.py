"""Sorting primitives: sort, argsort and topk (values with their int64 indices)."""
import math

import numpy as np

from .. import _memory_format, _select
from .._dtype import refuse_complex, sort_key
from .._tensor import Tensor
from ..autograd.graph import Node, observe_untracked
from .api.reductions import _ValuesIndices
from .shape import _dim


def _order_as_input(x, dim, descending, stable):
    """``_order`` laid out as ``x`` (found over x seen in its memory order): torch's sort
    results follow a dense input's layout, NumPy's argsort makes C-ordered ones."""
    perm = _memory_format.memory_perm(x)
    if perm is None or 0 in x.strides:
        return _order(x, dim, descending, stable)
    order = _order(x.transpose(perm), perm.index(dim), descending, stable)
    return order.transpose(np.argsort(perm))


def _order(x, dim, descending, stable=True):
    """Sorting indices along ``dim``, NaN last (first when descending) as torch: stable (equal
    elements in input order), or as torch's unstable sort orders equal elements (_select)."""
    x = sort_key(x)
    if not descending:
        order = np.argsort(x, axis=dim, kind="stable")
    else:
        flipped = np.argsort(np.flip(x, dim), axis=dim, kind="stable")
        order = x.shape[dim] - 1 - np.flip(flipped, dim)
    if stable or x.ndim == 0 or x.shape[dim] <= 16:  # (std::sort is stable up to 16)
        return order
    keys, moved = np.moveaxis(x, dim, -1), np.moveaxis(order, dim, -1)
    rows = _select.sort_rows(keys.reshape(-1, keys.shape[-1]),
                             moved.reshape(-1, moved.shape[-1]), descending)
    return np.moveaxis(rows.reshape(moved.shape), -1, dim)


class SortBackward0(Node):
    """values of sort along dim;  da = g scattered back to where each value came from."""

    def forward(self, a, dim=-1, descending=False, k=None, stable=True):
        x = a._data
        flat = x.reshape(1) if x.ndim == 0 else x
        self.shape, self.dim = flat.shape, _dim(flat.ndim, dim)
        if k is None:  # sort: laid out as the input (torch's sort keeps a dense layout)
            order = _order_as_input(flat, self.dim, descending, stable)
        else:
            order = _order(flat, self.dim, descending, stable)
            if x.ndim:  # torch's topk of a 0-d tensor is itself, k 0 or 1
                order = np.take(order, np.arange(k), axis=self.dim)
        self.indices = order
        values = np.take_along_axis(flat, order, axis=self.dim)
        self.scalar = x.ndim == 0
        return values.reshape(()) if self.scalar else values

    def backward(self, m, g):
        if self.scalar:
            return (g,)
        return (m.scatter_add_zeros(g, self.shape, self.dim, self.indices),)


class SortBackward1(SortBackward0):
    """sort called with ``stable=`` (torch's sort.stable overload)."""


class TopkBackward0(SortBackward0):
    """values of topk: the k largest (or smallest) along dim, equal values in torch's order."""

    def forward(self, a, dim=-1, descending=False, k=None, sorted=True):
        x = a._data
        if x.ndim == 0:
            return super().forward(a, dim, descending, k)
        self.shape, self.dim, self.scalar = x.shape, _dim(x.ndim, dim), False
        self.indices = _torch_order(x, self.dim, k, descending, sorted)
        return np.take_along_axis(x, self.indices, axis=self.dim)


def _torch_order(x, dim, k, largest, sorted_):
    """topk's indices along dim: the k first of a stable order (of the k + 1 candidates
    argpartition finds, when k is small and there is no NaN), equal values in torch's order
    (_select)."""
    keys = np.moveaxis(sort_key(x), dim, -1)
    shape, n = keys.shape[:-1], keys.shape[-1]
    keys = keys.reshape(math.prod(shape), n)  # (-1 is ambiguous for empty rows)
    m = k + 1
    if m < n // 4 and not (keys.dtype.kind == "f" and np.isnan(keys).any()):
        cand = np.argpartition(keys, n - m, axis=1)[:, n - m:] if largest else \
            np.argpartition(keys, m - 1, axis=1)[:, :m]
        cand.sort(axis=1)  # in index order, so that the stable sort keeps ties in it
        order = np.take_along_axis(cand, _order(np.take_along_axis(keys, cand, 1), 1,
                                                largest), 1)
    else:
        order = _order(keys, 1, largest)
    rows = _select.topk_rows(keys, order, k, largest, sorted_)
    return np.moveaxis(rows.reshape(shape + (k,)), -1, dim)


def _result(name, values, node_cls, a, **kwargs):
    """values from the node plus its indices as a torch.return_types-like tuple."""
    indices = values._grad_fn.indices if values._grad_fn is not None else None
    if indices is None:  # made without a graph: sort again for the indices (cheap next to numpy)
        node = node_cls.__new__(node_cls)
        node.forward(a, **kwargs)
        indices = node.indices
    if a._data.ndim == 0:
        indices = indices.reshape(())
    indices = observe_untracked("indices", (values,), Tensor._make(indices.astype(np.int64)))
    result = _ValuesIndices((values, indices))
    result._name = f"torch.return_types.{name}"
    return result


def _keywords_with_stable(name, positional, stable):
    """torch's parser: with ``stable=`` given, dim and descending are keywords too."""
    if stable is not None and positional:
        got = ", ".join(["Tensor"] + [type(v).__name__ for v in positional] + ["stable=bool"])
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                        f"but expected one of:\n * (Tensor input, *, bool stable, int dim = -1, "
                        f"bool descending = False)\n * (Tensor input, int dim = -1, bool "
                        f"descending = False)\n")


def sort(input, *positional, dim=-1, descending=False, stable=None):
    """Sorted values and their indices along ``dim``; equal elements keep their order with
    ``stable=True``, else come in the order torch's (unstable) sort gives them."""
    _keywords_with_stable("sort", positional, stable)
    if positional:
        dim, descending = (positional + (descending,))[:2]
    refuse_complex(input._data.dtype, message=" Sort does not support complex dtypes on CPU")
    cls = SortBackward0 if stable is None else SortBackward1
    kwargs = dict(dim=dim, descending=descending, stable=bool(stable))
    values = cls.apply(input, **kwargs)
    return _result("sort", values, cls, input, **kwargs)


def argsort(input, *positional, dim=-1, descending=False, stable=None):
    """Indices that sort ``input`` along ``dim``."""
    _keywords_with_stable("argsort", positional, stable)
    if positional:
        dim, descending = (positional + (descending,))[:2]
    stable = bool(stable)
    x = input._data
    refuse_complex(x.dtype, message=" Sort does not support complex dtypes on CPU")
    if x.ndim == 0:
        _dim(0, dim)  # torch's IndexError past 0 and -1
        return Tensor._make(np.zeros((), np.int64))
    out = Tensor._make(_order_as_input(x, _dim(x.ndim, dim), descending, stable)
                       .astype(np.int64))
    return observe_untracked("argsort", (input, dim, descending), out)


def topk(input, k, dim=-1, largest=True, sorted=True):
    """The k largest (smallest if not ``largest``) elements along dim, with their indices.

    Equal values come out in the order torch's selection leaves them (``sorted=False``: in
    that selection's own order), see ember/ops/_select.py."""
    x = input._data
    refuse_complex(x.dtype, message=" topk does not support complex dtypes on CPU")
    if x.dtype.kind == "b":
        raise RuntimeError("topk does not support bool dtypes on CPU")
    size = x.shape[_dim(x.ndim, dim)] if x.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    kwargs = dict(dim=dim, descending=largest, k=k, sorted=bool(sorted))
    values = TopkBackward0.apply(input, **kwargs)
    return _result("topk", values, TopkBackward0, input, **kwargs)
