"""Deep graphs and memory: a 100 000-op chain backpropagates; the graph and its saved arrays are
freed after backward (weak references prove it, with the cycle collector off); 10 000 training
steps do not grow memory (tracemalloc)."""
import gc
import tracemalloc
import weakref

import numpy as np
import pytest

import ember


@pytest.fixture
def no_cycle_collector():
    """Freed means freed by reference counting: cycles would survive with gc off."""
    gc.collect()
    gc.disable()
    yield
    gc.enable()


@pytest.mark.slow
def test_100k_op_chain_backpropagates():
    x = ember.tensor([0.5, -1.0], dtype=ember.float64, requires_grad=True)
    y = x
    for _ in range(50_000):
        y = (y * 1.00001) + 0.0  # two ops per step: 100 000 nodes
    y.sum().backward()
    np.testing.assert_allclose(x.grad._data, [1.00001 ** 50_000] * 2, rtol=1e-9)


def _graph():
    x = ember.randn(64, 64, dtype=ember.float64, requires_grad=True)
    h = x @ x          # h is saved by sin (an intermediate array)
    s = h.sin()
    loss = (s * s).sum()
    return x, h, loss


def test_saved_arrays_freed_after_backward(no_cycle_collector):
    x, h, loss = _graph()
    saved = weakref.ref(h._data)
    node = weakref.ref(h.grad_fn)
    del h
    assert saved() is not None  # still needed by SinBackward0
    loss.backward()
    assert saved() is None      # released by backward while the graph itself is alive
    assert node() is not None
    del loss
    assert node() is None       # the graph goes with its last tensor: no reference cycles
    assert x.grad is not None


def test_retain_graph_keeps_saved_arrays(no_cycle_collector):
    x, h, loss = _graph()
    saved = weakref.ref(h._data)
    del h
    loss.backward(retain_graph=True)
    assert saved() is not None
    loss.backward()
    assert saved() is None


def test_whole_graph_freed_with_its_output(no_cycle_collector):
    x = ember.randn(8, requires_grad=True)
    refs, y = [], x
    for _ in range(1000):
        y = (y * 1.5).tanh()
        refs.append(weakref.ref(y.grad_fn))
    loss = y.sum()
    loss.backward()
    del y, loss
    assert all(r() is None for r in refs)
    assert x.grad is not None
    assert x._acc is None or x._acc() is None  # the leaf's accumulator went with the graph


def test_graph_freed_without_backward(no_cycle_collector):
    x = ember.randn(4, 4, requires_grad=True)
    h = x.exp()
    keep = weakref.ref(h._data)
    loss = (h.log() * 2).sum()
    del h, loss
    assert keep() is None


def test_create_graph_grads_do_not_leak(no_cycle_collector):
    x = ember.randn(5, dtype=ember.float64, requires_grad=True)
    (g,) = ember.autograd.grad((x ** 3).sum(), x, create_graph=True)
    node = weakref.ref(g.grad_fn)
    g.sum().backward()
    del g
    assert node() is None


def _train(steps):
    """A small model trained the usual way: Module, loss, zero_grad, backward, optimizer step."""
    nn = ember.nn
    ember.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    opt = ember.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    rng = np.random.default_rng(0)
    xs = ember.tensor(rng.standard_normal((32, 8)), dtype=ember.float32)
    ys = ember.tensor(rng.standard_normal((32, 1)), dtype=ember.float32)
    for _ in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(xs), ys)
        loss.backward()
        opt.step()
    return float(loss)


@pytest.mark.slow
def test_10k_training_steps_do_not_grow_memory():
    _train(200)  # warm caches (dtype tables, lazily built method tables)
    tracemalloc.start()
    try:
        _train(1000)
        gc.collect()
        first, _ = tracemalloc.get_traced_memory()
        _train(10_000)
        gc.collect()
        second, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert second - first < 64 * 1024, f"grew by {second - first} bytes over 10 000 steps"
