"""The backward engine (ember/autograd/engine.py): arguments, errors, accumulation, hooks, modes."""
import gc
import threading
import warnings
import weakref

import numpy as np
import pytest
import torch
from oracle import close

import ember


def pair(values, requires_grad=True, dtype=np.float64):
    data = np.asarray(values, dtype=dtype)
    return (ember.tensor(data, requires_grad=requires_grad),
            torch.tensor(data, requires_grad=requires_grad))


def both_raise(fn_e, fn_t, exc=RuntimeError):
    """Both libraries raise ``exc`` with the same message (torch's 'torch.' names mapped)."""
    with pytest.raises(exc) as te:
        fn_t()
    with pytest.raises(exc) as ee:
        fn_e()
    assert str(ee.value) == str(te.value).replace("torch.", "ember.")


# ---------------------------------------------------------------- Tensor.backward arguments
def test_seed_example_matches_torch():
    w_e, w_t = pair(np.random.default_rng(0).standard_normal((5, 3)))
    x = np.random.default_rng(1).standard_normal((1, 5))
    z_e = (ember.tensor(x) @ w_e).mean()
    z_t = (torch.tensor(x) @ w_t).mean()
    z_e.backward()
    z_t.backward()
    close(w_e.grad, w_t.grad)
    assert type(z_e.grad_fn).__name__ == "MeanBackward0"
    assert w_e.grad_fn is None and w_e.is_leaf


def test_gradient_argument_for_non_scalar():
    x_e, x_t = pair([1.0, 2.0, 3.0])
    g = np.array([0.1, -1.0, 2.0])
    (x_e * x_e).backward(ember.tensor(g))
    (x_t * x_t).backward(torch.tensor(g))
    close(x_e.grad, x_t.grad)


def test_implicit_gradient_only_for_scalars():
    x_e, x_t = pair([1.0, 2.0])
    both_raise(lambda: (x_e * 2).backward(), lambda: (x_t * 2).backward())


def test_gradient_shape_mismatch_error():
    x_e, x_t = pair([1.0, 2.0])
    both_raise(lambda: (x_e * 2).backward(ember.ones(3, dtype=ember.float64)),
               lambda: (x_t * 2).backward(torch.ones(3, dtype=torch.float64)))


def test_nothing_requires_grad_error():
    x_e, x_t = pair([1.0, 2.0], requires_grad=False)
    both_raise(lambda: x_e.sum().backward(), lambda: x_t.sum().backward())


def test_empty_inputs_error():
    x_e, x_t = pair([1.0, 2.0])
    both_raise(lambda: x_e.sum().backward(inputs=[]), lambda: x_t.sum().backward(inputs=[]))


def test_second_backward_through_freed_graph():
    x_e, x_t = pair([1.0, 2.0])
    y_e, y_t = (x_e * x_e).sum(), (x_t * x_t).sum()
    y_e.backward()
    y_t.backward()
    both_raise(y_e.backward, y_t.backward)


def test_retain_graph_allows_second_backward_and_accumulates():
    x_e, x_t = pair([1.0, 2.0])
    y_e, y_t = (x_e * x_e).sum(), (x_t * x_t).sum()
    for _ in range(2):
        y_e.backward(retain_graph=True)
        y_t.backward(retain_graph=True)
    close(x_e.grad, x_t.grad)


def test_graph_without_saved_tensors_can_be_rerun():
    x_e, x_t = pair([1.0, 2.0])
    y_e, y_t = (x_e + 1).sum(), (x_t + 1).sum()
    for _ in range(2):
        y_e.backward()
        y_t.backward()
    close(x_e.grad, x_t.grad)


def test_inputs_restricts_accumulation():
    a_e, a_t = pair([1.0, 2.0])
    b_e, b_t = pair([3.0, 4.0])
    (a_e * b_e).sum().backward(inputs=[a_e])
    (a_t * b_t).sum().backward(inputs=[a_t])
    close(a_e.grad, a_t.grad)
    assert b_e.grad is None and b_t.grad is None


def test_inputs_non_leaf_gets_grad():
    a_e, a_t = pair([1.0, 2.0])
    h_e, h_t = a_e * 3, a_t * 3
    (h_e * h_e).sum().backward(inputs=[h_e])
    (h_t * h_t).sum().backward(inputs=[h_t])
    close(h_e.grad, h_t.grad)
    assert a_e.grad is None


def test_autograd_backward_multiple_roots():
    x_e, x_t = pair([1.0, 2.0, 3.0])
    g = [np.array([1.0, 0.5, 2.0]), None]
    ember.autograd.backward([x_e * 2, (x_e ** 2).sum()], [ember.tensor(g[0]), None])
    torch.autograd.backward([x_t * 2, (x_t ** 2).sum()], [torch.tensor(g[0]), None])
    close(x_e.grad, x_t.grad)


def test_backward_on_a_leaf():
    x_e, x_t = pair([1.0, 2.0])
    x_e.backward(ember.tensor([1.0, 1.0], dtype=ember.float64))
    x_t.backward(torch.tensor([1.0, 1.0], dtype=torch.float64))
    close(x_e.grad, x_t.grad)


