"""Helpers shared by the distributions: broadcasting parameters, probabilities <-> logits, and
the lazily computed attribute (``probs`` from ``logits`` or the other way round)."""
import numbers

import ember
from ember.nn import functional as F

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits"]


def broadcast_all(*values):
    """The values as tensors of one shape: numbers take the first tensor's dtype (else the
    default dtype)."""
    if not all(isinstance(v, (ember.Tensor, numbers.Number)) for v in values):
        raise ValueError("Input arguments must all be instances of Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if all(isinstance(v, numbers.Number) for v in values):
        return ember.broadcast_tensors(*[ember.tensor(float(v)) for v in values])
    like = next(v for v in values if isinstance(v, ember.Tensor))
    tensors = [v if isinstance(v, ember.Tensor) else ember.tensor(v, dtype=like.dtype)
               for v in values]
    return ember.broadcast_tensors(*tensors)


def clamp_probs(probs):
    """Probabilities kept eps away from 0 and 1 (eps: the dtype's machine epsilon)."""
    eps = ember.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def logits_to_probs(logits, is_binary=False):
    return ember.sigmoid(logits) if is_binary else F.softmax(logits, dim=-1)


def probs_to_logits(probs, is_binary=False):
    clamped = clamp_probs(probs)
    if is_binary:
        return ember.log(clamped) - ember.log1p(-clamped)
    return ember.log(clamped)


class lazy_property:
    """An attribute computed on first read and then stored on the instance."""

    def __init__(self, compute):
        self.compute = compute
        self.__doc__ = compute.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        with ember.enable_grad():
            value = self.compute(instance)
        instance.__dict__[self.compute.__name__] = value
        return value
