"""ember.onnx.export (ember/onnx/_export.py): real models (MLP, LeNet with BatchNorm, a
nanoGPT-style decoder) exported by tracing run in onnxruntime with ember's outputs, also at another
batch size on a dynamic axis, and agree with torch's own export of the same weights."""
import io
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from onnx_roundtrip import assert_matches, export_bytes, onnx, run_both, session

import ember
import ember.nn.functional as F
import ember.onnx  # the import form scripts use (`import torch.onnx`)
from ember import nn


def _mlp(lib=ember):
    nn = lib.nn
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 4),
                         nn.Softmax(dim=1))


def _classes(lib):
    """LeNet and GPT written once over ``lib`` (ember, or torch for its own export)."""
    nn, F = lib.nn, lib.nn.functional

    class LeNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.bn1 = nn.Conv2d(1, 6, 5, padding=2), nn.BatchNorm2d(6)
            self.conv2, self.bn2 = nn.Conv2d(6, 16, 5), nn.BatchNorm2d(16)
            self.fc1, self.fc2 = nn.Linear(16 * 5 * 5, 32), nn.Linear(32, 10)
            self.pool = nn.AdaptiveAvgPool2d(1)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
            x = F.avg_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
            x = x.view(x.size(0), -1)
            x = F.dropout(F.relu(self.fc1(x)), 0.5, self.training)
            return F.log_softmax(self.fc2(x), dim=1)


    class CausalSelfAttention(nn.Module):
        def __init__(self, n_embd, n_head, block_size):
            super().__init__()
            self.c_attn, self.c_proj = nn.Linear(n_embd, 3 * n_embd), nn.Linear(n_embd, n_embd)
            self.n_head, self.drop = n_head, nn.Dropout(0.1)
            self.register_buffer("bias", lib.tril(lib.ones(block_size, block_size))
                                 .view(1, 1, block_size, block_size))

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(C, dim=2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float("-inf"))
            att = self.drop(F.softmax(att, dim=-1))
            y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
            return self.c_proj(y)


    class Block(nn.Module):
        def __init__(self, n_embd, n_head, block_size):
            super().__init__()
            self.ln_1, self.ln_2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)
            self.attn = CausalSelfAttention(n_embd, n_head, block_size)
            self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(),
                                     nn.Linear(4 * n_embd, n_embd))

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))


    class GPT(nn.Module):
        def __init__(self, vocab=11, block_size=8, n_embd=16, n_head=4):
            super().__init__()
            self.wte, self.wpe = nn.Embedding(vocab, n_embd), nn.Embedding(block_size, n_embd)
            self.blocks = nn.ModuleList([Block(n_embd, n_head, block_size) for _ in range(2)])
            self.ln_f, self.lm_head = nn.LayerNorm(n_embd), nn.Linear(n_embd, vocab, bias=False)
            self.wte.weight = self.lm_head.weight  # tied, as nanoGPT

        def forward(self, idx):
            pos = lib.arange(0, idx.size(1), dtype=lib.long)
            x = self.wte(idx) + self.wpe(pos)
            for block in self.blocks:
                x = block(x)
            return self.lm_head(self.ln_f(x))

    return LeNet, GPT


LeNet, GPT = _classes(ember)


def _gpt_input(batch):
    return ember.randint(0, 11, (batch, 8))


MODELS = {"mlp": (_mlp, lambda b: ember.randn(b, 6)),
          "lenet": (LeNet, lambda b: ember.randn(b, 1, 28, 28)),
          "gpt": (GPT, _gpt_input)}


