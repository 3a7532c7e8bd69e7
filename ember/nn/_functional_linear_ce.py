"""nn.functional.linear_cross_entropy: cross entropy of a linear projection's logits (torch's
reference path; its chunked path, chosen by ``options``, gives the same values)."""
import math
import warnings

import ember

from ._functional_loss import cross_entropy

__all__ = ["linear_cross_entropy"]


def _check(input, linear_weight, linear_bias):
    """(batch shape, classes, out_features), checked as torch checks them."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    if input.shape[-1] != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {input.shape[-1]} and "
                           f"{linear_weight.shape[-1]}, respectively")
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and input.dim() == 1:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, (N, "
                           f"{input.shape[-1]}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    return tuple(input.shape[:-1]), classes, out_features


def _warn_unchunkable(options, out_features, reduction, label_smoothing, target, bias):
    if options is None or not (out_features or reduction not in ("mean", "sum", "none")
                               or label_smoothing != 0.0 or str(target.dtype) != "ember.int64"):
        return
    warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
                  "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
                  f"out_features == (). Got reduction={reduction!r}, label_smoothing="
                  f"{label_smoothing}, target.dtype={target.dtype}, out_features="
                  f"{out_features}, tracing=False, linear_bias.shape="
                  f"{tuple(bias.shape) if bias is not None else None}.", stacklevel=3)


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0, options=None):
    """cross_entropy(linear(input, linear_weight, linear_bias), target) with logits of shape
    (*batch, C, *out_features) for a weight of shape (C, *out_features, in_features)."""
    batch, classes, out_features = _check(input, linear_weight, linear_bias)
    logits_shape = (*batch, classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    _warn_unchunkable(options, out_features, reduction, label_smoothing, target, linear_bias)
    rows = math.prod(out_features, start=classes)
    flat_weight = linear_weight.reshape((rows, input.shape[-1]))
    flat_bias = linear_bias.reshape(rows) if linear_bias is not None else None
    logits = ember.nn.functional.linear(input, flat_weight, flat_bias)  # read at call time
    return cross_entropy(logits.reshape(logits_shape), target, weight=weight,
                         reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index,
                         label_smoothing=label_smoothing)
