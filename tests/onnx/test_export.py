"""ember.onnx.export writes ONNX models that onnxruntime runs with ember's outputs."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ember
import ember.onnx  # the import form scripts use (`import torch.onnx`)

nn = ember.nn
onnx = pytest.importorskip("onnx", reason="onnx (the `onnx` extra) is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")


def _mlp():
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 4),
                         nn.Softmax(dim=1))


class _CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(),
                                      nn.MaxPool2d(2), nn.Conv2d(4, 6, 3, stride=2), nn.Tanh(),
                                      nn.AvgPool2d(2, ceil_mode=True))
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(6, 3), nn.LogSoftmax(dim=-1))

    def forward(self, x):
        return self.head(self.features(x))


@pytest.mark.parametrize("make,shape", [(_mlp, (5, 6)), (_CNN, (2, 1, 12, 12))],
                         ids=["mlp", "cnn"])
def test_exported_model_runs_in_onnxruntime(tmp_path, make, shape):
    ember.manual_seed(0)
    model = make()
    x = ember.randn(*shape)
    path = tmp_path / "model.onnx"
    ember.onnx.export(model, (x,), str(path), input_names=["x"], output_names=["y"],
                      dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})
    assert model.training  # the mode is restored
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    model.eval()
    for batch in (shape[0], 3):  # the batch axis is dynamic
        xb = ember.randn(batch, *shape[1:])
        (got,) = session.run(["y"], {"x": xb.numpy()})
        np.testing.assert_allclose(got, model(xb).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_unsupported_module_is_named(tmp_path):
    model = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3))
    with pytest.raises(RuntimeError, match=r"unsupported module 1 \(BatchNorm1d\)"):
        ember.onnx.export(model, ember.randn(2, 3), str(tmp_path / "m.onnx"))


def test_functional_ops_between_modules_are_refused(tmp_path):
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(3, 3), nn.Linear(3, 2)

        def forward(self, x):
            return self.b(self.a(x) * 2)
    with pytest.raises(RuntimeError, match=r"input of b \(Linear\) was computed outside"):
        ember.onnx.export(Net(), ember.randn(2, 3), str(tmp_path / "m.onnx"))


def test_missing_onnx_names_the_extra(tmp_path):
    script = tmp_path / "script.py"
    script.write_text("import sys\nsys.modules['onnx'] = None\nimport ember, ember.onnx\n"
                      "try:\n    ember.onnx.export(ember.nn.Linear(2, 2), ember.ones(1, 2), 'm')\n"
                      "except ImportError as error:\n    print(error)\n")
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=tmp_path, env={"PYTHONPATH": str(root), "PATH": ""}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "onnx" in done.stdout and "ember[onnx]" in done.stdout
