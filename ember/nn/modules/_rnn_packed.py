"""Recurrent layers over a PackedSequence: step t updates only the batch_sizes[t] sequences still
running (torch's packed semantics: a finished sequence's state is its final state, and the
reverse direction starts each sequence at its own last step). The same step loop runs an LSTM
with projections (``run_steps``: every step has the whole batch), which has no fused node."""
from ... import _creation
from ...ops import api
from .. import functional as F
from ..utils.rnn import PackedSequence


def run_packed(module, packed, hx, step):
    """(PackedSequence output, h_n or (h_n, c_n)) of ``module`` (an RNNBase) on ``packed``.

    ``step(ih, hh, state, mode)`` is the layer's cell update, returning (h, new state)."""
    data, sizes = packed.data, [int(n) for n in packed.batch_sizes.numpy()]
    if data.shape[-1] != module.input_size:
        raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                           f"{module.input_size}, got {data.shape[-1]}")
    states = _initial_states(module, hx, sizes[0], data.dtype, packed.sorted_indices)
    directions = 2 if module.bidirectional else 1
    finals = []
    for layer in range(module.num_layers):
        outs = []
        for d, suffix in enumerate(("", "_reverse")[:directions]):
            w_ih, b_ih, w_hh, b_hh = module._layer_params(layer, suffix)
            run = _backward_in_time if d == 1 else _forward_in_time
            cell = _cell(step, module.mode, w_hh, b_hh, module._projection(layer, suffix))
            out, final = run(F.linear(data, w_ih, b_ih), sizes, states[layer * directions + d],
                             cell)
            outs.append(out)
            finals.append(final)
        data = outs[0] if directions == 1 else api.cat(outs, 1)
        if module.dropout and module.training and layer < module.num_layers - 1:
            data = F.dropout(data, module.dropout, True)  # on the packed rows, as torch
    output = PackedSequence(data, packed.batch_sizes, packed.sorted_indices,
                            packed.unsorted_indices)
    return output, _final_hidden(module, finals, packed.unsorted_indices)


def run_steps(proj, state, w_hh, b_hh, w_hr, step, reverse):
    """(outputs (L, N, P), final state) of one layer direction over a dense ``proj`` (L, N, G)."""
    length, batch = proj.shape[:2]
    run = _backward_in_time if reverse else _forward_in_time
    out, final = run(proj.reshape(length * batch, proj.shape[2]), [batch] * length, state,
                     _cell(step, "LSTM", w_hh, b_hh, w_hr))
    return out.reshape(length, batch, out.shape[-1]), final


def _cell(step, mode, w_hh, b_hh, w_hr):
    """The step ``cell(ih, state) -> (h, new state)``; with ``w_hr``, h = h W_hr^T."""
    def cell(ih, state):
        h = state[0] if isinstance(state, tuple) else state
        out, new = step(ih, F.linear(h, w_hh, b_hh), state, mode)
        if w_hr is None:
            return out, new
        out = F.linear(out, w_hr)
        return out, (out, new[1])
    return cell


def _rows(state, count):
    return tuple(s[:count] for s in state) if isinstance(state, tuple) else state[:count]


def _merge(new, old, count):
    """The running rows' new state above the finished rows' kept one."""
    if count == _length(old):
        return new
    if isinstance(old, tuple):
        return tuple(api.cat([n, o[count:]], 0) for n, o in zip(new, old))
    return api.cat([new, old[count:]], 0)


def _length(state):
    return (state[0] if isinstance(state, tuple) else state).shape[0]


def _forward_in_time(proj, sizes, state, cell):
    outs, offset = [], 0
    for count in sizes:
        h, new = cell(proj[offset:offset + count], _rows(state, count))
        state = _merge(new, state, count)
        outs.append(h)
        offset += count
    return api.cat(outs, 0), state


def _backward_in_time(proj, sizes, state, cell):
    ends, total = [], 0
    for count in sizes:
        total += count
        ends.append(total)
    outs = [None] * len(sizes)
    for t in range(len(sizes) - 1, -1, -1):
        count = sizes[t]
        h, new = cell(proj[ends[t] - count:ends[t]], _rows(state, count))
        state = _merge(new, state, count)
        outs[t] = h
    return api.cat(outs, 0), state


def _initial_states(module, hx, batch, dtype, sorted_indices):
    if hx is None:
        return zero_states(module, batch, dtype, None)
    parts = list(hx) if module.mode == "LSTM" else [hx]
    _check_state_shapes(module, parts, batch)
    if sorted_indices is not None:  # the caller's batch order -> the packing's
        parts = [api.index_select(p, 1, sorted_indices) for p in parts]
    return split_states(module, parts, batch, checked=True)


def _state_shapes(module, batch):
    """Expected (h, c) shapes (c only for the LSTM): h has proj_size features if set."""
    count = module.num_layers * (2 if module.bidirectional else 1)
    cell = (count, batch, module.hidden_size)
    if module.mode != "LSTM":
        return [cell]
    return [(count, batch, module.proj_size or module.hidden_size), cell]


def zero_states(module, batch, dtype, device):
    """Each layer direction's zero initial state (torch's default hx)."""
    zeros = [_creation.zeros(shape, dtype=dtype, device=device)
             for shape in _state_shapes(module, batch)]
    return split_states(module, zeros, batch, checked=True)


def _check_state_shapes(module, parts, batch):
    is_lstm = module.mode == "LSTM"
    for i, (p, expected) in enumerate(zip(parts, _state_shapes(module, batch))):
        if tuple(p.shape) != expected:
            label = f"hidden[{i}]" if is_lstm else "hidden"
            raise RuntimeError(f"Expected {label} size {expected}, got {list(p.shape)}")


def split_states(module, parts, batch, checked=False):
    """Per layer direction states ((h, c) for the LSTM) of the stacked ``parts``."""
    if not checked:
        _check_state_shapes(module, parts, batch)
    if module.mode == "LSTM":
        return [(parts[0][k], parts[1][k]) for k in range(parts[0].shape[0])]
    return [parts[0][k] for k in range(parts[0].shape[0])]


def _final_hidden(module, finals, unsorted_indices):
    def restore(stacked):
        return stacked if unsorted_indices is None else \
            api.index_select(stacked, 1, unsorted_indices)
    if module.mode == "LSTM":
        return (restore(api.stack([f[0] for f in finals], 0)),
                restore(api.stack([f[1] for f in finals], 0)))
    return restore(api.stack(finals, 0))
