"""nn.Parameter and nn.Buffer against torch: defaults, memory and version-counter sharing with
the wrapped tensor, pickling, and how a Module registers them (persistent or not)."""
import pickle

import numpy as np
import pytest
import torch

import ember

LIBS = [ember, torch]


@pytest.mark.parametrize("lib", LIBS, ids=lambda m: m.__name__)
def test_empty_parameter(lib):
    p = lib.nn.Parameter()
    assert tuple(p.shape) == (0,) and p.requires_grad and p.is_leaf
    assert type(p).__name__ == "Parameter"


def test_parameter_shares_memory_and_version_with_its_data():
    seen = []
    for lib in LIBS:
        data = lib.ones(3)
        p = lib.nn.Parameter(data, requires_grad=False)
        before = p._version
        data.add_(1)
        seen.append((before, p._version, p.detach().numpy().tolist(), p.requires_grad))
    assert seen[0] == seen[1]


def test_parameter_ops_give_plain_tensors_with_gradients():
    grads = []
    for lib in LIBS:
        p = lib.nn.Parameter(lib.tensor(np.arange(3.0)))
        out = (p * p).sum()
        assert type(out) is lib.Tensor and out.requires_grad
        out.backward()
        grads.append(p.grad.numpy())
    np.testing.assert_array_equal(grads[0], grads[1])


def test_pickle_round_trip_keeps_type_values_and_requires_grad():
    for requires_grad in (True, False):
        p = ember.nn.Parameter(ember.tensor([1.0, 2.0]), requires_grad=requires_grad)
        q = pickle.loads(pickle.dumps(p))
        assert type(q) is ember.nn.Parameter and q.requires_grad == requires_grad
        np.testing.assert_array_equal(q.detach().numpy(), [1.0, 2.0])


def test_non_tensor_data_is_rejected():
    with pytest.raises(TypeError, match="Parameter\\(\\): data must be a Tensor, got list"):
        ember.nn.Parameter([1.0])


def test_buffers_register_like_torch():
    layouts = []
    for lib in LIBS:
        m = lib.nn.Module()
        m.a = lib.nn.Buffer(lib.ones(2))
        m.b = lib.nn.Buffer(lib.zeros(1), persistent=False)
        m.c = lib.nn.Buffer(lib.zeros(1, requires_grad=True))
        layouts.append((list(m.state_dict()), [n for n, _ in m.named_buffers()],
                        type(m.a).__name__, m.c.requires_grad, list(m.parameters())))
    assert layouts[0] == layouts[1]


def test_an_integer_parameter_is_refused_as_torch():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="^Only Tensors of floating point and complex dtype "
                                               "can require gradients$"):
            lib.nn.Parameter(lib.ones(2, dtype=lib.int64))
    assert not ember.nn.Parameter(ember.ones(2, dtype=ember.int64), requires_grad=False).requires_grad
