"""Seeded default initialisation and dropout draw torch's exact numbers for the layers."""
import numpy as np
import pytest
import torch
from layer_oracle import copy_state, rand
from oracle import close

import ember

LAYERS = [("Conv2d", (3, 6, 5), {}), ("Conv1d", (3, 6, 3), {}), ("ConvTranspose2d", (4, 6, 3), {}),
          ("LSTM", (4, 5, 2), dict(bidirectional=True)), ("GRU", (4, 5), {}),
          ("RNN", (4, 5), {}), ("RNNCell", (4, 5), {}), ("LSTMCell", (4, 5), {}),
          ("GRUCell", (4, 5), {}), ("MultiheadAttention", (8, 2), {}),
          ("MultiheadAttention", (8, 2), dict(kdim=3, vdim=5, add_bias_kv=True)),
          ("TransformerEncoderLayer", (8, 2, 16), {}), ("BatchNorm2d", (3,), {}),
          ("GroupNorm", (2, 4), {}), ("LayerNorm", (4,), {})]


@pytest.mark.parametrize("name,args,kw", LAYERS)
def test_seeded_default_init_equals_torch(name, args, kw):
    torch.manual_seed(0)
    ember.manual_seed(0)
    t_layer, e_layer = getattr(torch.nn, name)(*args, **kw), getattr(ember.nn, name)(*args, **kw)
    for key, value in t_layer.state_dict().items():
        close(e_layer.state_dict()[key], value, rtol=0, atol=0, what=key)


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.LSTM(4, 5, 2, dropout=0.5).double(),
    lambda lib: lib.nn.TransformerEncoderLayer(4, 2, 8, dropout=0.3).double(),
])
def test_training_dropout_equals_torch(make):
    t_layer, e_layer = make(torch), make(ember)
    copy_state(e_layer, t_layer)
    x = rand(3, 2, 4)
    torch.manual_seed(7)
    ember.manual_seed(7)
    t_out, e_out = t_layer(torch.tensor(x)), e_layer(ember.tensor(x))
    t_out = t_out[0] if isinstance(t_out, tuple) else t_out
    e_out = e_out[0] if isinstance(e_out, tuple) else e_out
    close(e_out, t_out, rtol=1e-12, atol=1e-12)
    e_layer.eval()  # dropout was really active: the eval output differs
    e_eval = e_layer(ember.tensor(x))
    e_eval = e_eval[0] if isinstance(e_eval, tuple) else e_eval
    assert not np.allclose(e_out.detach().numpy(), e_eval.detach().numpy())
