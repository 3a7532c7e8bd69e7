"""Muon: momentum SGD whose update matrix is orthogonalised by a Newton-Schulz iteration run in
bfloat16, as torch runs it (needs the bf16 extra: ml_dtypes)."""
import math

import numpy as np

from .. import _dtype
from ..ops._bf16 import rounded
from . import _common, _flat
from .optimizer import Optimizer

__all__ = ["Muon", "muon_rule"]

EPS = 1e-7
DEFAULT_A, DEFAULT_B, DEFAULT_C = 3.4445, -4.7750, 2.0315
DEFAULT_NS_STEPS = 5


def _bf16(x):
    """x (float32) as a bfloat16 tensor holds it: torch's NS iteration rounds every result
    (ml_dtypes, the bf16 extra, loads on the first call)."""
    return rounded(x, _dtype.bfloat16.np)


def _orthogonalised(update, ns_coefficients, ns_steps, eps):
    """Newton-Schulz: X = G/|G|, then ns_steps times X = aX + (bA + cA²)X with A = X Xᵀ, in
    bfloat16 (each product computed in float32, rounded once), on the wide side of G.
    Returns (the result, G/|G| in G's orientation)."""
    if ns_steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if update.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(ns_coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = (np.float32(v) for v in ns_coefficients)
    tall = update.shape[0] > update.shape[1]
    x = _bf16(update.astype(np.float32))
    x = x.T if tall else x
    norm = max(_bf16(np.linalg.norm(x)), _bf16(np.float32(eps)))
    x = _bf16(x / norm)
    normalized = x.T if tall else x
    for _ in range(ns_steps):
        gram = _bf16(x @ x.T)
        gram = _bf16(b * gram + c * (gram @ gram))
        x = _bf16(a * x + gram @ x)
    return (x.T if tall else x), normalized


def _adjusted_lr(lr, adjust_lr_fn, shape):
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        return lr * math.sqrt(max(1, rows / cols))
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    return lr


def muon_rule(p, g, state, *, lr, weight_decay, momentum, nesterov, ns_coefficients, eps,
              ns_steps, adjust_lr_fn):
    """B = lerp(B, g, 1-μ); U = lerp(g, B, μ) (nesterov) or B; O = NS(U) in bfloat16 (for a
    bfloat16 B without nesterov, B = B/|B| as torch leaves it);
    p *= 1 - lr wd; p -= lr' O with lr' = lr sqrt(max(1, rows/cols)) ('original') or
    0.2 lr sqrt(max(rows, cols)) ('match_rms_adamw')."""
    if g.ndim != 2:
        raise ValueError("Param gradient must be a 2D matrix")
    ops, p, g, state = _common.operands(p, g, state)
    buf = state["momentum_buffer"]
    ops.lerp_(buf, g, 1 - momentum)
    update = ops.lerp(g, buf, momentum) if nesterov else buf
    ortho, normalized = _orthogonalised(ops.array(update), ns_coefficients, ns_steps, eps)
    if update is buf and ops.array(buf).dtype == _dtype.bfloat16.np:
        # torch's iteration starts from update.bfloat16(), the bfloat16 buffer itself, and
        # divides it by its norm in place
        ops.copy_(buf, ops.bfloat16(normalized))
    ortho = ops.bfloat16(ortho)
    ops.mul_(p, 1 - lr * weight_decay)
    ops.add_(p, ortho, -_adjusted_lr(lr, adjust_lr_fn, p.shape))


class Muon(Optimizer):
    """Muon (see ``muon_rule``): for 2-D parameters only (use AdamW for biases, embeddings)."""

    _rule = staticmethod(muon_rule)
    _rule_keys = ("lr", "weight_decay", "momentum", "nesterov", "ns_coefficients", "eps",
                  "ns_steps", "adjust_lr_fn")

    def __init__(self, params, lr=1e-3, weight_decay=0.1, momentum=0.95, nesterov=True,
                 ns_coefficients=(DEFAULT_A, DEFAULT_B, DEFAULT_C), eps=EPS,
                 ns_steps=DEFAULT_NS_STEPS, adjust_lr_fn=None):
        if not 0.0 <= _common.as_float(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps,
                        adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _init_state(self, array, group):
        return {"momentum_buffer": np.zeros_like(array)}

    def step(self, closure=None):
        """One Muon update of every parameter with a gradient; returns the closure's loss."""
        return _flat.step_tensors(self, closure)
