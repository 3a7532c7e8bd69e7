"""Padding primitives: constant padding (negative pads crop) and index-based reflect/replicate."""
import numpy as np

from .. import _memory_format
from ..autograd.graph import Node


class ConstantPadNdBackward0(Node):
    """out = x surrounded by ``value`` (pads listed from the last dim; negative ones crop);
    dx = the part of g where x landed."""

    def forward(self, a, pad, value=0.0):
        x = a._data
        widths = [(0, 0)] * x.ndim
        for i in range(len(pad) // 2):
            widths[x.ndim - 1 - i] = (pad[2 * i], pad[2 * i + 1])
        out_shape = tuple(n + lo + hi for n, (lo, hi) in zip(x.shape, widths))
        if any(s < 0 for s in out_shape):  # (torch 2.13 crops by narrow() first)
            raise RuntimeError("narrow(): length must be non-negative.")
        self.shape = x.shape
        self.source = tuple(slice(max(-lo, 0), n - max(-hi, 0))
                            for n, (lo, hi) in zip(x.shape, widths))
        self.dest = tuple(slice(max(lo, 0), max(lo, 0) + max(s.stop - s.start, 0))
                          for s, (lo, _) in zip(self.source, widths))
        out = _memory_format.follow(np.full(out_shape, value, dtype=x.dtype), x)  # (torch's
        # constant pad keeps a channels-last input's layout)
        out[self.dest] = x[self.source]
        return out

    def backward(self, m, g):
        return (m.index_into_zeros(m.index(g, self.dest), self.shape, self.source, False),)


class _IndexPad(Node):
    """out = x gathered along the padded dims by per-dim index arrays;  dx = g summed back."""

    def forward(self, a, index):
        self.shape, self.index = a._data.shape, index
        return a._data[index]

    def backward(self, m, g):
        return (m.index_into_zeros(g, self.shape, self.index, True),)


def _make(name):
    cls = type(name, (_IndexPad,), {"__doc__": f"{name[:-9]} padding (index-based)."})
    cls.__module__ = __name__
    return cls


class CopySlices(_IndexPad):
    """Circular padding (index-based). torch builds it by copying slices of the input into the
    output, so its grad_fn prints CopySlices at any dimension; one gather node here."""


PAD_NODES = {(mode, d): _make(f"{word}Pad{d}DBackward0")
             for mode, word in (("reflect", "Reflection"), ("replicate", "Replication"))
             for d in (1, 2, 3)}
PAD_NODES.update({("circular", d): CopySlices for d in (1, 2, 3)})


def pad_index(shape, pad, mode):
    """Index arrays (np.ix_ style) mapping every output position to its source in x."""
    per_dim = [np.arange(s) for s in shape]
    for i in range(len(pad) // 2):
        d = len(shape) - 1 - i
        lo, hi, n = pad[2 * i], pad[2 * i + 1], shape[d]
        positions = np.arange(-lo, n + hi)
        if mode == "reflect":
            if lo >= n or hi >= n:  # (torch numbers the argument by the pair: 4, 6, 8)
                raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the "
                                   f"corresponding input dimension, but got: padding ({lo}, {hi}) "
                                   f"at dimension {d} of input {list(shape)}")
            period = 2 * (n - 1)
            positions = np.abs(positions) % period if period else np.zeros_like(positions)
            positions = np.where(positions >= n, period - positions, positions)
        elif mode == "replicate":
            positions = np.clip(positions, 0, n - 1)
        else:  # circular: a negative pad crops first, the wrap reads the cropped range
            start = max(-lo, 0)
            kept = n - start - max(-hi, 0)
            if kept + max(lo, 0) + max(hi, 0) < 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension")
            positions = np.arange(-max(lo, 0), kept + max(hi, 0)) % max(kept, 1) + start
        per_dim[d] = positions
    return np.ix_(*per_dim)
