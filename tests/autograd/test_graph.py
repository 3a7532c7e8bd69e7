"""Nodes (ember/autograd/graph.py): saved-tensor version checks name the op as torch does, saved
arrays are released after backward (kept with retain_graph), next_functions expose the graph."""
import gc
import weakref

import numpy as np
import pytest
import torch
from oracle import both_raise, pair

import ember


# ---------------------------------------------------------------- version counters
def _saved_output_modified(lib):
    b = lib.tensor([1.0, 2.0], requires_grad=True) * 1
    c = b.exp()  # saves its output
    c.add_(1)
    c.sum().backward()


def _saved_input_modified(lib):
    b = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True).exp()
    c = b * b
    b.add_(2)
    c.sum().backward()


def _saved_detached_modified(lib):
    a = lib.tensor([[1.0, 2.0]])
    w = lib.tensor([[3.0], [4.0]], requires_grad=True)
    y = a @ w
    a.mul_(2)
    y.sum().backward()


@pytest.mark.parametrize("case", [_saved_output_modified, _saved_input_modified,
                                  _saved_detached_modified])
def test_modifying_saved_tensor_names_the_op(case):
    both_raise(lambda: case(ember), lambda: case(torch))


def test_in_place_on_leaf_requiring_grad():
    x_e, x_t = pair([1.0])
    both_raise(lambda: x_e.add_(1), lambda: x_t.add_(1))
    both_raise(lambda: x_e.__setitem__(0, 2.0), lambda: x_t.__setitem__(0, 2.0))
    with ember.no_grad():
        x_e.add_(1)
    assert x_e.item() == 2.0


def test_version_counter_increments():
    x = ember.zeros(3)
    v = x._version
    x.add_(1)
    x[0] = 2
    x.zero_()
    assert x._version == v + 3


# ---------------------------------------------------------------- release and graph
def test_saved_arrays_released_after_backward():
    x = ember.tensor(np.ones(1000), requires_grad=True)
    h = x * 2
    y = h.exp()
    ref = weakref.ref(h)
    node = y.grad_fn
    del h
    (y * x).sum().backward()
    gc.collect()
    assert node._saved == ()
    assert ref() is None  # MulBackward0's saved `h` is gone with the freed graph


def test_saved_arrays_kept_with_retain_graph():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.sum().backward(retain_graph=True)
    assert len(y.grad_fn._saved) == 1
    y.sum().backward()
    assert y.grad_fn._saved == ()


def test_next_functions_expose_graph():
    for lib in (torch, ember):
        w = lib.tensor([1.0], requires_grad=True)
        x = lib.tensor([2.0])
        y = (w * x).sum()
        mul = y.grad_fn.next_functions[0][0]
        assert type(mul).__name__ == "MulBackward0"
        acc, nr = mul.next_functions[0]
        assert type(acc).__name__ == "AccumulateGrad" and nr == 0
        assert acc.variable is w
        assert mul.next_functions[1][0] is None


def test_node_name_metadata_and_repr():
    for lib in (torch, ember):
        x = lib.tensor([1.0], requires_grad=True)
        node = (x * 2).grad_fn
        assert node.name() == "MulBackward0" and node.metadata == {}
        node.metadata["k"] = 1
        assert node.metadata == {"k": 1}
        assert "MulBackward0" in repr(node)
