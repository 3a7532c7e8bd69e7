"""nn.functional.embedding_bag: sums, means or maxima of bags of embedding rows, composed from
F.embedding (its gradient scatter) and index_add / gather, so no second scatter is written."""
import numpy as np

import ember

from ._functional_norm import _renorm_rows, embedding

__all__ = ["embedding_bag"]

_MODES = ("sum", "mean", "max")


def _as_indices(x, what="indices"):
    data = x._data if isinstance(x, ember.Tensor) else np.asarray(x)
    if data.dtype not in (np.int64, np.int32):
        kind = x.type() if isinstance(x, ember.Tensor) else str(data.dtype)
        raise RuntimeError(f"Expected tensor for argument #1 '{what}' to have one of the "
                           f"following scalar types: Long, Int; but got {kind} instead (while "
                           "checking arguments for embedding_bag)")
    return data


def _check_args(input, weight, offsets, per_sample_weights, mode, scale_grad_by_freq, sparse):
    """torch's argument checks, in its order."""
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if input.dim() == 2 and offsets is not None:
        raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a "
                         "mini-batch of fixed length sequences. However, found offsets of type "
                         + ("<class 'ember.Tensor'>" if isinstance(offsets, ember.Tensor)
                            else str(type(offsets))))
    if input.dim() == 1 and offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if input.dim() == 1 and offsets.dim() != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    if input.dim() not in (1, 2):
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")


def _bag_ids(index, offsets, include_last_offset):
    """(bag of each index, number of bags), offsets checked as torch checks them. With
    include_last_offset, indices past the last offset join the last bag (torch's general CPU
    kernel; its float32 fast path leaves them out of sums but counts them in means)."""
    n = index.size
    if offsets.size and offsets[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {offsets[0]}\n"
                           "[ ember.LongTensor{} ]")  # torch prints the 0-dim tensor
    if offsets.size and offsets[-1] > n:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {n} but got "
                           f"offsets[-1] of {offsets[-1]}")
    if np.any(np.diff(offsets) < 0):
        raise RuntimeError("embedding_bag: offsets must be non-decreasing, got "
                           f"{offsets.tolist()}")
    starts = offsets[:-1] if include_last_offset else offsets
    ids = np.searchsorted(starts, np.arange(n), side="right") - 1
    return ids.astype(np.int64), starts.size


def _checked_index(index, num):
    bad = np.flatnonzero((index < 0) | (index >= num))
    if bad.size:
        raise RuntimeError(f"Index {bad[0]} of input takes value {index[bad[0]]} which is not in "
                           f"the valid range [0, {num})")


def _bag_max(rows, ids, bags):
    """Per bag and column the first largest row entry (torch's tie rule), as a gather from rows
    (so its gradient reaches only that entry); empty bags stay zero."""
    data = rows._data
    out = ember.zeros((bags, data.shape[1]), dtype=rows.dtype)
    if not ids.size:
        return out
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    top = np.maximum.reduceat(data, starts, axis=0)
    first = np.where(data == top[np.searchsorted(starts, np.arange(ids.size), "right") - 1],
                     np.arange(ids.size)[:, None], ids.size)
    where = np.minimum.reduceat(first, starts, axis=0)
    picked = rows.gather(0, ember.tensor(where.astype(np.int64)))
    return out.index_add(0, ember.tensor(ids[starts]), picked)


def _flat_bags(input, offsets, include_last_offset):
    """(flat indices, flat offsets, include_last_offset) of a 1-D input with offsets or of a
    2-D input of equal bags."""
    index = _as_indices(input).reshape(-1)
    if input.dim() == 2:
        width = input.shape[1]
        count = input.shape[0]
        return index, np.arange(count, dtype=np.int64) * width, False
    return index, _as_indices(offsets).reshape(-1).astype(np.int64), include_last_offset


def _check_sample_weights(per_sample_weights, weight, mode):
    """torch's checks of per_sample_weights (made before max_norm touches the table)."""
    if per_sample_weights is None:
        return
    if mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if per_sample_weights.dtype != weight.dtype:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as "
                           "tensor for argument #1 'per_sample_weights'; but type "
                           f"{weight.type()} does not equal {per_sample_weights.type()} "
                           "(while checking arguments for embedding_bag)")


def _bag_sums(rows, ids, bags, mode):
    """Each bag's sum of its rows (index_add), divided by its size for 'mean'."""
    out = ember.zeros((bags, rows.shape[1]), dtype=rows.dtype)
    out = out.index_add(0, ember.tensor(ids), rows)
    if mode == "mean":
        counts = np.maximum(np.bincount(ids, minlength=bags), 1)
        out = out / ember.tensor(counts.astype(out._data.dtype)[:, None])
    return out


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sum, mean or max of the embedding rows of each bag (bags: rows of a 2-D input, or runs of
    a 1-D input starting at offsets); padding_idx entries are left out of every bag."""
    _check_args(input, weight, offsets, per_sample_weights, mode, scale_grad_by_freq, sparse)
    _check_sample_weights(per_sample_weights, weight, mode)
    index, offs, include_last_offset = _flat_bags(input, offsets, include_last_offset)
    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise RuntimeError("padding_idx must be within the number of embeddings, "
                               f"{-num} through {num - 1}, but got {padding_idx}")
        padding_idx %= num
    ids, bags = _bag_ids(index, offs, include_last_offset)
    _checked_index(index, num)
    if max_norm is not None:
        _renorm_rows(weight, np.unique(index), max_norm, norm_type)
    kept = np.flatnonzero((ids >= 0) & (index != (-1 if padding_idx is None else padding_idx)))
    rows = embedding(index[kept], weight, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
    if mode == "max":
        return _bag_max(rows, ids[kept], bags)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.reshape(-1)[ember.tensor(kept)].unsqueeze(1)
    return _bag_sums(rows, ids[kept], bags, mode)
