"""nn.functional losses: argument checks and torch's conventions over ember.ops.loss_ops."""
import warnings

from .. import _creation, _dtype
from ..ops import activation_ops as A
from ..ops import api, pointwise
from ..ops import autocast as _autocast
from ..ops import elementwise as E
from ..ops import loss_ops as L

__all__ = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "nll_loss", "cross_entropy", "kl_div",
           "cosine_embedding_loss", "margin_ranking_loss"]

_REDUCTIONS = ("none", "mean", "sum")


def _reduction(size_average, reduce, reduction):
    """torch's legacy size_average/reduce flags folded into a reduction string, then checked."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
        warnings.warn("size_average and reduce args will be deprecated, please use "
                      f"reduction='{reduction}' instead.", stacklevel=3)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss, reduction):
    if reduction == "mean":
        return api.mean(loss)
    return api.sum(loss) if reduction == "sum" else loss


def _warn_broadcast(input, target):
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size "
                      f"({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=3)


def _weighted(loss, weight, input, reduction, mean_by_weight=True):
    """torch's weighted element losses: 'mean' is sum(w l) / sum(w) (mse, l1) or mean(w l)."""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    loss = api.mul(loss, weight)
    if reduction == "mean" and mean_by_weight:
        return api.div(api.sum(loss), api.sum(weight))
    return _reduce(loss, reduction)


# torch's kernel names, for its error on integer or bool operands
_KERNELS = {L.MseLossBackward0: "mse_cpu", L.SmoothL1LossBackward0: "smooth_l1_cpu",
            L.HuberLossBackward0: "huber_cpu"}


def _pointwise(cls, input, target, reduction, **params):
    _floating(_dtype._np_promote(input._data.dtype, target._data.dtype), _KERNELS[cls])
    _warn_broadcast(input, target)
    return cls.apply(input, target, reduction=reduction, **params)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """(x - y)^2, reduced."""
    input, target, weight = _autocast.float32(input, target, weight)  # float32 op (autocast)
    reduction = _reduction(size_average, reduce, reduction)
    if weight is not None:
        _warn_broadcast(input, target)
        return _weighted(api.pow(api.sub(input, target), 2), weight, input, reduction)
    return _pointwise(L.MseLossBackward0, input, target, reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """|x - y|, reduced."""
    input, target, weight = _autocast.float32(input, target, weight)  # float32 op (autocast)
    reduction = _reduction(size_average, reduce, reduction)
    _warn_broadcast(input, target)
    loss = E.AbsBackward0.apply(api.sub(input, target))
    if weight is not None:
        return _weighted(loss, weight, input, reduction)
    return _reduce(loss, reduction)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """0.5 d^2 / beta where |d| < beta, else |d| - 0.5 beta."""
    input, target = _autocast.float32(input, target)  # a float32 op under autocast
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:  # torch: plain l1_loss
        return l1_loss(input, target, reduction=reduction)
    return _pointwise(L.SmoothL1LossBackward0, input, target, reduction, beta=beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """0.5 d^2 where |d| < delta, else delta (|d| - 0.5 delta)."""
    input, target, weight = _autocast.float32(input, target, weight)  # float32 op (autocast)
    reduction = _reduction(None, None, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if input._data.dtype.kind in "biu" and target._data.dtype.kind == "f":
        # torch computes in the promoted dtype but writes into one of the input's dtype
        raise _cast_error(target, input)
    if weight is not None:
        loss = _pointwise(L.HuberLossBackward0, input, target, "none", delta=delta)
        return _weighted(loss, weight, input, reduction, mean_by_weight=False)
    return _pointwise(L.HuberLossBackward0, input, target, reduction, delta=delta)


def _cast_error(result, out):
    return RuntimeError(f"result type {result.dtype.scalar_name} can't be cast to the desired "
                        f"output type {out.dtype.scalar_name}")


def _floating(np_dtype, kernel):
    """torch has no integer, bool or complex loss kernels (NumPy would compute one)."""
    if np_dtype.kind in "biuc":
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_dtype.of_numpy(np_dtype).scalar_name}'")


def _same_size(input, target):
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same "
                         "size.")


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """-w (y log x + (1 - y) log(1 - x)), logs clamped at -100."""
    input, target, weight = _autocast.float32(input, target, weight)  # float32 op (autocast)
    reduction = _reduction(size_average, reduce, reduction)
    _floating(input._data.dtype, "binary_cross_entropy")
    _same_size(input, target)
    if target._data.dtype != input._data.dtype:
        raise RuntimeError(f"Found dtype {target.dtype.scalar_name} but expected "
                           f"{input.dtype.scalar_name}")
    if weight is not None and weight.shape != input.shape:
        weight = api.expand(weight, *input.shape)
    return L.BinaryCrossEntropyBackward0.apply(input, target, weight=weight, reduction=reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """BCE on sigmoid(x), computed stably from the logits x; pos_weight scales positives."""
    input, target, weight = _autocast.float32(input, target, weight)  # float32 op (autocast)
    reduction = _reduction(size_average, reduce, reduction)
    _floating(input._data.dtype, "log_sigmoid_cpu")
    if target._data.dtype.kind in "iu":  # torch writes the loss into the target's dtype
        raise _cast_error(input, target)
    if target._data.dtype.kind == "b":  # torch computes 1 - target
        api.sub(target, target)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    return L.BinaryCrossEntropyWithLogitsBackward0.apply(
        input, target, weight=weight, pos_weight=pos_weight, reduction=reduction)


def _check_weight(input, weight):
    classes = input.shape[1] if input.ndim > 1 else input.shape[0]
    if weight is not None and weight.numel() != classes:
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or "
                           f"no classes but got weight tensor of shape: {list(weight.shape)}")


def _check_class_target(input, target, weight):
    if target.dtype.name not in ("int64", "uint8"):
        raise RuntimeError("expected target dtype to be Long or Byte, but got "
                           f"{target.dtype.scalar_name}")
    if input.ndim == 2 and target.ndim != 1:
        batch = target.shape[0] if target.ndim else 0  # (torch reads a 0-d target's as 0)
        if batch != input.shape[0]:
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                             f"batch_size ({batch}).")
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.ndim > 1 and target.shape[:1] != input.shape[:1]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                         f"batch_size ({target.shape[0] if target.ndim else 1}).")
    if input.ndim > 2 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"size mismatch (got input: {list(input.shape)}, target: "
                           f"{list(target.shape)})")
    _check_weight(input, weight)


