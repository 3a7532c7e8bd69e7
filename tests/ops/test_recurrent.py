"""The fused recurrences (ember/ops/recurrent.py): one node per layer direction equals the
recurrence written from differentiable ops (``reference``) in values, gradients and second
derivatives, for every mode and both directions, and checks by finite differences."""
import numpy as np
import pytest
import torch

import ember
from ember.autograd import gradcheck
from ember.ops.recurrent import recurrence, reference

GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}
L, N, H = 4, 2, 3


def _inputs(mode, bias=True, seed=0):
    r = np.random.default_rng(seed)
    g = GATES[mode]
    make = lambda *shape: ember.tensor(r.standard_normal(shape) * 0.5, requires_grad=True)  # noqa: E731
    proj, w_hh = make(L, N, g * H), make(g * H, H)
    b_hh = make(g * H) if bias else None
    h0, c0 = make(N, H), make(N, H) if mode == "LSTM" else None
    return [proj, w_hh, b_hh, h0, c0]


def _grads(out, inputs, seed, create_graph=False):
    v = ember.tensor(np.random.default_rng(seed).standard_normal(out.shape))
    used = [x for x in inputs if x is not None]
    return ember.autograd.grad((out * v).sum(), used, create_graph=create_graph)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("mode", sorted(GATES))
def test_fused_node_equals_the_reference(mode, reverse):
    inputs = _inputs(mode)
    fused, ref = recurrence(mode, *inputs, reverse), reference(mode, *inputs, reverse)
    np.testing.assert_allclose(fused._data, ref._data, rtol=1e-12, atol=1e-12)
    for a, b in zip(_grads(fused, inputs, 1), _grads(ref, inputs, 1)):
        np.testing.assert_allclose(a._data, b._data, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", ["LSTM", "GRU"])
def test_second_derivatives_equal_the_reference(mode):
    inputs = _inputs(mode, bias=False)
    used = [x for x in inputs if x is not None]
    sums = []
    for fn in (recurrence, reference):
        g = _grads(fn(mode, *inputs, False), inputs, 2, create_graph=True)
        sums.append(ember.autograd.grad(sum((x * x).sum() for x in g), used))
    for a, b in zip(*sums):
        np.testing.assert_allclose(a._data, b._data, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("dtype, name", [(np.float32, "MkldnnRnnLayerBackward0"),
                                         (np.float64, "StackBackward0")])
def test_grad_fn_names_are_torchs_cpu_nodes(dtype, name):
    # torch runs a float32 LSTM through oneDNN; at other dtypes its output is a stack of steps
    inputs = [ember.tensor(x._data.astype(dtype), requires_grad=True) for x in _inputs("LSTM")]
    assert type(recurrence("LSTM", *inputs, False).grad_fn).__name__ == name


@pytest.mark.parametrize("mode", ["GRU", "RNN_TANH"])
def test_finite_differences(mode):
    proj, w_hh, b_hh, h0, _ = _inputs(mode)
    assert gradcheck(lambda p, w, b, h: recurrence(mode, p, w, b, h, None, True),
                     (proj, w_hh, b_hh, h0))

def _output_grad_fn(lib, cls, **kw):
    lib.manual_seed(0)
    module = getattr(lib.nn, cls)(3, 4, **kw)
    out, _ = module(lib.randn(5, 2, 3))
    return type(out.grad_fn).__name__


@pytest.mark.parametrize("cls, kw", [("GRU", {}), ("GRU", {"num_layers": 2}), ("RNN", {}),
                                     ("RNN", {"num_layers": 2}),
                                     ("RNN", {"nonlinearity": "relu"})])
def test_gru_rnn_output_grad_fn_is_named_as_in_torch(cls, kw):
    # printed as grad_fn=<...> by scripts that print an RNN's output (was <_GRU> / <_RNN>)
    assert _output_grad_fn(ember, cls, **kw) == _output_grad_fn(torch, cls, **kw)