def _trained_batch_norm(model, make_input):
    """Running statistics that are not the initial ones: a few forward passes in training."""
    model.train()
    with ember.no_grad():
        for _ in range(3):
            model(make_input(4) * 2 + 1 if make_input(1).is_floating_point() else make_input(4))
    model.eval()


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_runs_in_onnxruntime_at_another_batch_size(name):
    ember.manual_seed(0)
    make, make_input = MODELS[name]
    model = make()
    _trained_batch_norm(model, make_input)
    model.train()  # export runs the model in eval mode and restores the mode
    data = export_bytes(model, (make_input(2),), input_names=["x"], output_names=["y"],
                        dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    assert model.training
    model.eval()
    graph = onnx.load_from_string(data).graph
    assert graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    for batch in (2, 5):
        got, expected = run_both(model, (make_input(batch),), data, ["x"])
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(MODELS))
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch: its legacy exporter
def test_agrees_with_torchs_export_of_the_same_weights(name):
    torch = pytest.importorskip("torch")
    ember.manual_seed(3)
    make, make_input = MODELS[name]
    model = make().eval()
    twin = (_mlp(torch) if name == "mlp" else
            dict(zip(("lenet", "gpt"), _classes(torch)))[name]()).eval()
    twin.load_state_dict({k: torch.from_numpy(v.numpy().copy())
                          for k, v in model.state_dict().items()})
    x = make_input(3)
    buffer = io.BytesIO()
    torch.onnx.export(twin, (torch.from_numpy(x.numpy()),), buffer, input_names=["x"],
                      dynamo=False)
    (theirs,) = session(buffer.getvalue()).run(None, {"x": x.numpy()})
    (ours,) = session(export_bytes(model, (x,), input_names=["x"])).run(None, {"x": x.numpy()})
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_written_to_a_path_with_initializers_named_by_the_state_dict(tmp_path):
    ember.manual_seed(4)
    model = _mlp()
    path = tmp_path / "mlp.onnx"
    ember.onnx.export(model, ember.randn(3, 6), str(path))
    proto = onnx.load(str(path))
    assert {i.name for i in proto.graph.initializer} >= set(model.state_dict())
    assert proto.opset_import[0].version == 20  # torch 2.13's default opset
    assert [i.name for i in proto.graph.input] == ["input_0"]


def test_keyword_inputs_and_several_outputs():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 2)

        def forward(self, x, *, scale):
            y = self.fc(x) * scale
            return y, y.sum(-1)
    ember.manual_seed(5)
    model = Net().eval()
    x, scale = ember.randn(4, 3), ember.randn(1, 2)
    data = export_bytes(model, (x,), kwargs={"scale": scale}, input_names=["x", "scale"],
                        output_names=["y", "total"])
    got = session(data).run(["y", "total"], {"x": x.numpy(), "scale": scale.numpy()})
    with ember.no_grad():
        expected = model(x, scale=scale)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e.numpy(), rtol=1e-6)


def test_export_params_false_makes_the_weights_inputs():
    ember.manual_seed(6)
    model = nn.Sequential(nn.Linear(3, 2), nn.Tanh()).eval()
    data = export_bytes(model, (ember.randn(2, 3),), input_names=["x"], export_params=False)
    graph = onnx.load_from_string(data).graph
    assert not graph.initializer
    assert [i.name for i in graph.input] == ["x", "0.weight", "0.bias"]
    x = ember.randn(2, 3)
    feeds = {"x": x.numpy(), **{k: v.numpy() for k, v in model.state_dict().items()}}
    (got,) = session(data).run(None, feeds)
    np.testing.assert_allclose(got, model(x).detach().numpy(), rtol=1e-6)


def test_value_from_an_untraced_op_is_refused():
    """A value the model computed from its input outside ember's ops must not become a
    constant of the exported model."""
    class Net(nn.Module):
        def forward(self, x):
            return x + ember.tensor(x.numpy().mean(0))
    with pytest.raises(RuntimeError, match=r"operand 1 of AddBackward0 was computed"):
        export_bytes(Net(), (ember.randn(3, 2),))


def test_value_dependent_control_flow_is_refused():
    class Net(nn.Module):
        def forward(self, x):
            return x.exp() if x[0, 0].item() > 0 else x.tanh()
    x = ember.tensor([[1.0, -2.0], [-3.0, -4.0]])
    with pytest.raises(RuntimeError, match="ran different ops on a second example input"):
        export_bytes(Net(), (x,))


def test_filled_constant_made_with_the_batch_size_follows_it():
    class Net(nn.Module):
        def forward(self, x):
            return x + ember.zeros(x.size(0), 1) + ember.ones(1, x.size(0), 2).sum(0)[:, :1]
    model = Net()
    data = assert_matches(model, (ember.randn(3, 2),), dynamic_axes={"x0": [0]})
    got, expected = run_both(model, (ember.randn(6, 2),), data, ["x0"])
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-6)


def test_constant_made_with_the_batch_size_is_refused():
    class Net(nn.Module):
        def forward(self, x):
            squares = ember.tensor([i * i for i in range(x.size(0))])  # neither fill nor count
            return x + squares.view(-1, 1)
    with pytest.raises(RuntimeError, match="operand 0 of ViewBackward0.*dynamic axis"):
        export_bytes(Net(), (ember.randn(3, 2),), input_names=["x"],
                     dynamic_axes={"x": [0]})


