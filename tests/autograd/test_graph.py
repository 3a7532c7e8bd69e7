"""Nodes (ember/autograd/graph.py): saved-tensor version checks name the op as torch does, saved
arrays are released after backward (kept with retain_graph), next_functions expose the graph."""
import gc
import weakref

import numpy as np
import pytest
import torch
from oracle import both_raise, pair, same_error

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


# ---------------------------------------------------------------- saved tensors hooks
def _logging_hooks(lib, log, name):
    return lib.autograd.graph.saved_tensors_hooks(
        lambda t: log.append(("pack", name, t.tolist())) or t,
        lambda t: log.append(("unpack", name, t.tolist())) or t)


def _nested(lib):
    log = []
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.ones(2, requires_grad=True) * 2
    with _logging_hooks(lib, log, "outer"):
        with _logging_hooks(lib, log, "inner"):
            y = a * b
        z = a.cos()
    w = a.sin()  # outside: no hook
    (y + z + w).sum().backward()
    return log, a.grad.tolist()


def test_nested_hooks_the_innermost_pair_applies():
    log, grad = _nested(ember)
    torch_log, torch_grad = _nested(torch)
    assert log == torch_log
    np.testing.assert_allclose(grad, torch_grad, rtol=1e-6)


def test_hooks_are_off_again_after_the_context_even_after_an_error():
    log = []
    with pytest.raises(ValueError):
        with _logging_hooks(ember, log, "h"):
            raise ValueError
    ember.tensor([1.0], requires_grad=True).sin()
    assert log == [] and ember.autograd.graph._saved_hooks is None


def test_disable_saved_tensors_hooks_raises_its_message():
    def enter_hooks_inside(lib):
        graph = lib.autograd.graph
        with graph.disable_saved_tensors_hooks("no hooks here"):
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass

    def disable_inside_hooks(lib):
        graph = lib.autograd.graph
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            with graph.disable_saved_tensors_hooks("hooks are on"):
                pass

    def inner_message_then_outer(lib):
        graph = lib.autograd.graph
        with graph.disable_saved_tensors_hooks("outer"):
            with graph.disable_saved_tensors_hooks("inner"):
                pass
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass

    for call in (enter_hooks_inside, disable_inside_hooks, inner_message_then_outer):
        same_error(call)
    with ember.autograd.graph.disable_saved_tensors_hooks("off"):
        y = ember.tensor([1.0], requires_grad=True).sin()  # saving itself is fine
    with ember.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y.sum().backward()  # and the message is gone after the context


def _on_cpu(lib, pin_memory):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 1))
    x = lib.randn(3, 4)
    with lib.autograd.graph.save_on_cpu(pin_memory=pin_memory):
        loss = model(x).pow(2).sum()
    loss.backward()
    return [p.grad.numpy() for p in model.parameters()]


@pytest.mark.parametrize("pin_memory", [False, True])
def test_save_on_cpu_gives_torch_gradients(pin_memory):
    for got, want in zip(_on_cpu(ember, pin_memory), _on_cpu(torch, pin_memory)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_hooks_apply_to_their_own_thread_only():
    import threading
    for lib in (torch, ember):
        log, entered, done = [], threading.Event(), threading.Event()

        def hooked(lib=lib, log=log, entered=entered, done=done):
            with _logging_hooks(lib, log, "thread"):
                entered.set()
                done.wait(10)

        thread = threading.Thread(target=hooked)
        thread.start()
        entered.wait(10)
        lib.tensor([1.0, 2.0], requires_grad=True).sin().sum().backward()  # this thread
        done.set()
        thread.join()
        assert log == []


def test_disable_saved_tensors_hooks_as_a_decorator():
    def run(lib):
        @lib.autograd.graph.disable_saved_tensors_hooks("not in here")
        def f():
            with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
        f()
    same_error(run)
