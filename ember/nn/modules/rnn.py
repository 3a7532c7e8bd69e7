"""Recurrent layers: RNN, LSTM, GRU (multi-layer, bidirectional) and their single-step cells.

Each layer projects the whole input sequence with one matrix product, then steps through time
with the cell update (torch's gate order: LSTM i, f, g, o; GRU r, z, n). An LSTM with
``proj_size`` P multiplies each step's hidden state by weight_hr (P, H): h has P features, c H.
"""
import warnings

from ... import _creation
from ...ops import api
from ...ops import autocast as _autocast
from ...ops.recurrent import lstm_outputs, recurrence
from .. import functional as F
from ..parameter import Parameter
from ..utils.rnn import PackedSequence
from ._rnn_packed import run_packed, run_steps, split_states, zero_states
from .module import Module
from .rnn_cells import reset_uniform_by_hidden_size

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


# ------------------------------------------------------------------ cell updates
def _rnn_step(ih, hh, state, mode):
    pre = ih + hh
    h = pre.tanh() if mode == "RNN_TANH" else pre.relu()
    return h, h


def _lstm_step(ih, hh, state, mode):
    i, f, g, o = (ih + hh).chunk(4, 1)
    c = f.sigmoid() * state[1] + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    return h, (h, c)


def _gru_step(ih, hh, state, mode):
    ir, iz, in_ = ih.chunk(3, 1)
    hr, hz, hn = hh.chunk(3, 1)
    r, z = (ir + hr).sigmoid(), (iz + hz).sigmoid()
    n = (in_ + r * hn).tanh()
    h = n + z * (state - n)
    return h, h


_STEPS = {"RNN_TANH": _rnn_step, "RNN_RELU": _rnn_step, "LSTM": _lstm_step, "GRU": _gru_step}


def _run_direction(proj, state, w_hh, b_hh, mode, reverse, w_hr=None):
    """Step through ``proj`` (L, N, G*H), the input projection; returns (outputs, final state)."""
    if w_hr is not None:  # (the fused recurrences have no projection: step by step)
        return run_steps(proj, state, w_hh, b_hh, w_hr, _lstm_step, reverse)
    last = 0 if reverse else proj.shape[0] - 1
    if mode != "LSTM":
        out = recurrence(mode, proj, w_hh, b_hh, state, None, reverse)
        return out, out[last]
    out, h, c = lstm_outputs(recurrence(mode, proj, w_hh, b_hh, state[0], state[1], reverse),
                             reverse)
    return out, (h, c)


