"""Running nodes and delivering gradients (ember/autograd/_run.py): accumulation into leaves and
retained non-leaves, tensor hooks (seen, replaced, removed), against torch 2.13."""
import warnings

import numpy as np
import pytest
import torch
from oracle import both_raise, close, pair

import ember


# ---------------------------------------------------------------- accumulation and non-leaves
def test_gradients_accumulate_across_backward_calls():
    x_e, x_t = pair([1.0, -2.0])
    for k in range(3):
        ((x_e * (k + 1)) ** 2).sum().backward()
        ((x_t * (k + 1)) ** 2).sum().backward()
    close(x_e.grad, x_t.grad)


def test_shared_leaf_accumulates_within_one_pass():
    x_e, x_t = pair([1.0, 2.0])
    (x_e * x_e + x_e.exp() + x_e).sum().backward()
    (x_t * x_t + x_t.exp() + x_t).sum().backward()
    close(x_e.grad, x_t.grad)


def test_non_leaf_grad_is_none_with_warning():
    x_e, x_t = pair([1.0, 2.0])
    y_e, y_t = x_e * 2, x_t * 2
    y_e.sum().backward()
    y_t.sum().backward()
    with pytest.warns(UserWarning) as wt:
        assert y_t.grad is None
    with pytest.warns(UserWarning) as we:
        assert y_e.grad is None
    assert str(we[0].message) == str(wt[0].message).split(" (Triggered")[0]


def test_leaf_grad_access_does_not_warn():
    x_e, _ = pair([1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x_e.grad is None


def test_retain_grad_keeps_non_leaf_grad():
    x_e, x_t = pair([1.0, 2.0])
    y_e, y_t = x_e * 3, x_t * 3
    y_e.retain_grad()
    y_t.retain_grad()
    assert y_e.retains_grad and y_t.retains_grad
    (y_e * y_e).sum().backward()
    (y_t * y_t).sum().backward()
    close(y_e.grad, y_t.grad)
    close(x_e.grad, x_t.grad)


# ---------------------------------------------------------------- hooks
def test_register_hook_sees_and_replaces_gradient():
    seen = []
    x_e, x_t = pair([1.0, 2.0])
    for x, lib in ((x_e, ember), (x_t, torch)):
        y = x * 2
        y.register_hook(lambda g: seen.append(g.numpy().copy()) or g * 10)
        (y * y).sum().backward()
    close(x_e.grad, x_t.grad)
    np.testing.assert_allclose(seen[0], seen[1])


def test_leaf_hook_and_removal():
    x_e, x_t = pair([1.0, 2.0])
    for x in (x_e, x_t):
        handle = x.register_hook(lambda g: g * 0 + 7)
        x.sum().backward()
        handle.remove()
        x.sum().backward()
    close(x_e.grad, x_t.grad)


def test_hook_on_tensor_not_requiring_grad():
    x_e, x_t = pair([1.0], requires_grad=False)
    both_raise(lambda: x_e.register_hook(lambda g: g), lambda: x_t.register_hook(lambda g: g))


def _hooked_backward(lib, hook):
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.register_hook(hook)
    y.sum().backward()


@pytest.mark.parametrize("hook, exc", [(lambda g: g[:1], RuntimeError),
                                       (lambda g: 3, TypeError)])
def test_bad_hook_result_raises_as_torch(hook, exc):
    both_raise(lambda: _hooked_backward(ember, hook), lambda: _hooked_backward(torch, hook), exc)


def test_node_pre_and_post_hooks_run_in_order_and_can_be_removed():
    results = []
    for lib in (torch, ember):
        log = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        pre = y.grad_fn.register_prehook(lambda gout: log.append("pre") or (gout[0] * 10,))
        post = y.grad_fn.register_hook(lambda gin, gout: log.append("post"))
        y.sum().backward()
        first = x.grad.tolist()
        pre.remove()
        post.remove()
        x.grad = None
        (x * 2).sum().backward()
        results.append((log, first, x.grad.tolist()))
    assert results[0] == results[1]