def test_bad_arguments():
    model = nn.Linear(2, 2)
    with pytest.raises(ValueError, match="opset 17 or newer, got opset_version=13"):
        export_bytes(model, (ember.randn(1, 2),), opset_version=13)
    with pytest.raises(TypeError, match="unexpected keyword argument 'input_name'"):
        ember.onnx.export(model, (ember.randn(1, 2),), io.BytesIO(), input_name=["x"])
    with pytest.raises(ValueError, match="needs f, the path or binary file"):
        ember.onnx.export(model, (ember.randn(1, 2),))
    with pytest.raises(ValueError, match="does not take dynamic_shapes: name the dynamic axes"):
        export_bytes(model, (ember.randn(1, 2),), dynamic_shapes={"input": {0: "b"}})
    model.train()
    for mode in (ember.onnx.TrainingMode.TRAINING, ember.onnx.TrainingMode.PRESERVE):
        with pytest.raises(ValueError, match="eval mode only, got training=.*training mode"):
            export_bytes(model, (ember.randn(1, 2),), training=mode)
    export_bytes(model, (ember.randn(1, 2),), training=ember.onnx.TrainingMode.EVAL)


def test_missing_onnx_names_the_package(tmp_path):
    script = tmp_path / "script.py"
    script.write_text("import sys\nsys.modules['onnx'] = None\nimport ember, ember.onnx\n"
                      "try:\n    ember.onnx.export(ember.nn.Linear(2, 2), ember.ones(1, 2), 'm')\n"
                      "except ImportError as error:\n    print(error)\n")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=tmp_path, env={"PYTHONPATH": str(root), "PATH": ""}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "pip install onnx" in done.stdout and "ember[onnx]" in done.stdout


def test_conv1d_and_pools():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(3, 4, 3, padding=1, stride=2)

        def forward(self, x):
            return F.relu(self.conv(x)).mean(-1)
    ember.manual_seed(7)
    assert_matches(Net(), (ember.randn(2, 3, 9),), dynamic_axes={"x0": {0: "b"}})


class _InPlace(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc, self.act = nn.Linear(4, 4), nn.ReLU(inplace=True)

    def forward(self, x):
        y = self.fc(x)
        y += x
        y = self.act(y)
        y.mul_(2).masked_fill_(y > 1, 1.0)
        return y - x


def test_in_place_ops_are_followed():
    ember.manual_seed(8)
    assert_matches(_InPlace(), (ember.randn(3, 4),), dynamic_axes={"x0": [0]})


def test_write_through_data_is_followed():
    class Net(nn.Module):
        def forward(self, x):
            y = x * 2
            y.data.mul_(3)  # .data shares y's memory (not its version counter)
            return y + 1
    assert_matches(Net(), (ember.randn(3, 2),))


def test_read_of_a_view_after_its_base_was_written_is_refused():
    class Net(nn.Module):
        def forward(self, x):
            y = x * 2
            row = y[0]  # a view, read after its base changed: not followed
            y.add_(1)
            return row + 1
    with pytest.raises(RuntimeError, match=r"operand 0 of AddBackward0 was modified in place"):
        export_bytes(Net(), (ember.randn(3, 2),))


def test_write_through_an_index_is_refused():
    class Net(nn.Module):
        def forward(self, x):
            y = x * 2
            y[:, 0] = 0  # setitem: not followed by the trace
            return y + 1
    with pytest.raises(RuntimeError, match=r"operand 0 of AddBackward0 was modified in place"):
        export_bytes(Net(), (ember.randn(3, 2),))


def test_gpt_with_dynamic_batch_and_sequence_runs_at_other_lengths():
    """nanoGPT's causal mask ``bias[:, :, :T, :T]`` and positions ``arange(T)`` follow T: a
    Slice whose end is the input's length and a Range, read from its shape at run time."""
    ember.manual_seed(9)
    model = GPT().eval()
    axes = {"idx": {0: "b", 1: "t"}, "logits": {0: "b", 1: "t"}}
    data = export_bytes(model, (ember.randint(0, 11, (2, 5)),), input_names=["idx"],
                        output_names=["logits"], dynamic_axes=axes)
    for batch, length in ((2, 5), (3, 7), (1, 1), (4, 8)):
        got, expected = run_both(model, (ember.randint(0, 11, (batch, length)),), data, ["idx"])
        assert got[0].shape == (batch, length, 11)
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-5)