class RNNBase(Module):
    """Shared parameters (torch's names weight_ih_l0, ..._reverse) and the layer loop."""

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0, device=None,
                 dtype=None):
        super().__init__()
        _check_sizes(mode, hidden_size, num_layers, dropout, proj_size, input_size)
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional = float(dropout), bidirectional
        self.proj_size = proj_size
        gate = _GATES[mode] * hidden_size
        out_size = proj_size or hidden_size  # h's features
        self._flat_weights_names = []
        for layer in range(num_layers):
            for suffix in ("", "_reverse")[:2 if bidirectional else 1]:
                size = input_size if layer == 0 else out_size * (2 if bidirectional else 1)
                shapes = {"weight_ih": (gate, size), "weight_hh": (gate, out_size)}
                if bias:
                    shapes.update(bias_ih=(gate,), bias_hh=(gate,))
                if proj_size:
                    shapes["weight_hr"] = (proj_size, hidden_size)
                for kind, shape in shapes.items():
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(_creation.empty(shape, dtype=dtype)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self):
        reset_uniform_by_hidden_size(self)

    def flatten_parameters(self):
        """No-op (torch packs weights for cuDNN)."""

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        per = (4 if self.bias else 2) + (1 if self.proj_size else 0)
        flat = self._flat_weights
        return [flat[i:i + per] for i in range(0, len(flat), per)]

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text

    def _layer_params(self, layer, suffix):
        get = lambda kind: getattr(self, f"{kind}_l{layer}{suffix}") if self.bias or \
            kind.startswith("weight") else None
        return get("weight_ih"), get("bias_ih"), get("weight_hh"), get("bias_hh")

    def _projection(self, layer, suffix):
        """weight_hr of a layer direction, or None without ``proj_size``."""
        return getattr(self, f"weight_hr_l{layer}{suffix}") if self.proj_size else None

    def _run(self, x, states, cast=None):
        """x (L, N, in); states[k] is layer*directions+direction's initial state; ``cast``
        (optional) maps a layer's weights to the dtype they run in."""
        directions = 2 if self.bidirectional else 1
        finals = []
        for layer in range(self.num_layers):
            outs = []
            for d, suffix in enumerate(("", "_reverse")[:directions]):
                w_ih, b_ih, w_hh, b_hh = self._layer_params(layer, suffix)
                if cast is not None:
                    w_ih, b_ih, w_hh, b_hh = cast(w_ih, b_ih, w_hh, b_hh)
                proj = F.linear(x, w_ih, b_ih)
                out, final = _run_direction(proj, states[layer * directions + d], w_hh, b_hh,
                                            self.mode, d == 1, self._projection(layer, suffix))
                outs.append(out)
                finals.append(final)
            x = outs[0] if directions == 1 else api.cat(outs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = F.dropout(x, self.dropout, True)  # time-major, as torch draws it
        return x, finals

    def forward(self, input, hx=None):
        if isinstance(input, PackedSequence):
            return run_packed(self, input, hx, _STEPS[self.mode])
        name = {"RNN_TANH": "RNN", "RNN_RELU": "RNN"}.get(self.mode, self.mode)
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D instead")
        weight_dtype = self.weight_ih_l0.dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight_dtype}). Convert input: input.to({weight_dtype}), or "
                             f"convert model: model.to({input.dtype})")
        batched = input.dim() == 3
        x = input if batched else input.unsqueeze(1 if not self.batch_first else 0)
        if self.batch_first:
            x = x.transpose(0, 1)
        if x.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {x.shape[-1]}")
        if x.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        states = self._initial_states(x, hx, batched)
        whole = _autocast.enabled.get("cpu") and (
            self.mode in ("RNN_TANH", "RNN_RELU") or (self.mode == "LSTM" and not self.proj_size))
        if whole:  # torch's CPU autocast runs these recurrences wholly in the lower precision
            # (LSTM: oneDNN's kernel; RNN: each step's products); GRU and LSTM with proj_size
            # lower only what their linear ops lower, as here by default
            (x,) = _autocast.lower(x)
            states = [_autocast.lower(*s) if isinstance(s, tuple) else _autocast.lower(s)[0]
                      for s in states]
        out, finals = self._run(x, states, _autocast.lower if whole else None)
        if self.mode == "LSTM":
            h_n = api.stack([f[0] for f in finals], 0)
            c_n = api.stack([f[1] for f in finals], 0)
            hidden = (h_n, c_n) if batched else (h_n.squeeze(1), c_n.squeeze(1))
        else:
            h_n = api.stack(finals, 0)
            hidden = h_n if batched else h_n.squeeze(1)
        if self.batch_first:  # torch's GRU/RNN transpose in place (TransposeBackward1), after
            # the final states (views of ``out``) are stacked: an export trace reads them unbumped
            out = out.transpose(0, 1) if self.mode == "LSTM" else out.transpose_(0, 1)
        return (out if batched else out.squeeze(0 if self.batch_first else 1)), hidden

    def _initial_states(self, x, hx, batched):
        is_lstm = self.mode == "LSTM"
        if hx is None:
            return zero_states(self, x.shape[1], x.dtype, x.device)
        parts = list(hx) if is_lstm else [hx]
        for p in parts:  # torch refuses (its GEMM's words for RNN and GRU)
            if p.dtype != x.dtype:
                raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                                   f"{p.dtype.scalar_name} and {x.dtype.scalar_name}")
        if not batched:
            if any(p.dim() != 2 for p in parts):
                dims = ", ".join(f"{p.dim()}-D" for p in parts)
                what = ("hx and cx should also be 2-D but got (" + dims + ") tensors" if is_lstm
                        else f"hx should also be 2-D but got {dims} tensor")
                raise RuntimeError(f"For unbatched 2-D input, {what}")
            parts = [p.unsqueeze(1) for p in parts]
        return split_states(self, parts, x.shape[1])


def _check_sizes(mode, hidden_size, num_layers, dropout, proj_size, input_size=1):
    if not 0 <= dropout <= 1 or isinstance(dropout, bool):
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}", stacklevel=3)
    for name, size in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(size, int):
            raise TypeError(f"{name} should be of type int, got: {type(size).__name__}")
        if size <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")
    if proj_size and mode != "LSTM":
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


_ARG_NAMES = ("input_size", "hidden_size", "num_layers", "bias", "batch_first", "dropout",
              "bidirectional", "proj_size", "device", "dtype")


def _refuse_projection(kwargs):
    if "proj_size" in kwargs:  # torch refuses the keyword itself, even proj_size=0
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


class RNN(RNNBase):
    """Elman RNN: h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu)."""

    def __init__(self, *args, **kwargs):
        _refuse_projection(kwargs)
        args = list(args)
        nonlinearity = args.pop(3) if len(args) > 3 else kwargs.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory: gates i, f, g, o; returns output, (h_n, c_n)."""

    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit: r, z, n gates; h_t = (1 - z) * n + z * h_{t-1}."""

    def __init__(self, *args, **kwargs):
        _refuse_projection(kwargs)
        super().__init__("GRU", *args, **kwargs)


from .rnn_cells import GRUCell, LSTMCell, RNNCell, RNNCellBase  # noqa: E402, F401
