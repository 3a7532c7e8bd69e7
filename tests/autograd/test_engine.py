"""The backward engine (ember/autograd/engine.py): backward/grad arguments and errors, higher order."""

import numpy as np
import torch
from oracle import both_raise, close, pair

import ember


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



def test_grad_of_an_output_without_grad_errors_as_torch():
    from oracle import same_error
    same_error(lambda lib: lib.autograd.grad(lib.ones(2).sum(), lib.ones(2)))
    same_error(lambda lib: lib.autograd.grad((lib.ones(2, requires_grad=True) * 2).sum(),
                                             lib.ones(2)))
