"""The graph under construction (ember/onnx/_builder.py): names, initializers and constants."""
import numpy as np
import pytest

import ember
from ember.onnx._builder import Graph

onnx = pytest.importorskip("onnx", reason="onnx (the `onnx` extra) is not installed")
numpy_helper = onnx.numpy_helper


def _graph(opset=20, state=None, export_params=True):
    return Graph(onnx, opset, state or {}, export_params)


def _initializer(g, name):
    (found,) = [numpy_helper.to_array(i) for i in g.initializers if i.name == name]
    return found


def test_unknown_tensor_becomes_a_constant_with_its_value():
    g = _graph()
    t = ember.tensor([[1.0, 2.0]])
    name = g.name(t)
    np.testing.assert_array_equal(_initializer(g, name), t.numpy())
    assert g.name(t) == name and name in g.constant  # named once


def test_parameters_are_initializers_named_by_the_state_dict_and_made_when_used():
    model = ember.nn.Linear(2, 3)
    state = {id(p): (n, p) for n, p in model.named_parameters()}
    g = _graph(state=state)
    assert not g.initializers
    assert g.name(model.weight) == "weight"
    np.testing.assert_array_equal(_initializer(g, "weight"), model.weight.detach().numpy())
    assert [i.name for i in g.initializers] == ["weight"]


def test_without_export_params_parameters_are_graph_inputs():
    model = ember.nn.Linear(2, 3)
    g = _graph(state={id(model.bias): ("bias", model.bias)}, export_params=False)
    assert g.name(model.bias) == "bias"
    assert not g.initializers and [v.name for v in g.state_inputs] == ["bias"]
    assert "bias" not in g.constant


def test_scalars_keep_their_dtype_and_rank_and_are_shared():
    g = _graph()
    a = g.scalar(0.5, np.float64)
    assert g.scalar(0.5, np.float64) == a and g.scalar(0.5, np.float32) != a
    value = _initializer(g, a)
    assert value.shape == () and value.dtype == np.float64


def test_operand_casts_a_tensor_of_another_dtype():
    g = _graph()
    name = g.operand(ember.tensor([1, 2]), np.float32)
    assert g.nodes[-1].op_type == "Cast" and g.nodes[-1].output == [name]


@pytest.mark.parametrize("opset,as_input", [(17, False), (18, True)])
def test_axes_are_an_input_or_an_attribute_by_opset(opset, as_input):
    g = _graph(opset)
    g.axes_op("ReduceMean", "x", [1], 18, keepdims=0)
    node = g.nodes[-1]
    assert (len(node.input) == 2) is as_input
    assert any(a.name == "axes" for a in node.attribute) is not as_input