def test_count_made_with_a_dynamic_size_follows_it():
    class Net(nn.Module):
        def forward(self, x):
            steps = ember.arange(3, 3 + 2 * x.size(1), 2, dtype=ember.float32)
            return x * steps + ember.arange(x.size(0)).view(-1, 1)
    model = Net()
    data = assert_matches(model, (ember.randn(3, 4),), dynamic_axes={"x0": [0, 1]})
    got, expected = run_both(model, (ember.randn(6, 2),), data, ["x0"])
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-6)


def test_output_made_outside_the_trace_is_refused():
    """An output no traced op made was written as a constant (the traced values) before."""
    class Net(nn.Module):
        def forward(self, x):
            return x * 2, ember.tensor(x.numpy().cumsum(0))
    with pytest.raises(RuntimeError, match=r"output 1 of the model was computed from the model's "
                                           "inputs by an op the export does not trace"):
        export_bytes(Net(), (ember.randn(3, 2),))


def test_failure_on_the_second_example_input_says_so():
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mask", ember.ones(4, 4).tril())

        def forward(self, x):  # a length 4 works, a length 5 does not
            return x.masked_fill(self.mask[:x.size(0), :x.size(0)] == 0, 0.0)
    with pytest.raises(RuntimeError, match="forward failed on the second example input"):
        export_bytes(Net(), (ember.randn(4, 4),), input_names=["x"],
                     dynamic_axes={"x": [0, 1]})


class _Written(nn.Module):
    """Writes through NumPy during its forward, which the trace cannot see."""

    def __init__(self, case):
        super().__init__()
        self.case = case
        self.register_buffer("count", ember.zeros(2))

    def forward(self, x):
        y = x * 2
        if self.case == "read_later":
            y.numpy()[0] = 0
        elif self.case == "input":
            x.numpy()[0] = 0
        elif self.case == "view_as_array":
            np.asarray(y[1])[:] = 1
        elif self.case == "buffer":
            self.count.numpy()[0] += 1
            return y + self.count
        elif self.case == "output":
            out = y + 1
            out.numpy()[:, 0] = 0
            return out
        return y + x


@pytest.mark.parametrize("case, message", [
    ("read_later", "operand 0 of AddBackward0 was changed outside ember's ops"),
    ("input", "operand 1 of AddBackward0 was changed outside ember's ops"),
    ("view_as_array", "operand 0 of AddBackward0 was changed outside ember's ops"),
    ("buffer", "operand 1 of AddBackward0 was changed outside ember's ops"),
    ("output", "a tensor of the model's forward was changed outside ember's ops")])
def test_write_through_numpy_is_refused(case, message):
    """The exported graph would compute without the write (silently other values)."""
    with pytest.raises(RuntimeError, match=message + r" \(a write through .numpy\(\)"):
        export_bytes(_Written(case), (ember.randn(3, 2),))
    assert_matches(_Written("none"), (ember.randn(3, 2),))  # reads alone are followed


def test_nanogpt_inference_output_logits_of_the_last_position_and_none():
    """nanoGPT without targets: ``lm_head(x[:, [-1], :]), None``; torch's export leaves the
    None out and flattens nested outputs."""
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.gpt = GPT()

        def forward(self, idx):
            logits = self.gpt(idx)
            return logits[:, [-1], :], None, (logits.sum(-1),)
    ember.manual_seed(10)
    model = Net().eval()
    data = export_bytes(model, (ember.randint(0, 11, (2, 5)),), input_names=["idx"],
                        dynamic_axes={"idx": {0: "b", 1: "t"}})
    assert len(onnx.load_from_string(data).graph.output) == 2
    idx = ember.randint(0, 11, (3, 7))
    got = session(data).run(None, {"idx": idx.numpy()})
    with ember.no_grad():
        last, _, (total,) = model(idx)
    np.testing.assert_allclose(got[0], last.numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got[1], total.numpy(), rtol=1e-5, atol=1e-5)


def test_output_axes_that_follow_a_dynamic_axis_are_named():
    model = nn.Linear(3, 2)
    data = export_bytes(model, (ember.randn(4, 3),), input_names=["x"], output_names=["y"],
                        dynamic_axes={"x": {0: "batch"}})
    (dims,) = [o.type.tensor_type.shape.dim for o in onnx.load_from_string(data).graph.output]
    assert (dims[0].dim_param, dims[1].dim_value) == ("y_dim_0", 2)
    data = export_bytes(model, (ember.randn(4, 3),), input_names=["x"], output_names=["y"],
                        dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    (dims,) = [o.type.tensor_type.shape.dim for o in onnx.load_from_string(data).graph.output]
    assert dims[0].dim_param == "batch"