def _nll(input, target, weight, reduction, ignore_index, from_logits=False):
    """nll over any shape: (C), (N, C) directly, (N, C, d1, ...) as 4-D (torch's 2-D kernel)."""
    if input.ndim <= 2:
        return L.NllLossBackward0.apply(input, target, weight=weight, reduction=reduction,
                                        ignore_index=ignore_index, from_logits=from_logits)
    if input.ndim == 4:
        return L.NllLoss2DBackward0.apply(input, target, weight=weight, reduction=reduction,
                                          ignore_index=ignore_index)
    n, c = input.shape[:2]
    flat = api.reshape(input, (n, c, 1, -1))
    out = L.NllLoss2DBackward0.apply(flat, api.reshape(target, (n, 1, -1)), weight=weight,
                                     reduction=reduction, ignore_index=ignore_index)
    return api.reshape(out, tuple(target.shape)) if reduction == "none" else out


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """-w[t] x[t] per element; 'mean' divides by the sum of the weights used."""
    _dtype.refuse_complex(input._data.dtype, "nll_loss_out_frame")
    input, target, weight = _autocast.float32(input, target, weight)  # float32 op (autocast)
    reduction = _reduction(size_average, reduce, reduction)
    _floating(input._data.dtype, "nll_loss_out_frame")
    _check_class_target(input, target, weight)
    return _nll(input, target, weight, reduction, ignore_index)


def _class_weight(weight, ndim):
    """weight shaped to broadcast along the class dim (1, or 0 for 1-D input)."""
    return api.reshape(weight, (-1,) + (1,) * (ndim - 2)) if ndim > 1 else weight


