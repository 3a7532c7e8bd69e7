"""Values that follow dynamic axes (ember/onnx/_dynamic.py): fills and counts rebuilt from the
input's shape at run time, sizes as constants or run-time values; anything else is refused."""
import numpy as np
import pytest
from onnx_roundtrip import Lambda, assert_matches, export_bytes, onnx, run_both

import ember
from ember.onnx import _dynamic
from ember.onnx._builder import Graph


def _graph():
    g = Graph(onnx, 20, {}, True)
    g.add_dynamic_size(2, 3, "x", 0)
    g.add_dynamic_size(5, 6, "x", 1)
    return g


def test_sizes_are_a_constant_or_a_concat_of_run_time_sizes():
    g = _graph()
    constant = _dynamic.sizes(g, [4, np.int64(2)])
    assert constant in g.constant and not g.nodes
    assert _dynamic.size_of(g, 4, 4) == 4 and _dynamic.size_of(g, 4, 5) is None
    mixed = _dynamic.sizes(g, [4, _dynamic.size_of(g, 5, 6)])
    assert [n.op_type for n in g.nodes] == ["Shape", "Gather", "Concat"]
    assert g.nodes[-1].output == [mixed]


@pytest.mark.parametrize("a, b, rebuilt", [
    (np.zeros((2, 4)), np.zeros((3, 4)), True),  # a fill
    (np.arange(5.0) * 0.5 + 1, np.arange(6.0) * 0.5 + 1, True),  # a count along T
    (np.arange(5) ** 2, np.arange(6) ** 2, False),  # neither
    (np.arange(4), np.arange(5), False),  # no dynamic axis has sizes 4 and 5
    (np.ones((2, 2)), np.ones((2, 2)) * 2, False),  # same shape: a constant or not
    (np.where(np.tril(np.ones((5, 5))), 0, -np.inf), np.where(np.tril(np.ones((6, 6))), 0,
                                                              -np.inf), True),  # causal mask
    (np.tril(np.ones((5, 5)), 1), np.tril(np.ones((6, 6)), 2), False)])  # diagonals differ
def test_rebuild(a, b, rebuilt):
    g = _graph()
    assert _dynamic.rebuild(g, object(), a, b) is rebuilt


def test_fill_and_count_along_a_second_dynamic_axis():
    class Net(ember.nn.Module):
        def forward(self, x):
            mask = ember.ones(x.size(1), x.size(1)).tril()
            return (x @ mask) * ember.arange(x.size(1)).float() + ember.zeros(x.size(0), 1)
    ember.manual_seed(1)
    model = Net()
    data = assert_matches(model, (ember.randn(2, 5),), dynamic_axes={"x0": [0, 1]})
    got, expected = run_both(model, (ember.randn(4, 7),), data, ["x0"])
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-6)


def test_size_of_two_axes_with_the_same_sizes_is_refused():
    """At batch 3 and length 3, arange(x.size(1)) could follow either axis."""
    model = Lambda(lambda x: x + ember.arange(x.size(1)).float())
    with pytest.raises(RuntimeError, match="operand 0 of ToCopyBackward0 was computed"):
        export_bytes(model, (ember.randn(3, 3),), input_names=["x"], dynamic_axes={"x": [0, 1]})


def test_causal_attention_follows_the_sequence_length():
    """scaled_dot_product_attention(is_causal=True) (nanoGPT's flash path) makes its mask for
    the traced length: rebuilt with Trilu from the run-time length."""
    import ember.nn.functional as F
    model = Lambda(lambda x: F.scaled_dot_product_attention(x, x * 0.5, -x, is_causal=True))
    data = assert_matches(model, (ember.randn(2, 2, 5, 4),), dynamic_axes={"x0": [0, 2]},
                          atol=1e-5)
    for shape in ((3, 2, 7, 4), (1, 2, 1, 4)):
        got, expected = run_both(model, (ember.randn(*shape),), data, ["x0"])
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-5)


def test_reshape_groups():
    assert _dynamic._groups((2, 3, 4), (6, 4)) == [((0, 2), (0, 1)), ((2, 3), (1, 2))]
    assert _dynamic._groups((2, 12), (2, 3, 4, 1)) == [((0, 1), (0, 1)), ((1, 2), (1, 4))]
    assert _dynamic._groups((2, 3), (3, 2)) == [((0, 2), (0, 2))]
    assert _dynamic._groups((2, 0), (0, 2)) is None


def test_reshape_sizes_of_a_split_read_the_input_size():
    g = _graph()
    found = _dynamic.reshape_sizes(g, "x", ((4, 30), (4, 3, 10)), ((4, 36), (4, 3, 12)))
    assert found[:2] == [4, 3] and g.nodes[-1].op_type == "Div" and found[2] == g.nodes[-1].output[0]
    # (2, 15) -> (3, 10) is neither a merge nor a split
    assert _dynamic.reshape_sizes(g, "x", ((2, 15), (3, 10)), ((2, 18), (3, 12))) is None


def test_reshape_of_merged_dynamic_axes():
    """(N, 2, 3, H, W) permuted to (N, H, 2, W, 3) and merged to (N, 2H, 3W), as PixelShuffle."""
    model = Lambda(lambda x: x.view(x.size(0), 2, 3, x.size(2), x.size(3)).permute(0, 3, 1, 4, 2)
                   .reshape(x.size(0), x.size(2) * 2, x.size(3) * 3))
    data = assert_matches(model, (ember.randn(2, 6, 4, 5),), dynamic_axes={"x0": [0, 2, 3]})
    got, expected = run_both(model, (ember.randn(3, 6, 8, 9),), data, ["x0"])
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-5, atol=1e-6)
