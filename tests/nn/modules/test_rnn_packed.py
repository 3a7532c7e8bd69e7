"""RNN / LSTM / GRU over a PackedSequence (ember/nn/modules/_rnn_packed.py) against torch:
outputs, final states and gradients, for sorted and unsorted packings, given and default
initial states, several layers and both directions."""
import numpy as np
import pytest
import torch

import ember

rng = np.random.default_rng(0)


def _run(lib, cls, kwargs, x, lengths, h0, enforce_sorted):
    lib.manual_seed(0)
    module = getattr(lib.nn, cls)(4, 3, **kwargs).double()
    xt = lib.tensor(x, requires_grad=True)
    batch_first = kwargs.get("batch_first", False)
    packed = lib.nn.utils.rnn.pack_padded_sequence(xt, lengths, batch_first=batch_first,
                                                   enforce_sorted=enforce_sorted)
    hx = None
    if h0 is not None:
        hx = tuple(lib.tensor(a) for a in h0) if cls == "LSTM" else lib.tensor(h0[0])
    out, hidden = module(packed, hx)
    assert type(out).__name__ == "PackedSequence"
    padded, _ = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=batch_first)
    finals = hidden if isinstance(hidden, tuple) else (hidden,)
    weights = lib.tensor(np.arange(padded.numel()).reshape(tuple(padded.shape)) / 50.0)
    ((padded * weights).sum() + sum((h ** 2).sum() for h in finals)).backward()
    return ([padded.detach().numpy(), xt.grad.numpy()] + [h.detach().numpy() for h in finals]
            + [p.grad.numpy() for p in module.parameters()])


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("kwargs", [{}, {"num_layers": 2, "bidirectional": True},
                                    {"batch_first": True, "bidirectional": True}])
@pytest.mark.parametrize("enforce_sorted,lengths", [(True, [6, 4, 4, 1]), (False, [3, 6, 1, 4])])
def test_packed_layers_match_torch(cls, kwargs, enforce_sorted, lengths):
    x = rng.standard_normal((4, 6, 4) if kwargs.get("batch_first") else (6, 4, 4))
    count = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    h0 = [rng.standard_normal((count, 4, 3)) for _ in range(2)] if not enforce_sorted else None
    ours = _run(ember, cls, kwargs, x, lengths, h0, enforce_sorted)
    theirs = _run(torch, cls, kwargs, x, lengths, h0, enforce_sorted)
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_packed_dropout_between_layers_draws_torch_stream():
    x = rng.standard_normal((5, 3, 4)).astype(np.float32)
    outs = []
    for lib in (ember, torch):
        lib.manual_seed(3)
        gru = lib.nn.GRU(4, 3, num_layers=2, dropout=0.5)
        packed = lib.nn.utils.rnn.pack_padded_sequence(lib.tensor(x), [5, 4, 2])
        outs.append(gru(packed)[0].data.detach().numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-5, atol=1e-6)


def test_packed_wrong_hidden_size_raises_runtime_error_as_torch():
    for lib in (torch, ember):  # torch's message is a broadcast error; ember names the shapes
        lstm = lib.nn.LSTM(4, 3)
        packed = lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(5, 2, 4), [5, 3])
        with pytest.raises(RuntimeError) as info:
            lstm(packed, (lib.zeros(1, 3, 3), lib.zeros(1, 3, 3)))
    assert r"Expected hidden[0] size (1, 2, 3), got [1, 3, 3]" in str(info.value)