def _soft_cross_entropy(input, target, weight, reduction, label_smoothing):
    """Class probabilities as targets: -sum_c w_c y_c log_softmax(x)_c."""
    class_dim = 1 if input.ndim > 1 else 0
    classes = input.shape[class_dim]
    if label_smoothing > 0:
        target = api.add(api.mul(target, 1 - label_smoothing), label_smoothing / classes)
    logp = A.LogSoftmaxBackward0.apply(input, class_dim)
    prod = api.mul(logp, target)
    if weight is not None:
        prod = api.mul(prod, _class_weight(weight, input.ndim))
    if reduction == "none":
        return api.neg(api.sum(prod, class_dim))
    total = api.neg(api.sum(prod))
    if reduction == "sum":
        return total
    return L.DivBackward1.apply(total, input.numel() // classes)


def _smoothed_cross_entropy(logp, target, weight, reduction, ignore_index, label_smoothing):
    """(1 - eps) nll + eps / C * (-sum_c w_c log p_c), ignored elements contributing 0."""
    class_dim = 1 if logp.ndim > 1 else 0
    classes = logp.shape[class_dim]
    nll = _nll(logp, target, weight, reduction, ignore_index)
    weighted = logp if weight is None else api.mul(logp, _class_weight(weight, logp.ndim))
    smooth = api.neg(api.sum(weighted, class_dim))
    ignored = api.eq(target, ignore_index)
    smooth = api.masked_fill(smooth, ignored, 0.0)
    if reduction == "mean":
        kept = api.logical_not(ignored)
        if weight is not None:
            denom = api.sum(api.index_select(weight, 0, api.masked_select(target, kept)))
        else:
            denom = api.sum(kept)
        smooth = api.div(api.sum(smooth), denom)
    elif reduction == "sum":
        smooth = api.sum(smooth)
    return api.add(api.mul(nll, 1 - label_smoothing), api.mul(smooth, label_smoothing / classes))


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """log_softmax + nll for class indices; -sum y log_softmax(x) for class probabilities."""
    _dtype.refuse_complex(input._data.dtype, "log_softmax_lastdim_kernel_impl" if input.dim() <= 2
                          else "log_softmax_kernel_impl")
    input, target, weight = _autocast.float32(input, target, weight)  # float32 op (autocast)
    reduction = _reduction(size_average, reduce, reduction)
    if not label_smoothing <= 1.0:  # (torch checks the upper bound only: a negative one runs)
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")  # (C++'s stream: 2.0 prints as 2)
    _floating(input._data.dtype, "log_softmax_lastdim_kernel_impl")
    if target.is_floating_point() and target.shape == input.shape:
        _check_weight(input, weight)
        return _soft_cross_entropy(input, target, weight, reduction, label_smoothing)
    _check_class_target(input, target, weight)
    if label_smoothing > 0:
        logp = A.LogSoftmaxBackward0.apply(input, 1 if input.ndim > 1 else 0)
        return _smoothed_cross_entropy(logp, target, weight, reduction, ignore_index,
                                       label_smoothing)
    if input.ndim <= 2 and input._data.dtype.char not in "eE":  # the fused single-node path
        # (one pass forward and back); bfloat16 and float16 take torch's two nodes, which round
        # in between
        return _nll(input, target, weight, reduction, ignore_index, from_logits=True)
    logp = A.LogSoftmaxBackward0.apply(input, 1 if input.ndim > 1 else 0)
    return _nll(logp, target, weight, reduction, ignore_index)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """target * (log target - input) (input holds log-probabilities), reduced; 'batchmean'
    divides the sum by the batch size."""
    _dtype.refuse_complex(input._data.dtype, message="kl_div: Complex inputs not supported.")
    input, target = _autocast.float32(input, target)  # a float32 op under autocast
    if input._data.dtype.kind in "biu" or target._data.dtype.kind in "biu":
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", stacklevel=2)
    if reduction != "batchmean":
        reduction = _reduction(size_average, reduce, reduction)
    if log_target:
        loss = api.mul(E.ExpBackward0.apply(target), api.sub(target, input))
    else:
        product = api.mul(target, input)  # torch's ops, made in its order (its backward then
        loss = api.sub(pointwise.xlogy(target, target), product)  # adds up in the same order)
    if reduction == "batchmean":
        total = api.sum(loss)
        return api.div(total, input.shape[0]) if input.ndim else total
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """1 - cos(x1, x2) where y = 1; max(0, cos(x1, x2) - margin) where y = -1."""
    reduction = _reduction(size_average, reduce, reduction)
    dim = input1.ndim - 1
    eps = 1e-12
    dot = api.sum(api.mul(input1, input2), dim)
    norms = api.mul(api.add(api.sum(api.mul(input1, input1), dim), eps),
                    api.add(api.sum(api.mul(input2, input2), dim), eps))
    cos = api.div(dot, E.SqrtBackward0.apply(norms))
    zeros = _creation.zeros_like(cos)
    pos = api.where(api.eq(target, 1), api.rsub(cos, 1), zeros)
    neg = api.where(api.eq(target, -1), L.ClampMinBackward0.apply(api.sub(cos, margin), 0.0),
                    zeros)
    return _reduce(api.add(pos, neg), reduction)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """max(0, -y (x1 - x2) + margin)."""
    for t in (input1, input2, target):  # torch clamps the complex product
        _dtype.refuse_complex(t._data.dtype, message="clamp is not supported for complex types",
                              error=NotImplementedError)
    reduction = _reduction(size_average, reduce, reduction)
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    loss = api.add(api.mul(api.neg(target), api.sub(input1, input2)), margin)
    return _reduce(L.ClampMinBackward0.apply(loss, 0.0), reduction)
