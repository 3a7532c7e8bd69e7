"""TransformerEncoderLayer/TransformerEncoder vs torch: outputs, gradients, state, errors."""
import warnings

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


# ---------------------------------------------------------------- decoder and Transformer
def _memory_masks(lib, tgt_len, src_len, batch):
    causal = lib.nn.Transformer.generate_square_subsequent_mask(tgt_len, dtype=lib.float64)
    tgt_pad = np.zeros((batch, tgt_len), dtype=bool)
    tgt_pad[0, -1] = True
    mem_pad = np.zeros((batch, src_len), dtype=bool)
    mem_pad[1, -2:] = True
    return dict(tgt_mask=causal, tgt_key_padding_mask=lib.tensor(tgt_pad),
                memory_key_padding_mask=lib.tensor(mem_pad))


@pytest.mark.parametrize("kw", [{}, dict(norm_first=True), dict(activation="gelu", bias=False)])
@pytest.mark.parametrize("masked", [False, True])
def test_decoder_layer(kw, masked):
    def make(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.layer = lib.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, **kw).double()

            def forward(self, tgt, memory):
                masks = _memory_masks(lib, 4, 5, 3) if masked else {}
                return self.layer(tgt, memory, **masks)
        return Net()
    check_module(make, rand(4, 3, 8), rand(5, 3, 8))


def test_decoder_stack_batch_first():
    def make(lib):
        layer = lib.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
        return lib.nn.TransformerDecoder(layer, 2, norm=lib.nn.LayerNorm(8)).double()
    e_mod, t_mod = check_module(make, rand(2, 4, 8), rand(2, 6, 8))
    assert e_mod.layers[0].linear1.weight is not e_mod.layers[1].linear1.weight


@pytest.mark.parametrize("kw", [{}, dict(batch_first=True, norm_first=True)])
def test_transformer_matches_torch(kw):
    def make(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.model = lib.nn.Transformer(8, 2, 2, 2, 16, dropout=0.0, **kw).double()

            def forward(self, src, tgt):
                tgt_len = tgt.shape[1 if kw else 0]
                mask = self.model.generate_square_subsequent_mask(tgt_len, dtype=lib.float64)
                return self.model(src, tgt, tgt_mask=mask, tgt_is_causal=True)
        return Net()
    shape_src, shape_tgt = ((2, 5, 8), (2, 4, 8)) if kw else ((5, 2, 8), (4, 2, 8))
    check_module(make, rand(*shape_src), rand(*shape_tgt))


def test_transformer_surface():
    e, t = ember.nn.Transformer(8, 2, 1, 1, 16), torch.nn.Transformer(8, 2, 1, 1, 16)
    assert repr(e) == repr(t) and list(e.state_dict()) == list(t.state_dict())
    assert repr(ember.nn.Transformer.generate_square_subsequent_mask(3)) == \
        repr(torch.nn.Transformer.generate_square_subsequent_mask(3))
    w = e.encoder.layers[0].linear1.weight.detach().numpy()
    bound = np.sqrt(6 / (8 + 16))  # Xavier-uniform, as torch's _reset_parameters
    assert np.abs(w).max() <= bound and np.abs(w).max() > bound / 2

    class Seq2Seq(ember.nn.Transformer):  # scripts subclass it at import time
        def __init__(self):
            super().__init__(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                             dim_feedforward=16)
    assert isinstance(Seq2Seq(), ember.nn.Module)
    with pytest.raises(RuntimeError, match="the batch number of src and tgt must be equal"):
        e(ember.zeros(3, 2, 8), ember.zeros(3, 4, 8))
    with pytest.raises(RuntimeError, match="feature number of src and tgt must be equal"):
        e(ember.zeros(3, 2, 8), ember.zeros(3, 2, 6))


@pytest.mark.parametrize("kind", ["layer", "stack", "decoder", "transformer"])
def test_mismatched_mask_dtypes_warn_with_torch_names(kind):
    """A bool key padding mask with a float attention mask warns once per call site, naming
    the masks as the module torch warns from names them (src_key_padding_mask and src_mask or
    mask, key_padding_mask and attn_mask)."""
    caught = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        nn = lib.nn
        layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        module = {"layer": layer,
                  "stack": nn.TransformerEncoder(layer, 2, enable_nested_tensor=False),
                  "decoder": nn.TransformerDecoderLayer(8, 2, 16, batch_first=True),
                  "transformer": nn.Transformer(8, 2, 1, 1, 16, batch_first=True)}[kind]
        x = lib.ones(2, 5, 8)
        mask = nn.Transformer.generate_square_subsequent_mask(5)
        padding = lib.zeros(2, 5, dtype=lib.bool)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            if kind == "layer":
                module(x, src_mask=mask, src_key_padding_mask=padding)
            elif kind == "stack":
                module(x, mask=mask, src_key_padding_mask=padding)
            elif kind == "decoder":
                module(x, x, tgt_mask=mask, tgt_key_padding_mask=padding)
            else:
                module(x, x, src_mask=mask, tgt_mask=mask, src_key_padding_mask=padding,
                       tgt_key_padding_mask=padding)
        caught.append([str(w.message) for w in seen if "mismatched" in str(w.message)])
    assert caught[1] == caught[0] and caught[0]
