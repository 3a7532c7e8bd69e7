"""Shared pieces of the update rules and of the optimizers' argument checks.

An update rule is written once, as torch's per-tensor ("single_tensor") step writes it: a
sequence of tensor ops (``mul_``, ``add_``, ``addcmul_``, ``addcdiv_``, ``lerp_``, ``sqrt``...)
taken from ``ops``. For float32 and float64 parameters those are NumPy ufuncs writing in place
(``ArrayOps``); for bfloat16 and float16 ones they are ember's tensor ops (``TensorOps``), each of
which computes in float32 and rounds its result once, as torch's kernel for that op does, so the
step rounds where torch's does. One op is Adam's whole last line (``adam_addcdiv_``): its NumPy
kernel is fused, a pass fewer than torch's three ops.
"""
import numpy as np

from .._dtype import bfloat16, finfo, get_default_dtype, to_numpy_dtype
from .._tensor import Tensor
from ..autograd import _opmath
from ..autograd._math import sign as _sign
from ..ops.elementwise import _against


class ArrayOps:
    """torch's tensor ops on NumPy arrays, in place where torch's are."""

    @staticmethod
    def neg(a):
        return np.negative(a, out=np.empty_like(a))

    @staticmethod
    def add(a, b, alpha, free=False):
        """a + alpha * b, a new array (``free``: ``a`` is a temporary that may hold it)."""
        t = np.multiply(b, alpha, out=np.empty_like(b))
        if free:
            a += t
            return a
        t += a
        return t

    @staticmethod
    def add_(a, b, alpha=1, free=False):
        """a += alpha * b (``free``: b is a temporary the product may overwrite)."""
        if alpha == -1:
            a -= b
        elif alpha == 1:
            a += b
        else:
            a += np.multiply(b, alpha, out=b if free else np.empty_like(b))
        return a

    @staticmethod
    def add_scalar(a, value):
        return np.add(a, value, out=np.empty_like(a))

    @staticmethod
    def add_scalar_(a, value):
        a += value
        return a

    @staticmethod
    def sub(a, b):
        return np.subtract(a, b, out=np.empty_like(a))

    @staticmethod
    def mul(a, b):
        return np.multiply(a, b, out=np.empty_like(a))

    @staticmethod
    def mul_(a, value):
        a *= value
        return a

    @staticmethod
    def div(a, value):
        return np.divide(a, value, out=np.empty_like(a))

    @staticmethod
    def div_(a, value):
        a /= value
        return a

    @staticmethod
    def reciprocal_(a):
        return np.reciprocal(a, out=a)

    @staticmethod
    def abs(a):
        return np.abs(a, out=np.empty_like(a))

    @staticmethod
    def sign(a):
        return _sign(a)

    @staticmethod
    def clamp_(a, low, high):
        return np.clip(a, low, high, out=a)

    @staticmethod
    def masked_fill_(a, mask, value):
        a[mask] = value
        return a

    @staticmethod
    def clone(a):
        return np.array(a, copy=True)  # (an array also where a 0-d gradient is a NumPy scalar)

    @staticmethod
    def square_(a):
        return np.multiply(a, a, out=a)

    @staticmethod
    def rsqrt_(a):
        return np.reciprocal(np.sqrt(a, out=a), out=a)

    @staticmethod
    def clamp_min_(a, low):
        return _against(np.maximum, a, np.asarray(low, a.dtype), out=a)  # (0-d: in blocks)

    @staticmethod
    def matmul(a, b):
        return np.matmul(a, b)

    @staticmethod
    def mean(a, dim):
        return a.mean(axis=dim, keepdims=True)

    @staticmethod
    def norm(a, dim=None):
        """The 2-norm: a Python float (``dim`` None), else along ``dim`` (kept)."""
        if dim is None:
            return float(np.linalg.norm(np.reshape(a, -1)))
        return np.linalg.norm(a, axis=dim, keepdims=True)

    @staticmethod
    def eps(a):
        return float(np.finfo(a.dtype).eps)

    @staticmethod
    def array(a):
        return a

    @staticmethod
    def bfloat16(x):
        """A float32 array of bfloat16 values, as an operand (here: as it is)."""
        return x

    @staticmethod
    def addcmul(a, b, c, value):
        """a + value * b * c, a new array."""
        t = np.multiply(b, value, out=np.empty_like(b))
        t *= c
        return np.add(a, t, out=t)

    @staticmethod
    def addcmul_(a, b, c, value):
        t = np.multiply(b, value, out=np.empty_like(b))
        t *= c
        a += t
        return a

    @staticmethod
    def addcdiv_(a, b, c, value):
        """a += value * b / c."""
        t = np.multiply(b, value, out=np.empty_like(b))
        t /= c
        a += t
        return a

    @staticmethod
    def lerp_(a, b, weight):
        """a += weight * (b - a), with torch's two-sided formula (exact at weight 0 and 1)."""
        t = np.subtract(b, a, out=np.empty_like(a))
        if abs(weight) < 0.5:
            t *= weight
            a += t
        else:
            np.subtract(b, np.multiply(t, 1 - weight, out=t), out=a)
        return a

    @classmethod
    def lerp(cls, a, b, weight):
        return cls.lerp_(np.array(a, copy=True), b, weight)

    @staticmethod
    def sqrt(a):
        return np.sqrt(a, out=np.empty_like(a))

    @staticmethod
    def adam_addcdiv_(p, m, v, step_size, correction2, eps, scratch=None):
        """``TensorOps.adam_addcdiv_`` fused as (step_size*c2) * m / (sqrt(v) + eps*c2): the
        same quantity with one pass fewer over the arrays (``scratch`` may hold sqrt(v))."""
        denom = np.sqrt(v, out=np.empty_like(v) if scratch is None else scratch)
        denom += eps * correction2
        np.divide(m, denom, out=denom)
        denom *= step_size * correction2
        p -= denom
        return p

    @staticmethod
    def sqrt_(a):
        return np.sqrt(a, out=a)

    @staticmethod
    def maximum_(a, b):
        return np.maximum(a, b, out=a)

    @staticmethod
    def copy_(a, b):
        np.copyto(a, b)
        return a


