"""CrossMapLRN2d: torch's legacy (Lua-era) local response norm across channels of 4-D inputs,
with that implementation's window and its own backward formula, both reproduced as torch
runs them (they differ from LocalResponseNorm's)."""
import numpy as np

from ...autograd.function import Function
from .module import Module


def _window_sums(squares, size):
    """scale[c] as torch's loop builds it: channel 0 sums the first pre_pad squares; each next
    channel adds the square pre_pad - 1 ahead and drops the one pre_pad behind only once
    c > pre_pad (so channel 0's square is never dropped: the legacy loop's quirk)."""
    channels = squares.shape[1]
    pre_pad = int((size - 1) / 2 + 1)
    steps = np.zeros_like(squares)
    steps[:, 0] = squares[:, :min(pre_pad, channels)].sum(axis=1)
    for c in range(1, channels):
        if c < channels - pre_pad + 1:
            steps[:, c] += squares[:, c + pre_pad - 1]
        if c > pre_pad:
            steps[:, c] -= squares[:, c - pre_pad]
    return np.cumsum(steps, axis=1)


class CrossMapLRN2d(Function):  # torch's name for it: its grad_fn is CrossMapLRN2dBackward
    """y = x (k + alpha/size · window sum of x²)^-beta; backward: torch's legacy formula
    g s^-beta - (2 alpha beta / size) x Σ_window (g y / s), its window centred differently."""

    @staticmethod
    def forward(ctx, input, size, alpha, beta, k):
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D "
                             "instead.")
        x = input.detach().numpy()
        scale = _window_sums(x * x, size) * (alpha / size) + k
        output = np.power(scale, -beta) * x
        ctx.legacy = (x, output, scale, size, alpha, beta)
        return input.new_tensor(output)

    @staticmethod
    def backward(ctx, grad_output):
        x, output, scale, size, alpha, beta = ctx.legacy
        g = grad_output.detach().numpy()
        grad = np.power(scale, -beta) * g
        channels = x.shape[1]
        start = int(size - (size - 1) / 2)
        padded = np.zeros((x.shape[0], channels + size - 1) + x.shape[2:], dtype=x.dtype)
        if start + channels > padded.shape[1]:  # size 1: torch's narrow fails the same way
            raise RuntimeError(f"start ({start}) + length ({channels}) exceeds dimension size "
                               f"({padded.shape[1]}).")
        padded[:, start:start + channels] = g * output / scale
        totals = np.cumsum(np.concatenate([np.zeros_like(padded[:, :1]), padded], axis=1),
                           axis=1)
        window = totals[:, size:size + channels] - totals[:, :channels]
        grad -= (2 * alpha * beta / size) * x * window
        return grad_output.new_tensor(grad), None, None, None, None


_CrossMapLRN2dFunction = CrossMapLRN2d  # the module below takes the public name


class CrossMapLRN2d(Module):  # noqa: F811
    """Legacy local response normalisation across channels (see _CrossMapLRN2dFunction)."""

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return _CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
