"""Shared pieces of the update rules and of the optimizers' argument checks."""
import numpy as np


def direction(p, g, weight_decay, maximize):
    """±g + weight_decay * p: ``g`` itself when nothing changes it, else a new array."""
    if weight_decay != 0:
        d = np.multiply(p, weight_decay, out=np.empty_like(p))
        return np.subtract(d, g, out=d) if maximize else np.add(d, g, out=d)
    return np.negative(g, out=np.empty_like(g)) if maximize else g


def check_lr(lr):
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_eps(eps):
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")


def check_weight_decay(weight_decay):
    if weight_decay < 0.0:
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