class TensorOps:
    """torch's tensor ops as ember's (bfloat16 and float16 tensors: each op rounds once)."""

    @staticmethod
    def neg(a):
        return a.neg()

    @staticmethod
    def add(a, b, alpha, free=False):
        return a.add(b, alpha=alpha)

    @staticmethod
    def add_(a, b, alpha=1, free=False):
        return a.add_(b, alpha=alpha)

    @staticmethod
    def add_scalar(a, value):
        return a.add(value)

    @staticmethod
    def add_scalar_(a, value):
        return a.add_(value)

    @staticmethod
    def sub(a, b):
        return a.sub(b)

    @staticmethod
    def mul(a, b):
        return a.mul(b)

    @staticmethod
    def mul_(a, value):
        return a.mul_(value)

    @staticmethod
    def div(a, value):
        return a.div(value)

    @staticmethod
    def div_(a, value):
        return a.div_(value)

    @staticmethod
    def reciprocal_(a):
        return a.reciprocal_()

    @staticmethod
    def abs(a):
        return a.abs()

    @staticmethod
    def sign(a):
        return a.sign()

    @staticmethod
    def clamp_(a, low, high):
        return a.clamp_(low, high)

    @staticmethod
    def masked_fill_(a, mask, value):
        return a.masked_fill_(mask, value)

    @staticmethod
    def clone(a):
        return a.clone()

    @staticmethod
    def square_(a):
        return a.square_()

    @staticmethod
    def rsqrt_(a):
        return a.rsqrt_()

    @staticmethod
    def clamp_min_(a, low):
        return a.clamp_(min=low)

    @staticmethod
    def matmul(a, b):
        return a.matmul(b)

    @staticmethod
    def mean(a, dim):
        return a.mean(dim=dim, keepdim=True)

    @staticmethod
    def norm(a, dim=None):
        if dim is None:
            return a.norm(2).item()
        return a.norm(2, dim=dim, keepdim=True)

    @staticmethod
    def eps(a):
        return finfo(a.dtype).eps

    @staticmethod
    def array(a):
        return a._data

    @staticmethod
    def bfloat16(x):
        """A float32 array of bfloat16 values as a bfloat16 tensor."""
        return Tensor._make(x.astype(bfloat16.np))

    @staticmethod
    def addcmul(a, b, c, value):
        return a.addcmul(b, c, value=value)

    @staticmethod
    def addcmul_(a, b, c, value):
        return a.addcmul_(b, c, value=value)

    @staticmethod
    def addcdiv_(a, b, c, value):
        return a.addcdiv_(b, c, value=value)

    @staticmethod
    def lerp_(a, b, weight):
        return a.lerp_(b, weight)

    @staticmethod
    def lerp(a, b, weight):
        return a.lerp(b, weight)

    @staticmethod
    def sqrt(a):
        return a.sqrt()

    @staticmethod
    def adam_addcdiv_(p, m, v, step_size, correction2, eps, scratch=None):
        """Adam's last step as torch's ops: p.addcdiv_(m, (v.sqrt() / c2).add_(eps),
        value=-step_size)."""
        return p.addcdiv_(m, v.sqrt().div_(correction2).add_(eps), value=-step_size)

    @staticmethod
    def sqrt_(a):
        return a.sqrt_()

    @staticmethod
    def maximum_(a, b):
        return a.copy_(a.maximum(b))

    @staticmethod
    def copy_(a, b):
        return a.copy_(b)


