"""RNN/LSTM/GRU layers and cells vs torch: outputs, states, gradients, names, init, errors."""
import math
import warnings

import numpy as np
import pytest
import torch
from layer_oracle import check_init_bounds, check_module, rand
from oracle import same_error

import ember

LAYER_OPTIONS = [
    {}, dict(num_layers=2), dict(batch_first=True), dict(bidirectional=True),
    dict(num_layers=2, bidirectional=True, batch_first=True, bias=False),
]


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("kw", LAYER_OPTIONS)
def test_layers(cls, kw):
    shape = (2, 5, 4) if kw.get("batch_first") else (5, 2, 4)
    check_module(lambda lib: getattr(lib.nn, cls)(4, 3, **kw).double(), rand(*shape))


def test_rnn_relu():
    check_module(lambda lib: lib.nn.RNN(4, 3, 2, "relu").double(), rand(5, 2, 4))


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_initial_states_and_unbatched(cls):
    directions, layers = 2, 2
    h0 = rand(layers * directions, 2, 3, seed=4)
    states = (h0, rand(*h0.shape, seed=5)) if cls == "LSTM" else (h0,)

    def make(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.rnn = getattr(lib.nn, cls)(4, 3, layers, bidirectional=True).double()

            def forward(self, x, *hx):
                return self.rnn(x, tuple(hx) if cls == "LSTM" else hx[0])
        return Net()
    check_module(make, rand(5, 2, 4), *states)
    unbatched = tuple(s[:, 0] for s in states)
    check_module(make, rand(5, 4), *unbatched)


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
@pytest.mark.parametrize("with_state", [False, True])
def test_cells(cls, with_state):
    states = []
    if with_state:
        states = [rand(2, 3, seed=4)] + ([rand(2, 3, seed=5)] if cls == "LSTMCell" else [])

    def make(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.cell = getattr(lib.nn, cls)(4, 3).double()

            def forward(self, x, *hx):
                if not hx:
                    return self.cell(x)
                return self.cell(x, tuple(hx) if cls == "LSTMCell" else hx[0])
        return Net()
    check_module(make, rand(2, 4), *states)
    check_module(make, rand(4), *[s[0] for s in states])


def test_state_dict_names_and_init():
    for cls, gates in (("RNN", 1), ("LSTM", 4), ("GRU", 3)):
        e = getattr(ember.nn, cls)(5, 7, 2, bidirectional=True)
        t = getattr(torch.nn, cls)(5, 7, 2, bidirectional=True)
        assert list(e.state_dict()) == list(t.state_dict())
        assert [p.shape for p in e.parameters()] == [tuple(p.shape) for p in t.parameters()]
        assert e.weight_ih_l0.shape == (gates * 7, 5)
        for p in e.parameters():
            check_init_bounds(p, 1 / math.sqrt(7))
    cell = ember.nn.LSTMCell(4, 6)
    assert list(cell.state_dict()) == list(torch.nn.LSTMCell(4, 6).state_dict())
    check_init_bounds(cell.weight_hh, 1 / math.sqrt(6))


def test_repr():
    for cls, args, kw in [("LSTM", (3, 4, 2), dict(batch_first=True, bidirectional=True,
                                                    dropout=0.1)),
                          ("GRU", (3, 4), dict(bias=False)), ("LSTMCell", (3, 4), {}),
                          ("GRUCell", (3, 4), dict(bias=False))]:
        assert repr(getattr(ember.nn, cls)(*args, **kw)) == repr(getattr(torch.nn, cls)(*args,
                                                                                         **kw))


@pytest.mark.parametrize("call,error,message", [
    (lambda nn: nn.LSTM(4, 5, 2)(nn.zeros(3, 2, 3)), RuntimeError,
     "input.size(-1) must be equal to input_size. Expected 4, got 3"),
    (lambda nn: nn.LSTM(4, 5)(nn.zeros(3, 2, 4, 1)), ValueError,
     "LSTM: Expected input to be 2D or 3D, got 4D instead"),
    (lambda nn: nn.LSTM(4, 5, 2)(nn.zeros(3, 2, 4), (nn.zeros(2, 3, 5), nn.zeros(2, 2, 5))),
     RuntimeError, "Expected hidden[0] size (2, 2, 5), got [2, 3, 5]"),
    (lambda nn: nn.GRU(4, 5)(nn.zeros(3, 2, 4), nn.zeros(1, 3, 5)), RuntimeError,
     "Expected hidden size (1, 2, 5), got [1, 3, 5]"),
    (lambda nn: nn.LSTMCell(4, 5)(nn.zeros(3, 2, 4)), ValueError,
     "LSTMCell: Expected input to be 1D or 2D, got 3D instead"),
    (lambda nn: nn.GRUCell(4, 5)(nn.zeros(3, 3)), RuntimeError,
     "input has inconsistent input_size: got 3 expected 4"),
    (lambda nn: nn.LSTM(4, 5, dropout=2), ValueError, "dropout should be a number in range"),
])
def test_errors_match_torch(call, error, message):
    class Lib:
        def __init__(self, lib):
            self.lib = lib

        def __getattr__(self, name):
            return getattr(self.lib.nn, name, None) or getattr(self.lib, name)
    for lib in (torch, ember):
        with pytest.raises(error) as info:
            call(Lib(lib))
        assert message in str(info.value)


def test_dropout_warning_single_layer():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ember.nn.GRU(4, 5, dropout=0.5)
    assert "non-zero dropout expects num_layers greater than 1" in str(caught[0].message)


def test_float32_lstm():
    check_module(lambda lib: lib.nn.LSTM(4, 8, batch_first=True), rand(3, 6, 4, dtype=np.float32),
                 rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("mode,gates", [("LSTM", 4), ("GRU", 3), ("RNN_TANH", 1),
                                        ("RNN_RELU", 1)])
@pytest.mark.parametrize("reverse", [False, True])
def test_fused_recurrence_matches_its_reference_to_second_order(mode, gates, reverse):
    from ember.ops.recurrent import recurrence, reference
    rng = np.random.default_rng(0)
    shapes = [(5, 3, gates * 4), (gates * 4, 4), (gates * 4,), (3, 4)] + \
        ([(3, 4)] if mode == "LSTM" else [])
    results = []
    for fn in (recurrence, reference):
        inputs = [ember.tensor(rng.standard_normal(s) * 0.5, requires_grad=True) for s in shapes]
        rng = np.random.default_rng(0)  # same values for both runs
        args = inputs + ([None] if mode != "LSTM" else [])
        out = fn(mode, *args, reverse)
        seed = ember.tensor(np.random.default_rng(1).standard_normal(tuple(out.shape)))
        grads = ember.autograd.grad(out, inputs, seed, create_graph=True)
        total = sum((g * g).sum() for g in grads)
        second = ember.autograd.grad(total, inputs)
        results.append([out] + list(grads) + list(second))
    for fused, ref in zip(*results):
        np.testing.assert_allclose(fused.detach().numpy(), ref.detach().numpy(), rtol=1e-7,
                                   atol=1e-10)


def test_inter_layer_dropout_only_in_training():
    lstm = ember.nn.LSTM(4, 6, num_layers=2, dropout=0.5).double()
    x = ember.tensor(rand(5, 3, 4))
    first, second = lstm(x)[0].detach().numpy(), lstm(x)[0].detach().numpy()
    assert not np.allclose(first, second)
    lstm.eval()
    np.testing.assert_array_equal(lstm(x)[0].detach().numpy(), lstm(x)[0].detach().numpy())


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_backward_twice_with_retain_graph_matches_torch(name):
    # the fused node dropped its per-step values after the first backward (TypeError)
    x = np.random.default_rng(3).standard_normal((5, 2, 3))
    layers = {lib: getattr(lib.nn, name)(3, 4).double() for lib in (ember, torch)}
    for p, q in zip(layers[torch].parameters(), layers[ember].parameters()):
        p.data = torch.tensor(q.detach().numpy())
    grads = []
    for lib, layer in layers.items():
        xt = lib.tensor(x, requires_grad=True)
        loss = (layer(xt)[0] ** 2).sum()
        loss.backward(retain_graph=True)
        loss.backward()
        grads.append(xt.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10, atol=1e-12)


def test_lstm_output_modified_in_place_raises_as_torch():
    # the fused node keeps its output (the hidden states) for backward, as torch's does
    for lib in (torch, ember):
        out, _ = lib.nn.LSTM(3, 4)(lib.randn(5, 2, 3))
        out.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


def _names(lib, cls, dtype, kw, shape):
    lib.manual_seed(0)
    layer = getattr(lib.nn, cls)(3, 4, **kw).to(getattr(lib, dtype))
    out, state = layer(lib.randn(*shape, dtype=getattr(lib, dtype)))
    states = state if isinstance(state, tuple) else (state,)
    names = [type(t.grad_fn).__name__ for t in (out,) + states]
    if cls == "LSTM" and dtype == "float32" and len(shape) == 3:  # h_n, c_n: outputs 1 and 2
        names += [(type(n).__name__, nr) for t in states for n, nr in t.grad_fn.next_functions]
    return names


@pytest.mark.parametrize("cls", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw, shape", [
    ({}, (5, 2, 3)), (dict(num_layers=2), (5, 2, 3)), (dict(batch_first=True), (2, 5, 3)),
    (dict(bidirectional=True), (5, 2, 3)), (dict(num_layers=2, bidirectional=True,
                                                 batch_first=True), (2, 5, 3)),
    ({}, (5, 3))])
def test_output_and_state_grad_fns_are_named_as_in_torch(cls, dtype, kw, shape):
    # the float32 LSTM's output was SliceBackward0 (a slice of the fused node's one result);
    # torch's CPU LSTM node has the hidden states, h and c as three outputs
    assert _names(ember, cls, dtype, kw, shape) == _names(torch, cls, dtype, kw, shape)


@pytest.mark.parametrize("kw", [{}, dict(bidirectional=True, batch_first=True)])
def test_lstm_gradients_of_all_three_outputs_to_second_order(kw):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((3, 2, 3))
    layers = {lib: lib.nn.LSTM(3, 4, **kw).double() for lib in (torch, ember)}
    for p, q in zip(layers[torch].parameters(), layers[ember].parameters()):
        q.data = ember.tensor(p.detach().numpy())
    results = []
    for lib, layer in layers.items():
        xt = lib.tensor(x, requires_grad=True)
        out, (h, c) = layer(xt)
        seeds = [lib.tensor(np.random.default_rng(i).standard_normal(tuple(t.shape)))
                 for i, t in enumerate((out, h, c))]
        loss = (out * seeds[0]).sum() + (h * seeds[1]).sum() + (c[:, :1] * seeds[2][:, :1]).sum()
        wrt = [xt, layer.weight_hh_l0]
        first = lib.autograd.grad(loss, wrt, create_graph=True)
        second = lib.autograd.grad(sum((g * g).sum() for g in first), wrt)
        results.append([t.detach().numpy() for t in first + second])
    for e, t in zip(results[1], results[0]):
        np.testing.assert_allclose(e, t, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_an_empty_sequence_is_refused_as_torch(name):
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0 in RNN"):
            getattr(lib.nn, name)(3, 4)(lib.zeros(0, 2, 3))


@pytest.mark.parametrize("mode", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_input_dtype_other_than_the_weights_raises_torchs_value_error(mode, dtype):
    def call(lib):
        lib.manual_seed(0)
        getattr(lib.nn, mode)(3, 4)(lib.ones(2, 1, 3, dtype=getattr(lib, dtype)))
    same_error(call)


@pytest.mark.parametrize("mode", ["RNN", "GRU", "LSTM"])
@pytest.mark.parametrize("hdtype", ["float64", "float16"])
def test_initial_state_of_another_dtype_is_refused(mode, hdtype):
    # ember ran a float32 RNN from a float64 (or float16) initial state; torch raises
    # (RNN/GRU in its GEMM's words, LSTM from oneDNN)
    results = []
    for L in (torch, ember):
        L.manual_seed(0)
        m = getattr(L.nn, mode)(3, 4)
        h = L.zeros(1, 1, 4, dtype=getattr(L, hdtype))
        with pytest.raises(RuntimeError) as info:
            m(L.ones(2, 1, 3), (h, h) if mode == "LSTM" else h)
        results.append(str(info.value))
    if mode != "LSTM":
        assert results[0] == results[1]


@pytest.mark.parametrize("args", [(0, 5), (-1, 3), (0, 0), (3.5, 3), (3, 3.5), (-1, 3, 0)])
def test_constructor_size_checks_as_torch(args):
    # an input_size of 0 built weights of width 0 (torch: ValueError), a float size was taken
    same_error(lambda L: L.nn.LSTM(*args[:2], num_layers=args[2] if len(args) > 2 else 1))
