"""Real model shapes exported end to end (ember/onnx): a ConvTranspose autoencoder, a GRU and a
Transformer language model with dynamic batch and sequence, a small UNet with Upsample and cat,
torch's super-resolution tutorial model (PixelShuffle) with dynamic batch, height and width; each
runs in onnxruntime with ember's outputs at other sizes of its dynamic axes, and agrees with
torch's own export of the same weights."""
import io
import math

import numpy as np
import pytest
from onnx_roundtrip import export_bytes, run_both, session

import ember


def _classes(lib):
    """The three models written once over ``lib`` (ember, or torch for its own export)."""
    nn, F = lib.nn, lib.nn.functional

    class AutoEncoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(
                nn.Conv2d(1, 8, 3, stride=2, padding=1), nn.ReLU(),
                nn.Conv2d(8, 16, 3, stride=2, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 7))
            self.decoder = nn.Sequential(
                nn.ConvTranspose2d(32, 16, 7), nn.ReLU(),
                nn.ConvTranspose2d(16, 8, 3, stride=2, padding=1, output_padding=1), nn.ReLU(),
                nn.ConvTranspose2d(8, 1, 3, stride=2, padding=1, output_padding=1), nn.Sigmoid())

        def forward(self, x):
            return self.decoder(self.encoder(x))

    class GRULanguageModel(nn.Module):
        def __init__(self, vocab=13, emb=8, hidden=16):
            super().__init__()
            self.embed, self.drop = nn.Embedding(vocab, emb), nn.Dropout(0.2)
            self.gru = nn.GRU(emb, hidden, num_layers=2, batch_first=True, dropout=0.2)
            self.head = nn.Linear(hidden, vocab)

        def forward(self, idx):
            out, hidden = self.gru(self.drop(self.embed(idx)))
            return F.log_softmax(self.head(self.drop(out)), dim=-1), hidden

    def block(i, o):
        return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(True))

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.down1, self.down2, self.mid = block(3, 8), block(8, 16), block(16, 16)
            self.pool = nn.MaxPool2d(2)
            self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
            self.up1 = block(32, 8)
            self.up2 = nn.Sequential(nn.Upsample(scale_factor=2), block(16, 8))
            self.out = nn.Conv2d(8 + 3, 2, 1)

        def forward(self, x):
            d1 = self.down1(x)
            d2 = self.down2(self.pool(d1))
            u1 = self.up1(lib.cat([self.up(self.mid(self.pool(d2))), d2], 1))
            u2 = self.up2(lib.cat([u1, self.pool(d1)], dim=1))
            return self.out(lib.cat([u2, x], dim=1))

    class TransformerLanguageModel(nn.Module):
        """pytorch/examples' word_language_model shape: a sinusoidal table sliced to the
        sequence length, a causal mask made for it, (T, B) token inputs."""

        def __init__(self, vocab=20, width=16, max_len=32):
            super().__init__()
            table = lib.zeros(max_len, width)  # written in place: its version is not 0
            position = lib.arange(0, max_len, dtype=lib.float).unsqueeze(1)
            rate = lib.exp(lib.arange(0, width, 2).float() * (-math.log(10000.0) / width))
            table[:, 0::2] = lib.sin(position * rate)
            table[:, 1::2] = lib.cos(position * rate)
            self.register_buffer("pe", table.unsqueeze(0).transpose(0, 1))
            self.embed, self.width = nn.Embedding(vocab, width), width
            layer = nn.TransformerEncoderLayer(width, 2, 32, 0.1)
            self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
            self.head = nn.Linear(width, vocab)

        def forward(self, src):
            length = src.size(0)
            mask = lib.triu(lib.ones(length, length) * float("-inf"), diagonal=1)
            x = self.embed(src) * math.sqrt(self.width) + self.pe[:length, :]
            return F.log_softmax(self.head(self.encoder(x, mask)), dim=-1)

    class SuperResolution(nn.Module):
        """torch's ONNX tutorial model: convolutions and PixelShuffle."""

        def __init__(self, upscale=3):
            super().__init__()
            self.body = nn.Sequential(
                nn.Conv2d(1, 16, 5, padding=2), nn.ReLU(), nn.Conv2d(16, 8, 3, padding=1),
                nn.ReLU(), nn.Conv2d(8, upscale ** 2, 3, padding=1), nn.PixelShuffle(upscale))

        def forward(self, x):
            return self.body(x)

    return {"autoencoder": AutoEncoder, "gru_lm": GRULanguageModel, "unet": UNet,
            "transformer_lm": TransformerLanguageModel, "super_resolution": SuperResolution}


def _tokens(*shape):
    return ember.randint(0, 13, shape)


# (make input, example shape, another shape, dynamic axes of the input)
INPUTS = {"autoencoder": (ember.randn, (2, 1, 28, 28), (5, 1, 28, 28), {0: "b"}),
          "gru_lm": (_tokens, (2, 5), (3, 9), {0: "b", 1: "t"}),
          "unet": (ember.randn, (2, 3, 16, 16), (1, 3, 16, 16), {0: "b"}),
          "transformer_lm": (_tokens, (6, 2), (9, 3), {0: "t", 1: "b"}),
          "super_resolution": (ember.randn, (1, 1, 12, 10), (2, 1, 9, 16),
                               {0: "b", 2: "h", 3: "w"})}


def _model(name):
    ember.manual_seed(0)
    model = _classes(ember)[name]()
    model.train()
    make, shape = INPUTS[name][:2]
    with ember.no_grad():  # running statistics that are not the initial ones
        model(make(*shape))
    return model.eval()


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_model_runs_at_other_sizes_of_its_dynamic_axes(name):
    model = _model(name)
    make, shape, other, axes = INPUTS[name]
    data = export_bytes(model, (make(*shape),), input_names=["x"], dynamic_axes={"x": axes})
    for size in (shape, other):
        got, expected = run_both(model, (make(*size),), data, ["x"])
        for g, e in zip(got, expected):
            assert g.shape == e.shape
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(INPUTS))
@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")
def test_agrees_with_torchs_export_of_the_same_weights(name):
    torch = pytest.importorskip("torch")
    model = _model(name)
    twin = _classes(torch)[name]().eval()
    twin.load_state_dict({k: torch.from_numpy(v.numpy().copy())
                          for k, v in model.state_dict().items()})
    make, shape = INPUTS[name][:2]
    x = make(*shape)
    buffer = io.BytesIO()
    torch.onnx.export(twin, (torch.from_numpy(x.numpy()),), buffer, input_names=["x"],
                      dynamo=False)
    theirs = session(buffer.getvalue()).run(None, {"x": x.numpy()})
    ours = session(export_bytes(model, (x,), input_names=["x"])).run(None, {"x": x.numpy()})
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)
