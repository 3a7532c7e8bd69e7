"""TransformerEncoderLayer/TransformerEncoder vs torch: outputs, gradients, state, errors."""
import numpy as np
import pytest
import torch
from layer_oracle import check_module, rand

import ember


@pytest.mark.parametrize("kw", [
    {}, dict(norm_first=True), dict(activation="gelu", batch_first=True),
    dict(bias=False), dict(activation=lambda x: x.sigmoid()),
])
def test_encoder_layer(kw):
    def make(lib):
        options = dict(kw)
        if callable(options.get("activation")):
            options["activation"] = lib.sigmoid
        return lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **options).double()
    check_module(make, rand(5, 3, 8))


def test_encoder_layer_masks():
    causal = np.triu(np.full((5, 5), -np.inf), 1)
    padding = np.zeros((3, 5), dtype=bool)
    padding[0, 4] = True

    def make(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0,
                                                            batch_first=True).double()

            def forward(self, x):
                return self.layer(x, src_mask=lib.tensor(causal),
                                  src_key_padding_mask=lib.tensor(padding))
        return Net()
    check_module(make, rand(3, 5, 8))


def test_encoder_stack():
    def make(lib):
        layer = lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
        return lib.nn.TransformerEncoder(layer, 2, norm=lib.nn.LayerNorm(8),
                                         enable_nested_tensor=False).double()
    e_mod, t_mod = check_module(make, rand(4, 2, 8))
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    assert e_mod.layers[0].linear1.weight is not e_mod.layers[1].linear1.weight


def test_repr_and_state_dict_keys():
    e = ember.nn.TransformerEncoderLayer(8, 2, 16)
    t = torch.nn.TransformerEncoderLayer(8, 2, 16)
    assert repr(e) == repr(t)
    assert list(e.state_dict()) == list(t.state_dict())


def test_dropout_is_active_in_training_only():
    layer = ember.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5).double()
    x = ember.tensor(rand(4, 2, 8))
    assert not np.allclose(layer(x).detach().numpy(), layer(x).detach().numpy())
    layer.eval()
    np.testing.assert_array_equal(layer(x).detach().numpy(), layer(x).detach().numpy())


def test_bad_activation():
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        ember.nn.TransformerEncoderLayer(8, 2, activation="tanh")
