"""Grad modes (ember/autograd/grad_mode.py): no_grad, enable_grad, set_grad_enabled and
inference_mode as context managers, decorators and functions; per-thread state."""
import threading

import pytest
import torch
from oracle import pair

import ember


# ---------------------------------------------------------------- grad modes
@pytest.mark.parametrize("mode", ["no_grad", "inference_mode", "set_grad_enabled"])
def test_modes_as_context_managers(mode):
    x_e, _ = pair([1.0])
    ctx = {"no_grad": ember.no_grad, "inference_mode": ember.inference_mode,
           "set_grad_enabled": lambda: ember.set_grad_enabled(False)}[mode]
    with ctx():
        assert not ember.is_grad_enabled()
        y = x_e * 2
        with ember.enable_grad():
            assert ember.is_grad_enabled()
            z = x_e * 2
    assert ember.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad


def test_modes_as_decorators():
    @ember.no_grad()
    def f(x):
        return x * 2

    @ember.no_grad
    def g(x):
        return x * 2

    @ember.inference_mode()
    def h(x):
        return x * 2

    @ember.enable_grad()
    def k(x):
        return x * 2

    @ember.set_grad_enabled(False)
    def s(x):
        return x * 2

    x, _ = pair([1.0])
    assert ember.is_grad_enabled()  # set_grad_enabled as decorator does not switch at definition
    assert not f(x).requires_grad and not g(x).requires_grad and not h(x).requires_grad
    assert not s(x).requires_grad
    with ember.no_grad():
        assert k(x).requires_grad
    assert ember.is_grad_enabled()


def test_set_grad_enabled_as_function_switches_immediately():
    try:
        ember.set_grad_enabled(False)
        assert not ember.is_grad_enabled()
    finally:
        ember.set_grad_enabled(True)
    assert ember.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = {}

    def worker():
        seen["thread"] = ember.is_grad_enabled()
        x = ember.ones(2, requires_grad=True)
        seen["records"] = (x * 2).requires_grad

    with ember.no_grad():
        t = threading.Thread(target=worker)
        t.start()
        t.join()
        assert not ember.is_grad_enabled()
    assert seen == {"thread": True, "records": True}


def test_inference_mode_flag():
    assert not ember.is_inference_mode_enabled()
    with ember.inference_mode():
        assert ember.is_inference_mode_enabled()
    with ember.inference_mode(False):
        assert ember.is_grad_enabled()


def test_mode_is_restored_when_the_block_raises():
    with pytest.raises(ValueError):
        with ember.no_grad():
            raise ValueError
    assert ember.is_grad_enabled()
    with pytest.raises(ValueError):
        with ember.inference_mode():
            raise ValueError
    assert not ember.is_inference_mode_enabled() and ember.is_grad_enabled()


def test_inplace_on_an_inference_tensor_outside_the_mode_raises_as_torch():
    messages = []
    for lib in (torch, ember):
        with lib.inference_mode():
            t = lib.ones(2)
            t.add_(1)  # allowed inside
        with pytest.raises(RuntimeError) as info:
            t.add_(1)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
