"""More nn.functional losses, composed from primitives: soft margin, hinge embedding, Poisson
and Gaussian NLL, triplet margin, multi-label soft margin."""
import math

import numpy as np

from .. import _creation, _dtype
from .._tensor import Tensor
from ..autograd import grad_mode
from ..ops import activation_ops as A
from ..ops import api
from ..ops import elementwise as E
from ..ops import loss_ops as L
from ._functional_loss import _reduce, _reduction
from ._functional_misc import pairwise_distance

__all__ = ["soft_margin_loss", "hinge_embedding_loss", "poisson_nll_loss", "gaussian_nll_loss",
           "triplet_margin_loss", "triplet_margin_with_distance_loss",
           "multilabel_soft_margin_loss", "multi_margin_loss",
           "multilabel_margin_loss"]


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """log(1 + exp(-y x))."""
    reduction = _reduction(size_average, reduce, reduction)
    return _reduce(A.SoftplusBackward0.apply(api.neg(api.mul(target, input)), 1.0, 20.0),
                   reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """x where y = 1, max(0, margin - x) where y = -1."""
    _dtype.refuse_complex(input._data.dtype, message="clamp is not supported for complex types",
                          error=NotImplementedError)
    reduction = _reduction(size_average, reduce, reduction)
    zeros = _creation.zeros_like(input)
    below = api.where(api.ne(target, 1), L.ClampMinBackward0.apply(api.rsub(input, margin), 0.0),
                      zeros)
    return _reduce(api.add(below, api.where(api.ne(target, -1), input, zeros)), reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """exp(x) - y x (log_input), or x - y log(x + eps); full adds Stirling's term for y > 1."""
    reduction = _reduction(size_average, reduce, reduction)
    if log_input:
        loss = api.sub(E.ExpBackward0.apply(input), api.mul(target, input))
    else:
        loss = api.sub(input, api.mul(target, E.LogBackward0.apply(api.add(input, eps))))
    if full:
        safe = api.where(api.gt(target, 1), target, _creation.ones_like(target))
        stirling = api.add(api.sub(api.mul(safe, E.LogBackward0.apply(safe)), safe),
                           api.mul(E.LogBackward0.apply(api.mul(safe, 2 * math.pi)), 0.5))
        loss = api.add(loss, api.masked_fill(stirling, api.le(target, 1), 0.0))
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 (log(max(var, eps)) + (x - y)^2 / max(var, eps)) (+ 0.5 log(2 pi) if full)."""
    reduction = _reduction(None, None, reduction)
    if isinstance(var, (int, float)):  # one variance for all (torch: var * ones_like(input))
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = api.mul(_creation.ones_like(input), float(var))
    if var.shape != input.shape:  # torch: one variance per row, given as (..., ) or (..., 1)
        if tuple(var.shape) == tuple(input.shape[:-1]):
            var = api.unsqueeze(var, -1)
        elif not (var.shape[:-1] == input.shape[:-1] and var.shape[-1:] == (1,)):
            raise ValueError("var is of incorrect size")
    if ((var._data < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = api.clone(var)
    with grad_mode.no_grad():  # clamped without a gradient through the clamp, as torch
        var._data[...] = var._data.clip(min=eps)
    diff = api.sub(input, target)
    loss = api.mul(api.add(E.LogBackward0.apply(var), api.div(api.mul(diff, diff), var)), 0.5)
    if full:
        loss = api.add(loss, 0.5 * math.log(2 * math.pi))
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0) with d the p-norm distance."""
    reduction = _reduction(size_average, reduce, reduction)
    return _triplet(lambda x, y: pairwise_distance(x, y, p, eps), anchor, positive, negative,
                    margin, swap, reduction)


def _triplet(distance, anchor, positive, negative, margin, swap, reduction):
    """max(d(a, p) - d(a, n) + margin, 0), d(a, n) replaced by min(d(a, n), d(p, n)) with
    swap, reduced."""
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        d_neg = api.minimum(d_neg, distance(positive, negative))
    return _reduce(L.ClampMinBackward0.apply(api.add(api.sub(d_pos, d_neg), margin), 0.0),
                   reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """max(d(a, p) - d(a, n) + margin, 0) for any distance function d (default: pairwise
    Euclidean distance)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {anchor.ndim}D, positive "
                           f"{positive.ndim}D, and negative {negative.ndim}D inputs")
    return _triplet(distance_function or pairwise_distance, anchor, positive, negative, margin,
                    swap, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """-mean_c (y log sigmoid(x) + (1 - y) log sigmoid(-x)) (weighted per class)."""
    reduction = _reduction(size_average, reduce, reduction)
    loss = api.neg(api.add(api.mul(target, A.LogSigmoidBackward0.apply(input)),
                           api.mul(api.rsub(target, 1), A.LogSigmoidBackward0.apply(
                               api.neg(input)))))
    if weight is not None:
        loss = api.mul(loss, weight)
    loss = api.div(api.sum(loss, input.ndim - 1), input.shape[-1])
    return _reduce(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """sum over i != y of max(0, margin - x[y] + x[i])^p (times w[y]), divided by C."""
    reduction = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x = input if input.ndim == 2 else api.unsqueeze(input, 0)
    y = api.reshape(target, (-1, 1))
    classes = x.shape[1]
    picked = api.gather(x, 1, y)
    # margin - x[y] + x[i], in torch's kernel's order (rounded as it rounds)
    margins = L.ClampMinBackward0.apply(api.add(api.rsub(picked, margin), x), 0.0)
    if p == 2:
        margins = api.mul(margins, margins)
    others = np.ones(tuple(x.shape), dtype=x._data.dtype)
    np.put_along_axis(others, y._data, 0, axis=1)
    margins = api.mul(margins, Tensor._make(others))
    if weight is not None:
        margins = api.mul(margins, api.gather(weight, 0, api.reshape(target, (-1,))).unsqueeze(1))
    loss = api.div(api.sum(margins, 1), classes)
    if input.ndim != 2:
        loss = api.reshape(loss, ())
    return _reduce(loss, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """sum over target classes j and non-target classes i of max(0, 1 - (x[j] - x[i])), / C;
    each target row lists class indices and ends at the first -1."""
    reduction = _reduction(size_average, reduce, reduction)
    x = input if input.ndim == 2 else api.unsqueeze(input, 0)
    t = target._data.reshape(x.shape)
    is_target = np.zeros(tuple(x.shape), dtype=bool)
    for row, labels in enumerate(t):
        for label in labels:
            if label < 0:
                break
            is_target[row, label] = True
    # pairs[n, j, i] = 1 - x[n, j] + x[n, i], kept where j is a target and i is not
    pairs = api.add(api.sub(api.unsqueeze(x, 1), api.unsqueeze(x, 2)), 1.0)
    keep = (is_target[:, :, None] & ~is_target[:, None, :]).astype(x._data.dtype)
    hinge = api.mul(L.ClampMinBackward0.apply(pairs, 0.0), Tensor._make(keep))
    loss = api.div(api.sum(hinge, (1, 2)), x.shape[1])
    if input.ndim != 2:
        loss = api.reshape(loss, ())
    return _reduce(loss, reduction)
