"""Recurrent layers over a PackedSequence: step t updates only the batch_sizes[t] sequences still
running (torch's packed semantics: a finished sequence's state is its final state, and the
reverse direction starts each sequence at its own last step)."""
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
            out, final = run(F.linear(data, w_ih, b_ih), sizes, states[layer * directions + d],
                             lambda ih, state: step(ih, _hidden_product(state, w_hh, b_hh),
                                                    state, module.mode))
            outs.append(out)
            finals.append(final)
        data = outs[0] if directions == 1 else api.cat(outs, 1)
        if module.dropout and module.training and layer < module.num_layers - 1:
            data = F.dropout(data, module.dropout, True)  # on the packed rows, as torch
    output = PackedSequence(data, packed.batch_sizes, packed.sorted_indices,
                            packed.unsorted_indices)
    return output, _final_hidden(module, finals, packed.unsorted_indices)


def _hidden_product(state, w_hh, b_hh):
    h = state[0] if isinstance(state, tuple) else state
    return F.linear(h, w_hh, b_hh)


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
    count = module.num_layers * (2 if module.bidirectional else 1)
    expected = (count, batch, module.hidden_size)
    is_lstm = module.mode == "LSTM"
    if hx is None:
        zeros = _creation.zeros(expected, dtype=dtype)
        return [(zeros[k], zeros[k]) if is_lstm else zeros[k] for k in range(count)]
    parts = list(hx) if is_lstm else [hx]
    for i, p in enumerate(parts):
        if tuple(p.shape) != expected:
            label = f"hidden[{i}]" if is_lstm else "hidden"
            raise RuntimeError(f"Expected {label} size {expected}, got {list(p.shape)}")
    if sorted_indices is not None:  # the caller's batch order -> the packing's
        parts = [api.index_select(p, 1, sorted_indices) for p in parts]
    if is_lstm:
        return [(parts[0][k], parts[1][k]) for k in range(count)]
    return [parts[0][k] for k in range(count)]


def _final_hidden(module, finals, unsorted_indices):
    def restore(stacked):
        return stacked if unsorted_indices is None else \
            api.index_select(stacked, 1, unsorted_indices)
    if module.mode == "LSTM":
        return (restore(api.stack([f[0] for f in finals], 0)),
                restore(api.stack([f[1] for f in finals], 0)))
    return restore(api.stack(finals, 0))
