"""Linear, convolution, pooling, normalization, embedding and attention ops
(ember/onnx/_ops_nn.py) exported and run in onnxruntime with ember's outputs."""
import numpy as np
import pytest
from onnx_roundtrip import Lambda, assert_matches, export_bytes, run_both, session

import ember
import ember.nn.functional as F
from ember import nn


def _bn(module):
    module.running_mean.copy_(ember.randn(module.num_features))
    module.running_var.copy_(ember.rand(module.num_features) + 0.5)
    return module


def _affine(module):
    """A norm layer whose weight and bias are not the initial ones and 1."""
    with ember.no_grad():
        module.weight.copy_(ember.randn(*module.weight.shape))
        module.bias.copy_(ember.randn(*module.bias.shape))
    return module


MODULES = {
    "linear": (lambda: nn.Linear(5, 3), (4, 5)), "linear_3d": (lambda: nn.Linear(5, 3), (2, 4, 5)),
    "linear_no_bias": (lambda: nn.Linear(5, 3, bias=False), (4, 5)),
    "conv2d": (lambda: nn.Conv2d(2, 4, 3, stride=2, padding=1), (2, 2, 9, 9)),
    "conv2d_groups": (lambda: nn.Conv2d(4, 4, (3, 1), dilation=2, groups=2), (1, 4, 8, 6)),
    "conv1d": (lambda: nn.Conv1d(3, 2, 4, padding=2, bias=False), (2, 3, 10)),
    "maxpool": (lambda: nn.MaxPool2d(3, stride=2, padding=1), (2, 3, 9, 9)),
    "maxpool_ceil": (lambda: nn.MaxPool2d(2, ceil_mode=True), (1, 2, 7, 7)),
    "avgpool": (lambda: nn.AvgPool2d(2), (2, 3, 8, 8)),
    "avgpool_pad": (lambda: nn.AvgPool2d(3, stride=2, padding=1), (2, 3, 9, 9)),
    "avgpool_no_pad_count": (lambda: nn.AvgPool2d(3, 2, 1, count_include_pad=False),
                             (2, 3, 9, 9)),
    "adaptive_global": (lambda: nn.AdaptiveAvgPool2d(1), (2, 3, 5, 7)),
    "adaptive_global_tuple": (lambda: nn.AdaptiveAvgPool2d((1, 1)), (2, 3, 5, 7)),
    "adaptive_divisible": (lambda: nn.AdaptiveAvgPool2d((2, 3)), (2, 3, 4, 9)),
    "layernorm": (lambda: nn.LayerNorm(6), (2, 3, 6)),
    "layernorm_2d_no_affine": (lambda: nn.LayerNorm((3, 6), elementwise_affine=False),
                               (2, 3, 6)),
    "batchnorm1d": (lambda: _bn(nn.BatchNorm1d(4)), (5, 4)),
    "batchnorm2d": (lambda: _bn(nn.BatchNorm2d(3)), (2, 3, 4, 4)),
    "batchnorm2d_no_affine": (lambda: _bn(nn.BatchNorm2d(3, affine=False)), (2, 3, 4, 4)),
    "dropout": (lambda: nn.Dropout(0.3), (4, 5)),
    "conv_transpose1d": (lambda: nn.ConvTranspose1d(3, 2, 4, stride=2, padding=1), (2, 3, 7)),
    "conv_transpose2d": (lambda: nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1,
                                                    output_padding=1, groups=2), (2, 4, 5, 6)),
    "conv_transpose2d_dilated": (lambda: nn.ConvTranspose2d(2, 3, (3, 2), dilation=(2, 1),
                                                            bias=False), (1, 2, 4, 5)),
    "groupnorm": (lambda: _affine(nn.GroupNorm(2, 6)), (2, 6, 3, 4)),
    "groupnorm_1d_no_affine": (lambda: nn.GroupNorm(3, 6, affine=False), (2, 6, 5)),
    "glu": (lambda: nn.GLU(1), (3, 8, 2)),
    "upsample_nearest": (lambda: nn.Upsample(scale_factor=2), (2, 3, 4, 5)),
    "upsample_bilinear": (lambda: nn.Upsample(scale_factor=(2, 3), mode="bilinear"),
                          (2, 3, 4, 5)),
    "upsample_bilinear_align_corners": (lambda: nn.Upsample(size=(7, 9), mode="bilinear",
                                                            align_corners=True), (2, 3, 4, 5)),
    "addmm": (lambda: Lambda(lambda x: ember.addmm(x[0, :1], x[0], x[1].t(), beta=0.5,
                                                   alpha=2.0)), (2, 3, 3)),
    "sdpa": (lambda: Lambda(lambda x: F.scaled_dot_product_attention(x, x * 2, -x)),
             (2, 2, 5, 4)),
    "sdpa_causal": (lambda: Lambda(lambda x: F.scaled_dot_product_attention(
        x, x * 0.5, x, is_causal=True)), (2, 2, 5, 4)),
}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module(name):
    ember.manual_seed(0)
    make, shape = MODULES[name]
    model = make()
    data = assert_matches(model, (ember.randn(*shape),), dynamic_axes={"x0": {0: "batch"}},
                          atol=1e-5)
    got, expected = run_both(model, (ember.randn(shape[0] + 2, *shape[1:]),), data, ["x0"])
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-5)


