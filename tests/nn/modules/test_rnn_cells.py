"""RNNCell, LSTMCell, GRUCell (ember/nn/modules/rnn_cells.py) beyond the defaults tested with the
recurrent layers (tests/nn/modules/test_rnn.py::test_cells): no bias, relu nonlinearity,
reprs, state_dict keys, the default U(-1/sqrt(hidden), 1/sqrt(hidden)) initialisation, errors."""
import math

import pytest
import torch
from layer_oracle import check_init_bounds, check_module, rand

import ember

CELLS = [("RNNCell", dict(nonlinearity="relu")), ("RNNCell", dict(bias=False)),
         ("LSTMCell", dict(bias=False)), ("GRUCell", dict(bias=False))]


@pytest.mark.parametrize("cls,kw", CELLS, ids=str)
def test_options_match_torch(cls, kw):
    check_module(lambda lib: getattr(lib.nn, cls)(4, 3, dtype=lib.float64, **kw), rand(2, 4))


@pytest.mark.parametrize("cls,kw", CELLS + [("GRUCell", {})], ids=str)
def test_repr_and_state_dict_keys_match_torch(cls, kw):
    e, t = getattr(ember.nn, cls)(4, 3, **kw), getattr(torch.nn, cls)(4, 3, **kw)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
def test_default_init_bounds(cls):
    cell = getattr(ember.nn, cls)(40, 50)
    for p in cell.parameters():
        check_init_bounds(p, 1 / math.sqrt(50))


def test_unknown_nonlinearity_is_rejected_at_construction():
    # torch 2.13 accepts it here and fails only in forward; ember names it before any state
    with pytest.raises(ValueError, match="Unknown nonlinearity: gelu"):
        ember.nn.RNNCell(4, 3, nonlinearity="gelu")


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.GRUCell(4, 3)(lib.zeros(2, 4), lib.zeros(3, 3)),
    lambda lib: lib.nn.LSTMCell(4, 3)(lib.zeros(2, 4), (lib.zeros(2, 3), lib.zeros(2, 2))),
])
def test_errors_match_torch(call):
    errors = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as info:
            call(lib)
        errors.append((info.type, str(info.value).replace("torch", "ember")))
    assert errors[0] == errors[1]
