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


def test_bounds_counted_from_the_end_of_a_dynamic_axis_follow_it():
    """x[: n - 1] and x[n - 2] on the axis n itself: Python's x[:-1] and x[-2]."""
    model = Lambda(lambda x: x[: x.size(0) - 1, x.size(1) - 2:] * x[x.size(0) - 2, :2])
    data = assert_matches(model, (ember.randn(3, 4),), dynamic_axes={"x0": [0, 1]})
    got, expected = run_both(model, (ember.randn(6, 5),), data, ["x0"])
    assert got[0].shape == (5, 2)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-6)


def test_slice_bound_taken_from_the_batch_size_in_another_way_is_refused():
    model = Lambda(lambda x: x[: 2 * x.size(0) - 4])
    with pytest.raises(RuntimeError, match="a slice bound on dim 0 that follows a dynamic axis"):
        export_bytes(model, (ember.randn(3, 2),), input_names=["x"], dynamic_axes={"x": [0]})


def test_bound_that_could_be_either_size_is_refused():
    """With sizes 2 and 5, 2 is both the first axis' size and the second's minus 3."""
    model = Lambda(lambda x: x[:, : x.size(0)])
    with pytest.raises(RuntimeError, match="a slice bound on dim 1 that follows a dynamic axis"):
        export_bytes(model, (ember.randn(2, 5),), input_names=["x"],
                     dynamic_axes={"x": [0, 1]})


def test_literal_slice_end_stays_literal_on_a_dynamic_axis():
    """x[:2] taken at batch 2 must still take 2 rows at batch 5 (not stay open)."""
    model = Lambda(lambda x: x[:2] * 2 + x[-1:])
    data = assert_matches(model, (ember.randn(2, 3),), dynamic_axes={"x0": [0]})
    got, expected = run_both(model, (ember.randn(5, 3),), data, ["x0"])
    assert got[0].shape == (2, 3)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-6)


def test_index_taken_from_the_batch_size_in_another_way_is_refused():
    model = Lambda(lambda x: x[2 * x.size(0) - 5])
    with pytest.raises(RuntimeError, match="an index on dim 0 that follows a dynamic axis"):
        export_bytes(model, (ember.randn(3, 2),), input_names=["x"], dynamic_axes={"x": [0]})