# ---------------------------------------------------------------- autograd.grad
def test_grad_returns_without_touching_dot_grad():
    x_e, x_t = pair([1.0, 2.0])
    (g_e,) = ember.autograd.grad((x_e ** 3).sum(), x_e)
    (g_t,) = torch.autograd.grad((x_t ** 3).sum(), x_t)
    close(g_e, g_t)
    assert x_e.grad is None


def test_grad_allow_unused():
    a_e, a_t = pair([1.0])
    b_e, b_t = pair([2.0])
    both_raise(lambda: ember.autograd.grad((a_e * 2).sum(), [a_e, b_e]),
               lambda: torch.autograd.grad((a_t * 2).sum(), [a_t, b_t]))
    ge = ember.autograd.grad((a_e * 2).sum(), [a_e, b_e], allow_unused=True)
    gt = torch.autograd.grad((a_t * 2).sum(), [a_t, b_t], allow_unused=True)
    close(ge[0], gt[0])
    assert ge[1] is None and gt[1] is None


def test_grad_materialize_grads():
    a_e, a_t = pair([1.0])
    b_e, b_t = pair([2.0])
    ge = ember.autograd.grad((a_e * 2).sum(), [a_e, b_e], materialize_grads=True)
    gt = torch.autograd.grad((a_t * 2).sum(), [a_t, b_t], materialize_grads=True)
    close(ge, gt)


def test_grad_of_input_not_requiring_grad():
    a_e, a_t = pair([1.0])
    c_e, c_t = pair([1.0], requires_grad=False)
    both_raise(lambda: ember.autograd.grad((a_e * 2).sum(), [c_e]),
               lambda: torch.autograd.grad((a_t * 2).sum(), [c_t]))


def test_grad_with_grad_outputs_and_intermediate_input():
    x_e, x_t = pair([[1.0, 2.0], [3.0, -1.0]])
    h_e, h_t = x_e.sin(), x_t.sin()
    v = np.array([[1.0, -2.0], [0.5, 3.0]])
    ge = ember.autograd.grad(h_e * h_e, [h_e, x_e], ember.tensor(v))
    gt = torch.autograd.grad(h_t * h_t, [h_t, x_t], torch.tensor(v))
    close(ge, gt)


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


# ---------------------------------------------------------------- higher order
def test_create_graph_second_and_third_derivative():
    x_e, x_t = pair([0.5, -1.5, 2.0])
    results = []
    for x, lib in ((x_e, ember), (x_t, torch)):
        y = (x.sin() * x ** 3).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x, create_graph=True)
        (ggg,) = lib.autograd.grad(gg.sum(), x)
        results.append((g, gg, ggg))
    close(results[0], results[1])


def test_backward_create_graph_accumulates_graph_grad():
    x_e, x_t = pair([1.0, 2.0])
    for x in (x_e, x_t):
        (x ** 3).sum().backward(create_graph=True)
    assert x_e.grad.requires_grad and x_t.grad.requires_grad
    close(x_e.grad, x_t.grad)
    ember.autograd.grad(x_e.grad.sum(), x_e)


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


# ---------------------------------------------------------------- detach and requires_grad
def test_detach_shares_storage_and_version():
    x_e, _ = pair([1.0, 2.0])
    y = x_e * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    d[0] = 5.0
    assert y[0].item() == 5.0
    assert d._version == y._version


def test_detach_in_place():
    x_e, x_t = pair([1.0, 2.0])
    for x in (x_e, x_t):
        y = x * 2
        assert y.detach_() is y
        assert not y.requires_grad and y.grad_fn is None and y.is_leaf


def test_requires_grad_in_place_and_errors():
    x_e, x_t = pair([1.0], requires_grad=False)
    assert x_e.requires_grad_() is x_e and x_e.requires_grad
    x_t.requires_grad_()
    y_e, y_t = x_e * 2, x_t * 2
    both_raise(lambda: y_e.requires_grad_(False), lambda: y_t.requires_grad_(False))
    i_e, i_t = ember.tensor([1, 2]), torch.tensor([1, 2])
    both_raise(lambda: i_e.requires_grad_(), lambda: i_t.requires_grad_())


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


# ---------------------------------------------------------------- engine properties
@pytest.mark.slow
def test_long_chain_is_iterative():
    x = ember.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.item() == 1.0


def test_backward_is_deterministic():
    order = []
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    for run in range(2):
        a, b = x * 2, x * 3
        a.register_hook(lambda g: order.append(("a", run)))
        b.register_hook(lambda g: order.append(("b", run)))
        (a * b).sum().backward()
    assert [o[0] for o in order[:2]] == [o[0] for o in order[2:]]


def test_hook_order_matches_torch():
    logs = []
    for lib in (torch, ember):
        log = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a, b = x * 2, x.exp()
        c = a * b
        for name, t in (("a", a), ("b", b), ("c", c), ("x", x)):
            t.register_hook(lambda g, name=name: log.append(name))
        (c.sum() + a.sum()).backward()
        logs.append(log)
    assert logs[0] == logs[1]


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
