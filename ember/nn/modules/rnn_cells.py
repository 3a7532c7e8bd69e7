"""Single-step recurrent cells: RNNCell, LSTMCell, GRUCell (the layers' updates, one step)."""
import math

from ... import _creation
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


def reset_uniform_by_hidden_size(module):
    """Every parameter U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as torch's RNNs and cells."""
    bound = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -bound, bound)


class RNNCellBase(Module):
    """weight_ih (G*H, in), weight_hh (G*H, H), bias_ih, bias_hh; all U(-1/sqrt(H), 1/sqrt(H))."""

    _mode = "RNN_TANH"

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        gate = num_chunks * hidden_size
        self.weight_ih = Parameter(_creation.empty((gate, input_size), dtype=dtype))
        self.weight_hh = Parameter(_creation.empty((gate, hidden_size), dtype=dtype))
        if bias:
            self.bias_ih = Parameter(_creation.empty(gate, dtype=dtype))
            self.bias_hh = Parameter(_creation.empty(gate, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        reset_uniform_by_hidden_size(self)

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def _prepare(self, input, hx, count):
        """Batched input and states (zeros when hx is None); also whether input was batched."""
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got "
                             f"{input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} "
                               f"expected {self.input_size}")
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        if hx is None:
            zeros = _creation.zeros((x.shape[0], self.hidden_size), dtype=input.dtype,
                                    device=input.device)
            return x, [zeros] * count, batched
        states = list(hx) if count > 1 else [hx]
        states = [s if batched else s.unsqueeze(0) for s in states]
        for i, s in enumerate(states):
            if s.shape[0] != x.shape[0]:
                raise RuntimeError(f"Input batch size {x.shape[0]} doesn't match hidden{i} "
                                   f"batch size {s.shape[0]}")
            if s.shape[1] != self.hidden_size:
                raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got {s.shape[1]}, "
                                   f"expected {self.hidden_size}")
        return x, states, batched

    def _projections(self, x, h):
        return (F.linear(x, self.weight_ih, self.bias_ih),
                F.linear(h, self.weight_hh, self.bias_hh))


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        from .rnn import _rnn_step  # rnn builds on rnn_cells (a cycle)
        x, (h,), batched = self._prepare(input, hx, 1)
        mode = "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"
        out, _ = _rnn_step(*self._projections(x, h), h, mode)
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: returns (h', c')."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        from .rnn import _lstm_step  # rnn builds on rnn_cells (a cycle)
        x, (h, c), batched = self._prepare(input, hx, 2)
        _, (h, c) = _lstm_step(*self._projections(x, h), (h, c), "LSTM")
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step: returns h'."""

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        from .rnn import _gru_step  # rnn builds on rnn_cells (a cycle)
        x, (h,), batched = self._prepare(input, hx, 1)
        out, _ = _gru_step(*self._projections(x, h), h, "GRU")
        return out if batched else out.squeeze(0)
