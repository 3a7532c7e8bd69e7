"""Shared pieces of the update rules and of the optimizers' argument checks."""
import numpy as np

from .._dtype import get_default_dtype, to_numpy_dtype


def direction(p, g, weight_decay, maximize):
    """±g + weight_decay * p: ``g`` itself when nothing changes it, else a new array."""
    if weight_decay != 0:
        d = np.multiply(p, weight_decay, out=np.empty_like(p))
        return np.subtract(d, g, out=d) if maximize else np.add(d, g, out=d)
    return np.negative(g, out=np.empty_like(g)) if maximize else g


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


def lerp_(a, b, weight):
    """a += weight * (b - a), with torch's two-sided formula (exact at weight 0 and 1)."""
    t = np.subtract(b, a, out=np.empty_like(a))
    if abs(weight) < 0.5:
        t *= weight
        a += t
    else:
        np.subtract(b, np.multiply(t, 1 - weight, out=t), out=a)


def add_square_(v, d, value):
    """v += value * d * d (torch's addcmul order)."""
    t = np.multiply(d, value, out=np.empty_like(d))
    t *= d
    v += t


def decay_(p, lr, weight_decay):
    """Decoupled weight decay: p *= 1 - lr * weight_decay."""
    p *= 1 - lr * weight_decay


def scalar_zero(value=0.0):
    """A 0-dim per-parameter counter in torch's scalar dtype (float32 unless default is 64)."""
    dtype = np.float64 if to_numpy_dtype(get_default_dtype()) == np.float64 else np.float32
    return np.array(value, dtype=dtype)


def check_range(name, value, low=0.0):
    if not low <= value:
        raise ValueError(f"Invalid {name} value: {value}")


def adam_moments_(p, g, state, lr, betas, weight_decay, maximize, decoupled_weight_decay):
    """The moment updates NAdam and RAdam share with Adam: optional decoupled decay of p, then
    m = lerp(m, d, 1-β1) and v = β2 v + (1-β2) d² for the direction d; returns (d, m, v)."""
    beta1, beta2 = betas
    if decoupled_weight_decay and weight_decay != 0:
        decay_(p, lr, weight_decay)
        weight_decay = 0
    d = direction(p, g, weight_decay, maximize)
    exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
    lerp_(exp_avg, d, 1 - beta1)
    exp_avg_sq *= beta2
    add_square_(exp_avg_sq, d, 1 - beta2)
    return d, exp_avg, exp_avg_sq
