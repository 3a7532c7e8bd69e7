"""Shared by the ONNX export tests: export with ember, run in onnxruntime, compare with ember."""
import io

import numpy as np
import pytest

import ember
from ember import nn

onnx = pytest.importorskip("onnx", reason="onnx (the `onnx` extra) is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")


def export_bytes(model, args, **options):
    """The ONNX model ember writes (into a file object), after onnx's checker accepted it."""
    buffer = io.BytesIO()
    ember.onnx.export(model, args, buffer, **options)
    data = buffer.getvalue()
    onnx.checker.check_model(onnx.load_from_string(data), full_check=True)
    return data


def session(data):
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"])


def run_both(model, args, data, names):
    """(onnxruntime's outputs, ember's outputs) of ``model`` on ``args``."""
    feeds = {n: a.numpy() for n, a in zip(names, args)}
    got = session(data).run(None, feeds)
    with ember.no_grad():
        expected = model(*args)
    expected = expected if isinstance(expected, (tuple, list)) else (expected,)
    return got, [e.numpy() for e in expected]


def assert_matches(model, args, rtol=1e-5, atol=1e-6, **options):
    """Export ``model`` on ``args``; onnxruntime's outputs equal ember's; returns the bytes."""
    model.eval()
    names = [f"x{i}" for i in range(len(args))]
    data = export_bytes(model, tuple(args), input_names=names, **options)
    got, expected = run_both(model, args, data, names)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_allclose(g, e, rtol=rtol, atol=atol)
    return data


class Lambda(nn.Module):
    """A module whose forward is ``fn`` (one op or expression to export)."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)
