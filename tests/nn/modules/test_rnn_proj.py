"""LSTM with projections (proj_size) against torch: parameters (names, shapes, seeded init),
outputs, final (h, c) and gradients, dense and packed, and torch's refusals."""
import numpy as np
import pytest
import torch

import ember

rng = np.random.default_rng(0)
CASES = [{}, {"bidirectional": True}, {"num_layers": 2},
         {"num_layers": 2, "bidirectional": True, "batch_first": True}, {"bias": False}]


def _run(lib, kwargs, x, hx, lengths):
    lib.manual_seed(0)
    module = lib.nn.LSTM(4, 5, proj_size=3, **kwargs).double()
    xt = lib.tensor(x, requires_grad=True)
    state = None if hx is None else tuple(lib.tensor(a, requires_grad=True) for a in hx)
    batch_first = kwargs.get("batch_first", False)
    if lengths is not None:
        packed = lib.nn.utils.rnn.pack_padded_sequence(xt, lengths, batch_first=batch_first,
                                                       enforce_sorted=False)
        out, (h, c) = module(packed, state)
        out = lib.nn.utils.rnn.pad_packed_sequence(out, batch_first=batch_first)[0]
    else:
        out, (h, c) = module(xt, state)
    weights = lib.tensor(np.arange(out.numel()).reshape(tuple(out.shape)) / 40.0)
    ((out * weights).sum() + (h ** 2).sum() + (c ** 3).sum()).backward()
    grads = [xt.grad] + ([] if state is None else [s.grad for s in state])
    return ([out.detach().numpy(), h.detach().numpy(), c.detach().numpy()]
            + [g.numpy() for g in grads] + [p.grad.numpy() for p in module.parameters()])


@pytest.mark.parametrize("kwargs", CASES)
@pytest.mark.parametrize("packed", [False, True])
@pytest.mark.parametrize("given_state", [False, True])
def test_projected_lstm_matches_torch(kwargs, packed, given_state):
    x = rng.standard_normal((3, 6, 4) if kwargs.get("batch_first") else (6, 3, 4))
    count = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    hx = [rng.standard_normal((count, 3, 3)), rng.standard_normal((count, 3, 5))] \
        if given_state else None
    lengths = [4, 6, 2] if packed else None
    ours, theirs = _run(ember, kwargs, x, hx, lengths), _run(torch, kwargs, x, hx, lengths)
    assert [a.shape for a in ours] == [b.shape for b in theirs]
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_projected_lstm_parameters_and_init_as_torch():
    modules = []
    for lib in (ember, torch):
        lib.manual_seed(7)
        modules.append(lib.nn.LSTM(4, 6, num_layers=2, proj_size=2, bidirectional=True))
    ours, theirs = (list(m.named_parameters()) for m in modules)
    assert [(n, tuple(p.shape)) for n, p in ours] == [(n, tuple(p.shape)) for n, p in theirs]
    for (_, a), (_, b) in zip(ours, theirs):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    assert repr(modules[0]) == repr(modules[1])
    assert modules[0].proj_size == 2
    assert [[tuple(p.shape) for p in g] for g in modules[0].all_weights] == \
        [[tuple(p.shape) for p in g] for g in modules[1].all_weights]


def test_projected_lstm_unbatched_and_float32():
    x = rng.standard_normal((5, 4)).astype(np.float32)
    results = []
    for lib in (ember, torch):
        lib.manual_seed(1)
        out, (h, c) = lib.nn.LSTM(4, 5, proj_size=2)(lib.tensor(x))
        results.append([out.detach().numpy(), h.detach().numpy(), c.detach().numpy()])
    for a, b in zip(*results):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.LSTM(4, 5, proj_size=-1),
    lambda lib: lib.nn.LSTM(4, 5, proj_size=5),
    lambda lib: lib.nn.LSTM(4, 5, proj_size=7),
    lambda lib: lib.nn.GRU(4, 5, proj_size=2),
    lambda lib: lib.nn.GRU(4, 5, proj_size=0),
    lambda lib: lib.nn.RNN(4, 5, proj_size=2),
    lambda lib: lib.nn.RNN(4, 5, nonlinearity="bad", proj_size=2),
])
def test_proj_size_refusals_as_torch(make):
    with pytest.raises(ValueError) as theirs:
        make(torch)
    with pytest.raises(ValueError) as ours:
        make(ember)
    assert str(ours.value) == str(theirs.value)


def test_projected_lstm_wrong_hidden_shape_names_it():
    for lib in (torch, ember):
        lstm = lib.nn.LSTM(4, 5, proj_size=2).double()
        x = lib.zeros(3, 2, 4, dtype=lib.float64)
        bad_h = (lib.zeros(1, 2, 5, dtype=lib.float64), lib.zeros(1, 2, 5, dtype=lib.float64))
        with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 2, 2\)"):
            lstm(x, bad_h)
        bad_c = (lib.zeros(1, 2, 2, dtype=lib.float64), lib.zeros(1, 2, 2, dtype=lib.float64))
        with pytest.raises(RuntimeError, match=r"Expected hidden\[1\] size \(1, 2, 5\)"):
            lstm(x, bad_c)
