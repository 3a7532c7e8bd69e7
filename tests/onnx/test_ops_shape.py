"""Shape, indexing and copy ops (ember/onnx/_ops_shape.py) exported and run in onnxruntime with
ember's outputs, with a dynamic batch axis run at another batch size."""
import numpy as np
import pytest
from onnx_roundtrip import Lambda, assert_matches, export_bytes, run_both

import ember
import ember.nn.functional as F
from ember import nn

CASES = {
    "view": lambda x: x.view(x.size(0), 12, 2), "view_flat": lambda x: x.view(-1),
    "reshape": lambda x: x.reshape(-1, 6), "flatten": lambda x: x.flatten(1),
    "nn_flatten": nn.Flatten(), "transpose": lambda x: x.transpose(1, 2),
    "permute": lambda x: x.permute(2, 0, 1), "t": lambda x: x[0].t(),
    "unsqueeze": lambda x: x.unsqueeze(1), "squeeze": lambda x: x[:, :1].squeeze(1),
    "none_index": lambda x: x[:, None, 1:], "ellipsis": lambda x: x[..., 1],
    "slices": lambda x: x[:, 1:3, ::2], "negative_int": lambda x: x[:, -1],
    "int_then_slice": lambda x: x[0, :2], "open_end": lambda x: x[:, 2:],
    "cat": lambda x: ember.cat([x, x * 2], dim=1), "stack": lambda x: ember.stack([x, -x], 1),
    "split": lambda x: x.split(2, dim=1)[1], "chunk": lambda x: x.chunk(2, dim=-1)[0],
    "expand": lambda x: x[:, :1].expand(-1, 5, 6), "repeat": lambda x: x.repeat(1, 2, 1),
    "tril": lambda x: x.tril(), "triu": lambda x: x.triu(1),
    "pad": lambda x: F.pad(x, (1, 2, 0, 1), value=0.5), "clone": lambda x: x.clone(),
    "contiguous": lambda x: x.transpose(1, 2).contiguous().view(x.size(0), -1),
    "matmul_transposed": lambda x: x @ x.transpose(-2, -1),
    "gather": lambda x: x[:1].gather(2, ember.tensor([[[0], [3], [1], [2]]])),
    "index_select": lambda x: x.index_select(2, ember.tensor([3, 0])),
    "double": lambda x: x.double() * 2, "mask_compare": lambda x: (x > 0).float() + x,
    "where_compare": lambda x: ember.where(x < 0.5, x, -x),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_shape_op_with_dynamic_batch(name):
    ember.manual_seed(0)
    model = Lambda(CASES[name])
    data = assert_matches(model, (ember.randn(2, 4, 6 if name != "gather" else 4),),
                          dynamic_axes={"x0": {0: "batch"}})
    x = ember.randn(3, 4, 6 if name != "gather" else 4)
    got, expected = run_both(model, (x,), data, ["x0"])
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-6)


def test_slice_bound_taken_from_the_batch_size_is_refused():
    model = Lambda(lambda x: x[: x.size(0) - 1])
    with pytest.raises(RuntimeError, match="a slice bound on dim 0 that follows a dynamic axis"):
        export_bytes(model, (ember.randn(3, 2),), input_names=["x"], dynamic_axes={"x": [0]})


def test_literal_slice_end_stays_literal_on_a_dynamic_axis():
    """x[:2] taken at batch 2 must still take 2 rows at batch 5 (not stay open)."""
    model = Lambda(lambda x: x[:2] * 2 + x[-1:])
    data = assert_matches(model, (ember.randn(2, 3),), dynamic_axes={"x0": [0]})
    got, expected = run_both(model, (ember.randn(5, 3),), data, ["x0"])
    assert got[0].shape == (2, 3)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-6)


def test_index_taken_from_the_batch_size_is_refused():
    model = Lambda(lambda x: x[x.size(0) - 2])
    with pytest.raises(RuntimeError, match="an index on dim 0 that follows a dynamic axis"):
        export_bytes(model, (ember.randn(3, 2),), input_names=["x"], dynamic_axes={"x": [0]})
