"""Advanced indexing (ember/onnx/_ops_index.py): integer and boolean index arrays, constant or
computed in the model, exported and run in onnxruntime with ember's outputs, also at another
batch size on a dynamic axis."""
import numpy as np
import pytest
from onnx_roundtrip import Lambda, assert_matches, export_bytes, run_both

import ember

CASES = {
    "long_tensor": lambda x: x[ember.tensor([0, 1, 0])],
    "list": lambda x: x[:, [3, 0, -1]],
    "on_a_later_dim": lambda x: x[:, 1:, ember.tensor([[4, 0], [2, -2]])],
    "ellipsis": lambda x: x[..., ember.tensor([1, 3])],
    "int_and_array": lambda x: x[1, ember.tensor([0, 2]), 1:3],
    "two_adjacent": lambda x: x[:, ember.tensor([0, 3]), ember.tensor([4, -1])],
    "two_apart_broadcast": lambda x: x[ember.tensor([0, 1]), :, ember.tensor([[1], [2]])],
    "bool_mask": lambda x: x[:, ember.tensor([True, False, True, True])],
    "bool_mask_2d": lambda x: x[:, ember.tensor([[True, False, True, False, True]] * 4)],
    "computed_indices": lambda x: x[:, x[0, :, 0].argsort()],
    "computed_mask": lambda x: x[x > 0],
    "computed_mask_on_dim_1": lambda x: x[:, x[0, :, 0] > 0],
    "computed_mask_2d_after_a_slice": lambda x: x[1:, x[0] > 0],
    "masked_select": lambda x: x.masked_select(x > 0.5),
    "index_select": lambda x: x.index_select(2, ember.tensor([3, 0, 3])),
    "gather_computed": lambda x: x.gather(2, x.argsort(2, descending=True)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_index(name):
    ember.manual_seed(0)
    model = Lambda(CASES[name])
    x = ember.randn(2, 4, 5)
    batch = 1 if name in ("long_tensor", "two_apart_broadcast") else 0  # they index dim 0
    data = assert_matches(model, (x,), dynamic_axes={"x0": [batch]})
    shape = list(x.shape)
    shape[batch] += 3
    got, expected = run_both(model, (ember.randn(*shape),), data, ["x0"])
    np.testing.assert_array_equal(got[0], expected[0])


def test_index_computed_outside_the_trace_is_refused():
    model = Lambda(lambda x: x[ember.tensor(x.numpy().argmax(1))])
    with pytest.raises(RuntimeError, match=r"operand 1 of IndexBackward0 was computed"):
        export_bytes(model, (ember.randn(3, 2),))
    model = Lambda(lambda x: x[:, ember.tensor(x.numpy().argmax(1))])
    with pytest.raises(RuntimeError, match=r"the index on dim 1 of IndexBackward0 was computed"):
        export_bytes(model, (ember.randn(3, 2),))


def test_mask_of_the_model_next_to_other_arrays_is_refused():
    model = Lambda(lambda x: x[x[:, 0] > 0, ember.tensor([1])])
    with pytest.raises(RuntimeError, match="a boolean mask computed by the model next to other"):
        export_bytes(model, (ember.randn(3, 2),))
