"""Every node frees what its backward needed once a backward has run without retain_graph: its
saved values and every array cache its forward left on it (statistics, indices, masks,
probabilities). Checked generically over every op of the OpInfo tables (tests/reliability), by
inspecting each node of the graph, and against torch: a second backward raises exactly where
torch's does, with torch's message."""
import os
import sys
import warnings

import numpy as np
import pytest
import torch

import ember
from ember.autograd.function import BackwardCFunction
from ember.autograd.graph import AccumulateGrad, Node

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(__file__)), "reliability"))
from _release_extra import EXTRA  # noqa: E402  (beside this file, on pytest's path)
from opinfo import OPS  # noqa: E402  (the shared op table lives beside the reliability tests)

SECOND_TIME = "Trying to backward through the graph a second time"


def _cases():
    for op in OPS:
        for sample in op.samples[:2]:
            yield pytest.param(op, sample, id=f"{op.name}-{sample.tag}")


def _inputs(lib, sample):
    arrays = [np.asarray(a) for a in sample.args]
    return [lib.tensor(a.copy(), requires_grad=a.dtype.kind == "f") for a in arrays]


def _loss(lib, op, sample):
    """The op's outputs summed to one scalar, or None when nothing needs a gradient."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        out = op.fn(lib, *_inputs(lib, sample))
    outs = out if isinstance(out, (tuple, list)) else (out,)
    parts = [o.sum() for o in outs if isinstance(o, lib.Tensor) and o.requires_grad]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else lib.stack(parts).sum()


def _nodes(root):
    seen, stack = {}, [root]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = node
        stack.extend(n for n, _ in node.next_functions)
    return [n for n in seen.values() if type(n) is not AccumulateGrad]


def _arrays_in(value, depth=0):
    """The arrays an attribute keeps alive (written apart from the engine's own check)."""
    if isinstance(value, np.ndarray) and value.size:
        return [value]
    if isinstance(value, ember.Tensor) and value._data.size:
        return [value._data]
    if isinstance(value, (tuple, list)) and depth < 3:
        return [a for v in value for a in _arrays_in(v, depth + 1)]
    return []


def _kept(node):
    """What ``node`` still holds for a backward: saved values and array attributes."""
    kept = [type(s).__name__ for s in node._saved if s is not None]
    kept += [name for name, v in vars(node).items() if _arrays_in(v)]
    return kept


def _second_backward_error(loss):
    try:
        loss.backward()
    except RuntimeError as error:
        return str(error)
    return None


@pytest.mark.parametrize("op,sample", list(_cases()))
def test_backward_releases_every_node(op, sample):
    loss = _loss(ember, op, sample)
    if loss is None:
        pytest.skip("no gradient")
    _check_release(loss, lambda: _loss(torch, op, sample))


@pytest.mark.parametrize("name", sorted(EXTRA))
def test_backward_releases_the_nodes_the_tables_miss(name):
    _check_release(EXTRA[name](ember), lambda: EXTRA[name](torch))


def _check_release(loss, torch_loss):
    nodes = _nodes(loss.grad_fn)
    with np.errstate(all="ignore"):
        loss.backward()
    held = {type(n).__name__: _kept(n) for n in nodes if _kept(n)}
    assert not held, f"still held after backward: {held}"
    t_loss = torch_loss()
    t_loss.backward()
    expected = _second_backward_error(t_loss)
    with np.errstate(all="ignore"):
        got = _second_backward_error(loss)
    if expected is None:
        assert got is None, f"torch backpropagates a second time, ember raised: {got}"
    else:
        assert got is not None and got.startswith(SECOND_TIME), got


def test_retain_graph_keeps_caches_until_the_last_backward():
    x = ember.randn(4, 6, dtype=ember.float64, requires_grad=True)
    y = ember.nn.functional.layer_norm(x, (6,))
    loss = (y * y).sum()
    node = y.grad_fn
    loss.backward(retain_graph=True)
    assert _kept(node)
    loss.backward()
    assert not _kept(node)
    with pytest.raises(RuntimeError, match=SECOND_TIME):
        loss.backward()


def test_table_reaches_the_nodes_that_cache_arrays():
    """The node classes named by issue 15 are among those the table drives."""
    reached = set()
    for op in OPS:
        loss = _loss(ember, op, op.samples[0])
        if loss is not None:
            reached.update(type(n).__name__ for n in _nodes(loss.grad_fn))
    for name in ("NativeLayerNormBackward0", "NativeBatchNormBackward0", "GeluBackward0",
                 "MaxPool2DWithIndicesBackward0"):
        assert name in reached, name


def _node_classes(cls=Node):
    """Node classes ember defines, less the ones made per autograd.Function subclass (users'
    and other tests' Functions: test_a_custom_function_releases_what_it_saved covers them)."""
    found = set()
    for sub in cls.__subclasses__():
        if sub.__module__.startswith("ember.") and not issubclass(sub, BackwardCFunction):
            found.add(sub)
        found |= _node_classes(sub)
    return found


# Node classes no call can drive through a backward that completes, each with why.
NOT_DRIVEN = {
    "ember.autograd.graph.AccumulateGrad": "the leaf sink; it saves nothing",
    "ember.sparse._nodes.SparseMm": "base of the sparse-dense product nodes",
    "ember.ops.loss_ops._Pointwise": "base of the pointwise loss nodes",
    "ember.ops.normalization._Normalize": "base of the normalization nodes",
    "ember.ops.pad_ops._IndexPad": "base of the reflection/replication pad nodes",
    "ember.ops.recurrent._Recurrence": "base of the recurrence nodes",
    "ember.ops.recurrent._LSTM": "base of MkldnnRnnLayerBackward0 (torch's name)",
    "ember.ops.recurrent._GRU": "base of the GRU node (named StackBackward0 as torch's)",
    "ember.ops.recurrent._RNN": "base of the RNN node (named StackBackward0 as torch's)",
    "ember.ops.elementwise.NotImplemented": "torch's node for ops without a derivative: raises",
    "ember.ops.linalg_extra._SvdvalsGrad": "svdvals' derivative under create_graph: raises",
    "ember.ops.elementwise_extra._Binary": "base of the extra binary nodes",
    "ember.ops.elementwise_extra.NotImplemented": "heaviside's and binomial's nodes (torch's "
                                                  "name): raise",
    "ember.ops.elementwise_extra.NextafterBackward0": "torch has no derivative: raises",
    "ember.ops.counting._Underivable": "base of unique's nodes",
    "ember.ops.counting.Unique2Backward0": "torch has no derivative: raises",
    "ember.ops.counting.UniqueDimBackward0": "torch has no derivative: raises",
    "ember.ops.counting.UniqueConsecutiveBackward0": "torch has no derivative: raises",
    "ember.ops.special_ops.SpecialZetaBackward2": "zeta(x, number)'s node: its only gradient "
                                                  "(in x) raises, as torch's",
    "ember.ops.elementwise_extra.AsinhBackward1": "asinh_'s node: torch has no derivative",
    "ember.ops.elementwise_extra.AtanhBackward1": "atanh_'s node: torch has no derivative",
    "ember.ops.elementwise_extra.GcdBackward0": "integer inputs only: never needs a gradient",
    "ember.ops.elementwise_extra.LcmBackward0": "integer inputs only: never needs a gradient",
    "ember.ops.elementwise_extra.LshiftBackward0": "integer inputs only: never needs a gradient",
    "ember.ops.elementwise_extra.RshiftBackward0": "integer inputs only: never needs a gradient",
    "ember.ops.order_stats._SelectAlong": "base of the value-selecting reduction nodes",
    "ember.ops.pooling_nd._GatherPool": "base of the 3-D and adaptive max pool nodes",
    "ember.ops.pooling_nd._ScatterPool": "base of the max unpool nodes",
    "ember.ops.pooling_nd._Separable": "base of the separable average/bicubic nodes",
    "ember.ops.pooling_nd._Resampling": "base of the resampling nodes",
    "ember.ops.pooling_nd._AntialiasSeparable": "base of the anti-aliased resampling nodes",
    "ember.ops.decompositions._Decomposition": "base of the several-output decomposition nodes",
    "ember.ops.ctc.CtcLossBackwardBackward0": "raises: torch has no second derivative of ctc_loss",
    "ember.ops.householder.GeqrfBackward0": "torch has no derivative of geqrf: raises",
}


def _key(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


def test_every_node_class_is_driven():
    """The generic release check covers every node class ember defines, not a chosen few."""
    reached = set()
    losses = [_loss(ember, op, sample) for op in OPS for sample in op.samples[:2]]
    losses += [call(ember) for call in EXTRA.values()]
    for loss in losses:
        if loss is not None:
            reached.update(_key(type(n)) for n in _nodes(loss.grad_fn))
    keys = {_key(cls) for cls in _node_classes()}
    assert set(NOT_DRIVEN) <= keys
    assert sorted(keys - reached - set(NOT_DRIVEN)) == []


def test_a_custom_function_releases_what_it_saved():
    errors = []
    for lib in (torch, ember):
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 3 * x * x * g

        x = lib.tensor([1.0, -2.0], requires_grad=True)
        loss = Cube.apply(x).sum()
        loss.backward()
        if lib is ember:
            assert not _kept(loss.grad_fn.next_functions[0][0])
        errors.append(_second_backward_error(loss))
    assert errors[0] is not None and errors[1] is not None
    assert errors[1].startswith(SECOND_TIME) and errors[0].startswith(SECOND_TIME)