def test_embedding_and_int_inputs():
    ember.manual_seed(1)
    model = nn.Embedding(7, 3, padding_idx=0)
    assert_matches(model, (ember.tensor([[1, 0, 6], [2, 2, 5]]),))


def test_sdpa_with_a_boolean_mask():
    ember.manual_seed(2)
    mask = ember.ones(5, 5, dtype=ember.bool).tril()
    model = Lambda(lambda q: F.scaled_dot_product_attention(q, q, q, attn_mask=mask))
    assert_matches(model, (ember.randn(2, 2, 5, 4),), atol=1e-5)


def test_multihead_attention():
    ember.manual_seed(3)
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    model = Lambda(lambda x: mha(x, x, x, need_weights=False)[0])
    model.mha = mha
    assert_matches(model, (ember.randn(2, 5, 8),), atol=1e-5)


def test_transformer_encoder_layer():
    ember.manual_seed(4)
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
    assert_matches(layer, (ember.randn(2, 5, 8),), atol=1e-5)


def test_batch_norm_without_running_statistics_is_refused():
    model = nn.BatchNorm1d(3, track_running_stats=False)
    with pytest.raises(RuntimeError, match="native_batch_norm|NativeBatchNorm.*batch statistics"):
        export_bytes(model, (ember.randn(4, 3),))


RECURRENT = {"lstm2": lambda: nn.LSTM(3, 4, num_layers=2),
             "lstm_bi_batch_first": lambda: nn.LSTM(3, 4, batch_first=True, bidirectional=True),
             "gru2_bi": lambda: nn.GRU(3, 4, num_layers=2, bidirectional=True),
             "gru_no_bias": lambda: nn.GRU(3, 4, bias=False), "rnn": lambda: nn.RNN(3, 4),
             "rnn_relu_batch_first": lambda: nn.RNN(3, 4, nonlinearity="relu",
                                                    batch_first=True)}


class _Recurrent(nn.Module):
    def __init__(self, rnn):
        super().__init__()
        self.rnn = rnn

    def forward(self, x, h, c=None):
        if c is None:
            return self.rnn(x, h)
        out, (h, c) = self.rnn(x, (h, c))
        return out, h, c


@pytest.mark.parametrize("name", sorted(RECURRENT))
def test_recurrent_layer(name):
    ember.manual_seed(5)
    rnn = RECURRENT[name]()
    layers = rnn.num_layers * (2 if rnn.bidirectional else 1)
    state = [ember.randn(layers, 2, 4) for _ in range(2 if isinstance(rnn, nn.LSTM) else 1)]
    x = ember.randn(2, 5, 3) if rnn.batch_first else ember.randn(5, 2, 3)
    assert_matches(_Recurrent(rnn), (x, *state), atol=1e-5)


def test_lstm_with_its_default_zero_state():
    ember.manual_seed(6)
    lstm = nn.LSTM(3, 4, batch_first=True)
    model = Lambda(lambda x: lstm(x)[0][:, -1])
    model.lstm = lstm
    assert_matches(model, (ember.randn(2, 6, 3),), atol=1e-5)


def test_lstm_zero_state_follows_a_dynamic_batch():
    ember.manual_seed(7)
    lstm = nn.LSTM(3, 4)
    model = Lambda(lambda x: lstm(x)[0])
    model.lstm = lstm
    data = assert_matches(model, (ember.randn(5, 2, 3),), dynamic_axes={"x0": {1: "batch"}},
                          atol=1e-5)
    got, expected = run_both(model, (ember.randn(5, 4, 3),), data, ["x0"])
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-6)


def test_lstm_state_passed_as_a_tuple_is_two_inputs():
    """The nested (h, c) of the example arguments become graph inputs, not constants."""
    ember.manual_seed(8)
    lstm = nn.LSTM(3, 4)
    model = Lambda(lambda x, state: lstm(x, state)[0])
    model.lstm = lstm
    x, state = ember.randn(5, 2, 3), (ember.randn(1, 2, 4), ember.randn(1, 2, 4))
    data = export_bytes(model, (x, state), input_names=["x", "h", "c"])
    state2 = (ember.randn(1, 2, 4), ember.randn(1, 2, 4))
    (got,) = session(data).run(None, {"x": x.numpy(), "h": state2[0].numpy(),
                                      "c": state2[1].numpy()})
    np.testing.assert_allclose(got, model(x, state2).detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [lambda: nn.GLU(-1), lambda: nn.PixelUnshuffle(2)])
def test_layer_that_needs_an_even_dynamic_dim(make):
    """The second trace makes each dynamic axis 2 longer when 1 longer fails."""
    ember.manual_seed(9)
    model = make()
    data = export_bytes(model, (ember.randn(2, 3, 4, 6),), input_names=["x"],
                        dynamic_axes={"x": [0, 2, 3]})
    got, expected = run_both(model, (ember.randn(3, 3, 8, 10),), data, ["x"])
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-6)


def test_glu_on_a_dynamic_dim_needs_opset_18():
    with pytest.raises(RuntimeError, match="a halved dim that is dynamic at opset_version 17"):
        export_bytes(nn.GLU(-1), (ember.randn(2, 6),), input_names=["x"],
                     dynamic_axes={"x": [1]}, opset_version=17)
    assert_matches(nn.GLU(-1), (ember.randn(2, 6),), opset_version=17)
