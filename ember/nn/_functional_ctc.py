"""nn.functional.ctc_loss: connectionist temporal classification over (T, N, C) log-probabilities,
targets padded (N, S) or concatenated (sum of target lengths)."""
import numpy as np

import ember
from ember.ops.ctc import CtcLossBackward0

from ._functional_loss import _reduction

__all__ = ["ctc_loss"]

_WHERE = " (while checking arguments for ctc_loss_allocate_outputs)"


def _lengths(lengths, name):
    """Lengths given as a tensor or a sequence of ints, as an int64 array (torch refuses float
    tensors; a 0-d tensor is one length)."""
    if isinstance(lengths, ember.Tensor):
        if lengths.is_floating_point() or lengths.is_complex():
            raise RuntimeError(f"{name} must be integral")
        return lengths._data.reshape(-1).astype(np.int64)
    return np.asarray([int(v) for v in lengths], dtype=np.int64)


def _labels(targets, target_lengths):
    """Each sample's target labels, from padded (N, S) or concatenated 1-D targets."""
    data = targets._data.astype(np.int64)
    if data.ndim == 2:
        most = int(target_lengths.max(initial=0))
        if most > data.shape[1]:
            raise RuntimeError(f"Expected tensor to have size at least {most} at dimension 1, "
                               f"but got size {data.shape[1]} for argument #2 'targets'{_WHERE}")
        return [data[n, :k] for n, k in enumerate(target_lengths)]
    total = int(target_lengths.sum())
    if data.shape[0] != total:
        raise RuntimeError(f"Expected tensor to have size {total} at dimension 0, but got size "
                           f"{data.shape[0]} for argument #2 'targets'{_WHERE}")
    return np.split(data, np.cumsum(target_lengths)[:-1])


def _check(log_probs, targets, inputs, lengths, blank):
    steps, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if inputs.size != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if lengths.size != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    if targets.dim() not in (1, 2):
        raise RuntimeError(f"Expected 1 to 2 dimensions, but got {targets.dim()}-dimensional "
                           f"tensor for argument #2 'targets'{_WHERE}")
    for name, values, most in (("target_lengths", lengths, None),
                               ("input_lengths", inputs, steps)):
        if values.size and values.min() < 0:
            raise RuntimeError(f"Expected {name} to have value at least 0, but got value "
                               f"{values.min()}{_WHERE}")
        if most is not None and values.size and values.max() > most:
            raise RuntimeError(f"Expected {name} to have value at most {most}, but got value "
                               f"{values.max()}{_WHERE}")


def _check_labels(labels, classes):
    for target in labels:
        bad = target[(target < 0) | (target >= classes)]
        if bad.size:  # torch reads out of bounds here; a clear error beats a silent value
            raise IndexError(f"ctc_loss: target label {bad[0]} is out of range for {classes} "
                             "classes")


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """-log p(target | input) summed over all CTC alignments, per sample ('none'), summed, or
    ('mean') each divided by its target length (at least 1) and averaged over the batch."""
    reduction = _reduction(None, None, reduction)
    batched = log_probs.dim() == 3
    if not batched:
        if log_probs.dim() != 2:
            raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.dim() + 1}-"
                               f"dimensional tensor for argument #1 'log_probs'{_WHERE}")
        log_probs = log_probs.unsqueeze(1)
        targets = targets.unsqueeze(0) if targets.dim() == 1 else targets
    if not log_probs.is_floating_point():
        raise NotImplementedError(f"\"ctc_loss_cpu\" not implemented for "
                                  f"'{log_probs.type().split('.')[-1][:-6]}'")
    if isinstance(input_lengths, ember.Tensor) != isinstance(target_lengths, ember.Tensor):
        raise TypeError("ctc_loss(): input_lengths and target_lengths must both be tensors or "
                        f"both tuples of ints, got {type(input_lengths).__name__} and "
                        f"{type(target_lengths).__name__}")
    inputs = _lengths(input_lengths, "input_lengths")
    lengths = _lengths(target_lengths, "target_lengths")
    _check(log_probs, targets, inputs, lengths, blank)
    labels = _labels(targets, lengths)
    _check_labels(labels, log_probs.shape[2])
    losses = CtcLossBackward0.apply(log_probs, labels=labels, input_lengths=inputs,
                                    target_lengths=lengths, blank=blank,
                                    zero_infinity=zero_infinity)
    if zero_infinity:  # torch's own step (its node zeroes those gradients too): a where
        losses = ember.where(losses == float("inf"), ember.zeros((), dtype=losses.dtype), losses)
    if reduction == "mean":
        divisor = np.maximum(lengths, 1).astype(losses._data.dtype)
        return (losses / ember.tensor(divisor)).mean()
    if reduction == "sum":
        return losses.sum()
    return losses if batched else losses.squeeze(0)