def operands(p, g, state):
    """(ops, p, g, state) for a rule: bfloat16 and float16 arrays as ember tensors (sharing
    their memory) with ``TensorOps``, others as they are with ``ArrayOps``."""
    if p.dtype.char not in _opmath._REDUCED:
        return ArrayOps, p, g, state
    return (TensorOps, Tensor._make(p), Tensor._make(g),
            {k: Tensor._make(v) for k, v in state.items()})


def direction(ops, p, g, weight_decay, maximize):
    """±g + weight_decay * p (torch: ``grad = -grad``, then ``grad.add(param, alpha=wd)``):
    ``g`` itself when nothing changes it, else a new array."""
    d = ops.neg(g) if maximize else g
    return d if weight_decay == 0 else ops.add(d, p, weight_decay)


# Every check is written ``not low <= value``, so that NaN is refused too (``nan < 0`` is False).
def check_lr(lr):
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_eps(eps):
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")


def check_weight_decay(weight_decay):
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def check_betas(betas):
    for i, beta in enumerate(betas[:2]):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


def check_fused(foreach, fused):
    if foreach and fused:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def as_float(x):
    """A learning rate or option given as a one-element tensor, read as a Python float."""
    if hasattr(x, "numel"):
        if x.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        return float(x.item())
    return x


def scalar_zero(value=0.0):
    """A 0-dim per-parameter counter in torch's scalar dtype (float32 unless default is 64)."""
    dtype = np.float64 if to_numpy_dtype(get_default_dtype()) == np.float64 else np.float32
    return np.array(value, dtype=dtype)


def check_range(name, value, low=0.0):
    if not low <= value:
        raise ValueError(f"Invalid {name} value: {value}")


def adam_moments_(ops, p, g, state, lr, betas, weight_decay, maximize, decoupled_weight_decay):
    """The moment updates Adam, NAdam and RAdam share: optional decoupled decay of p
    (``p.mul_(1 - lr*wd)``), then ``m.lerp_(d, 1-β1)`` and ``v.mul_(β2).addcmul_(d, d, 1-β2)``
    for the direction d; returns (d, m, v)."""
    beta1, beta2 = betas
    if decoupled_weight_decay and weight_decay != 0:
        ops.mul_(p, 1 - lr * weight_decay)
        weight_decay = 0
    d = direction(ops, p, g, weight_decay, maximize)
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    ops.lerp_(exp_avg, d, 1 - beta1)
    ops.mul_(exp_avg_sq, beta2)
    ops.addcmul_(exp_avg_sq, d, d, 1 - beta2)
    return d, exp_avg, exp_avg_sq
