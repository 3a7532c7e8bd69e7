"""Embedding lookup and scaled dot-product attention primitives."""
import numpy as np

from .. import _memory_format
from ..autograd._math import array_math
from ..autograd._sparse_grad import SparseGrad
from ..autograd.graph import Node
from . import _rowsum
from .activation_ops import _softmax_shift


class EmbeddingBackward0(Node):
    """out = weight[indices];  dweight = g summed into the looked-up rows (none to padding_idx;
    divided by each index's count with scale_grad_by_freq)."""

    def forward(self, weight, indices, padding_idx=None, scale_grad_by_freq=False, sparse=False):
        self.shape = weight._data.shape
        self.flat = indices.reshape(-1)
        self.scale = None
        if sparse:
            self.sparse = (padding_idx, scale_grad_by_freq)
            return weight._data[indices]
        if padding_idx is not None or scale_grad_by_freq:
            scale = np.ones((self.flat.size, 1), dtype=weight._data.dtype)
            if scale_grad_by_freq:
                counts = np.bincount(self.flat, minlength=self.shape[0])
                scale[:, 0] /= counts[self.flat]
            if padding_idx is not None:
                scale[self.flat == padding_idx] = 0
            self.scale = scale
        return weight._data[indices]

    sparse = None  # sparse=True: (padding_idx, scale_grad_by_freq)

    def backward(self, m, g):
        if self.sparse is not None:
            return (self.sparse_grad(m.data(g)),)
        rows = m.reshape(g, (-1, self.shape[1]))
        if self.scale is not None:
            rows = rows * self.scale
        if not m.is_graph:  # bincount per column beats np.add.at for the array path
            return (_sum_rows(rows, self.flat, self.shape[0]),)
        return (m.index_into_zeros(rows, self.shape, (self.flat,), True),)


    def sparse_grad(self, g):
        """The sparse gradient: one entry per looked-up index (duplicates kept, padding_idx's
        left out), the rows of g as values; torch gives it no graph, also under
        create_graph."""
        padding_idx, scale_grad_by_freq = self.sparse
        if scale_grad_by_freq:
            raise RuntimeError("embedding_backward: scale_grad_by_freq not supported with "
                               "sparse gradients")
        index = self.flat.astype(np.int64, copy=False)
        rows = g.reshape(-1, self.shape[1])  # a view where NumPy can (torch's reshape)
        if padding_idx is not None:
            keep = index != padding_idx
            index, rows = index[keep], rows[keep]
        return SparseGrad(index.reshape(1, -1), rows, self.shape, index.size < 2)


def _sum_rows(rows, index, n):
    """out[i] = sum of rows[j] with index[j] == i."""
    order = np.argsort(index, kind="stable")
    ordered = index[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    out = np.zeros((n, rows.shape[1]), dtype=rows.dtype)
    if starts.size == index.size:  # every index once (positions): each sum is its one row
        out[index] = rows
    elif starts.size:
        out[ordered[starts]] = np.add.reduceat(rows[order], starts, axis=0)
    return out


def _softmax_rows(m, s):
    """softmax over the last axis; rows that are all -inf give zeros (torch's CPU kernel)."""
    top = _softmax_shift(m.data(s), -1)  # softmax's row max (attention's rows: halves folded)
    top = np.where(np.isfinite(top), top, 0)
    if not m.is_graph:  # in place on the fresh scores, the row sums by BLAS
        e = np.exp(np.subtract(s, top, out=s if s.flags.writeable else None))
        total = _rowsum.last_sum(e)
        total[total == 0] = 1
        e /= total
        return e
    e = m.exp(s - top)
    total = m.sum(e, (-1,), True)
    safe = np.where(m.data(total) == 0, 1, 0).astype(m.data(e).dtype)
    return e / (total + safe)


class ScaledDotProductFlashAttentionForCpuBackward0(Node):
    """out = dropout(softmax(q k^T * scale + bias)) v, one fused node;
    dv = P^T g, dP = g v^T, dS = P * (dP - rowsum(dP * P)), dq = dS k * scale, dk = dS^T q * scale.
    """

    reduced_computes = True  # bfloat16, float16 inputs: computed in float32 (_opmath)
    follows_query = True  # the output laid out as the query (the math path's is contiguous)

    def forward(self, q, k, v, bias, scale, keep):
        self.scale_, self.keep = scale, keep
        self.save(q, k, v, bias)
        self.p = self.probabilities(array_math, q._data, k._data,
                                    None if bias is None else bias._data)
        pd = self.p if keep is None else self.p * keep
        out = np.matmul(pd, v._data)
        if self.follows_query:  # torch's flash kernel writes the output in the query's layout
            out = _memory_format.lay_out(out, None, q._data)
        return out

    def probabilities(self, m, q, k, bias):
        s = m.matmul(q, m.mT(k))
        if m.is_graph:
            s = s * self.scale_
        else:  # the product is fresh: scaled in place
            s *= np.asarray(self.scale_, s.dtype)
        if bias is not None:
            s = s + bias
        return _softmax_rows(m, s)

    def backward(self, m, g, q, k, v, bias):
        need = [nx is not None for nx, _ in self.next_functions]
        p = self.probabilities(m, q, k, bias) if m.is_graph else self.p
        pd = p if self.keep is None else p * self.keep
        gv = m.matmul(m.mT(pd), g) if need[2] else None
        gq = gk = gs = None
        if need[0] or need[1] or need[3]:
            gp = m.matmul(g, m.mT(v))
            if self.keep is not None:
                gp = gp * self.keep
            # the gradient of the scores (the row dots by BLAS off the graph)
            rowdot = m.sum(gp * p, (-1,), True) if m.is_graph else _rowsum.last_sum(gp, p)
            gs = p * (gp - rowdot)
            gq = m.matmul(gs, k) * self.scale_ if need[0] else None
            gk = m.matmul(m.mT(gs), q) * self.scale_ if need[1] else None
        return gq, gk, gv, (gs if need[3] else None)


def attention_node(query, value, dropout_p, mask_requires_grad=False, flash_allowed=True):
    """The fused node, named as torch's: its flash kernel takes 4-D inputs with equal head dims,
    no dropout and a mask without gradient (when sdpa_kernel allows it); otherwise torch
    composes matmuls and the graph ends in the last one."""
    if (flash_allowed and query.ndim == 4 and dropout_p == 0
            and query.shape[-1] == value.shape[-1] and not mask_requires_grad):
        return ScaledDotProductFlashAttentionForCpuBackward0
    return _MathAttentionMm if query.ndim == 2 else _MathAttentionView


_MathAttentionMm = type("MmBackward0", (ScaledDotProductFlashAttentionForCpuBackward0,),
                        {"__doc__": "SDPA on 2-D inputs (torch's math path).",
                         "follows_query": False})
_MathAttentionView = type("UnsafeViewBackward0", (ScaledDotProductFlashAttentionForCpuBackward0,),
                          {"__doc__": "SDPA on the math path (torch: final matmul's view).",
                           "follows_query": False})
