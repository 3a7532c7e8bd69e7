"""torch.onnx (ember/onnx/__init__.py): the public names and is_in_onnx_export, which is False
outside an export and True in the forward an export runs, as torch's (export itself:
tests/onnx/test_export.py)."""
import io

import pytest
import torch

import ember


def test_is_in_onnx_export_answers_as_torch():
    assert ember.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False


def test_public_names():
    import ember.onnx as onnx
    assert set(onnx.__all__) == {"TrainingMode", "export", "is_in_onnx_export"}
    assert callable(onnx.export) and hasattr(torch.onnx, "export")
    for mode in onnx.TrainingMode:  # torch's is a pybind11 enum: compared by name and value
        assert int(getattr(torch.onnx.TrainingMode, mode.name)) == mode.value


def test_is_in_onnx_export_inside_the_traced_forward():
    pytest.importorskip("onnx")
    seen = []

    class Net(ember.nn.Module):
        def forward(self, x):
            seen.append(ember.onnx.is_in_onnx_export())
            return x * 2

    ember.onnx.export(Net(), (ember.ones(2),), io.BytesIO())
    assert seen and all(seen)
    assert ember.onnx.is_in_onnx_export() is False
