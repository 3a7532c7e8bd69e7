"""Helpers shared by the distributions: broadcasting parameters, probabilities <-> logits, lower
triangles <-> vectors, and the lazily computed attribute (``probs`` from ``logits`` or the other
way round)."""
import numbers

import ember
from ember.nn import functional as F

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]


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


def _tril_mask(n, diag):
    """The n x n mask of the entries on or below diagonal ``diag``, read in row order."""
    arange = ember.arange(n)
    return arange < arange.view(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat, diag=0):
    """The entries of ``mat`` on or below diagonal ``diag``, in row order, as a vector."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    return mat[..., _tril_mask(n, diag)]


def vec_to_tril_matrix(vec, diag=0):
    """The D x D lower-triangular matrix (from diagonal ``diag``) whose entries, in row order,
    are ``vec`` (D from the length: the positive root of D^2 + (1 + 2 diag) D - |diag| (diag +
    1) - 2 len = 0)."""
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * vec.shape[-1] +
                            4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > ember.finfo(vec.dtype).eps:
        raise ValueError(f"The size of last dimension is {vec.shape[-1]} which cannot be "
                         f"expressed as the lower triangular part of a square D x D matrix.")
    n = round(n)
    mat = vec.new_zeros(vec.shape[:-1] + (n, n))
    mat[..., _tril_mask(n, diag)] = vec
    return mat


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
