"""torch.autograd.functional (vjp, jvp, jacobian, hessian, hvp, vhp) against torch 2.13."""
import numpy as np
import pytest
import torch
from oracle import both_trees, same_tree

import ember

X = np.array([[0.5, -1.2, 2.0], [0.3, 1.1, -0.7]], dtype=np.float32)
Y = np.array([1.5, -0.4, 0.9], dtype=np.float32)
V2 = np.array([[1.0, 2.0, -1.0], [0.5, 0.0, 3.0]], dtype=np.float32)


same, both = same_tree, both_trees


def t(lib, a, requires_grad=False):
    return lib.tensor(a, requires_grad=requires_grad)


def scalar_fn(x):
    return (x.sin() * x * x).sum()


def vector_fn(x):
    return x.tanh() * x.exp()


def two_in_scalar(x, y):
    return (x * y * y).sum() + (x.exp() * y).sum()


def two_in_two_out(x, y):
    return x * y, (x.cos() * y).sum()


def test_reachable_as_torch_module():
    import ember.autograd.functional as F
    assert ember.autograd.functional is F


@pytest.mark.parametrize("fn", [scalar_fn, vector_fn])
def test_jacobian_one_input(fn):
    both(lambda lib: lib.autograd.functional.jacobian(fn, t(lib, X)))


def test_jacobian_tuple_inputs_and_outputs():
    both(lambda lib: lib.autograd.functional.jacobian(two_in_two_out, (t(lib, X), t(lib, Y))))
    both(lambda lib: lib.autograd.functional.jacobian(two_in_scalar, (t(lib, X), t(lib, Y))))
    both(lambda lib: lib.autograd.functional.jacobian(lambda x: (x * 2, x.sum()), t(lib, Y)))


def test_jacobian_vectorize_and_unused_input():
    both(lambda lib: lib.autograd.functional.jacobian(vector_fn, t(lib, Y), vectorize=True))
    both(lambda lib: lib.autograd.functional.jacobian(lambda x, y: x * 3, (t(lib, Y), t(lib, X))))


def test_jacobian_create_graph_then_backward():
    def run(lib):
        x = t(lib, X, requires_grad=True)
        jac = lib.autograd.functional.jacobian(vector_fn, x, create_graph=True)
        (jac * jac).sum().backward()
        return jac, x.grad
    both(run)


@pytest.mark.parametrize("fn,inputs", [(scalar_fn, (X,)), (two_in_scalar, (X, Y))])
def test_hessian(fn, inputs):
    def run(lib):
        args = tuple(t(lib, a) for a in inputs)
        return lib.autograd.functional.hessian(fn, args if len(args) > 1 else args[0])
    both(run)


def test_hessian_create_graph_then_backward():
    def run(lib):
        x = t(lib, Y, requires_grad=True)
        h = lib.autograd.functional.hessian(lambda z: (z ** 4).sum(), x, create_graph=True)
        h.sum().backward()
        return h, x.grad
    both(run)


@pytest.mark.parametrize("name", ["vjp", "jvp"])
def test_vjp_jvp_vector_output(name):
    both(lambda lib: getattr(lib.autograd.functional, name)(vector_fn, t(lib, X), t(lib, V2)))


def test_vjp_scalar_output_needs_no_v():
    both(lambda lib: lib.autograd.functional.vjp(scalar_fn, t(lib, X)))


def test_vjp_jvp_tuples():
    def run(lib):
        F = lib.autograd.functional
        inp = (t(lib, X), t(lib, Y))
        out = F.vjp(two_in_two_out, inp, (t(lib, V2), t(lib, 2.0)))
        return out, F.jvp(two_in_two_out, inp, (t(lib, V2), t(lib, Y)))
    both(run)


@pytest.mark.parametrize("name", ["hvp", "vhp"])
def test_hvp_vhp(name):
    def run(lib):
        F = getattr(lib.autograd.functional, name)
        return F(two_in_scalar, (t(lib, X), t(lib, Y)), (t(lib, V2), t(lib, Y))), \
            F(scalar_fn, t(lib, X), t(lib, V2))
    both(run)


@pytest.mark.parametrize("name", ["vjp", "jvp", "hvp", "vhp"])
def test_create_graph_then_backward(name):
    def run(lib):
        x = t(lib, X, requires_grad=True)
        fn = scalar_fn if name in ("hvp", "vhp") else vector_fn
        out, prod = getattr(lib.autograd.functional, name)(fn, x, t(lib, V2), create_graph=True)
        (prod * prod).sum().backward()
        return out, prod, x.grad
    both(run)


def test_no_graph_without_create_graph():
    def run(lib):
        x = t(lib, Y, requires_grad=True)
        return lib.autograd.functional.vjp(vector_fn, x, t(lib, Y))
    ours, _ = both(run)
    assert ours[0].grad_fn is None and ours[1].grad_fn is None


def raises_like(run, exc):
    """ember raises the same exception type with the same message as torch (ember.Size)."""
    with pytest.raises(exc) as theirs:
        run(torch)
    with pytest.raises(exc) as ours:
        run(ember)
    assert str(ours.value) == str(theirs.value).replace("torch.Size", "ember.Size")


def test_strict_errors_match_torch():
    def call(lib, name, fn, inp, *rest, **kw):
        return getattr(lib.autograd.functional, name)(fn, inp, *rest, **kw)
    raises_like(lambda lib: call(lib, "vjp", lambda x: x.detach(), t(lib, Y), t(lib, Y),
                                 strict=True), RuntimeError)
    raises_like(lambda lib: call(lib, "vjp", lambda x, y: x * 2, (t(lib, Y), t(lib, Y)),
                                 t(lib, Y), strict=True), RuntimeError)
    raises_like(lambda lib: call(lib, "jacobian", lambda x, y: x * 2, (t(lib, Y), t(lib, Y)),
                                 strict=True), RuntimeError)
    raises_like(lambda lib: call(lib, "jvp", lambda x, y: x * 2, (t(lib, Y), t(lib, Y)),
                                 (t(lib, Y), t(lib, Y)), strict=True), RuntimeError)
    raises_like(lambda lib: call(lib, "hessian", lambda x: (x * 2).sum(), t(lib, Y),
                                 strict=True), RuntimeError)
    raises_like(lambda lib: call(lib, "hvp", lambda x: (x * 2).sum(), t(lib, Y), t(lib, Y),
                                 strict=True), RuntimeError)
    raises_like(lambda lib: call(lib, "jacobian", vector_fn, t(lib, Y), strict=True,
                                 vectorize=True), RuntimeError)


def test_argument_errors_match_torch():
    F = "functional"
    raises_like(lambda lib: getattr(lib.autograd, F).vjp(vector_fn, t(lib, Y)), RuntimeError)
    raises_like(lambda lib: getattr(lib.autograd, F).jvp(vector_fn, t(lib, Y)), RuntimeError)
    raises_like(lambda lib: getattr(lib.autograd, F).vjp(vector_fn, [t(lib, Y)]), TypeError)
    raises_like(lambda lib: getattr(lib.autograd, F).jacobian(vector_fn, (t(lib, Y), 3)),
                TypeError)
    raises_like(lambda lib: getattr(lib.autograd, F).vjp(vector_fn, t(lib, Y), t(lib, X)),
                RuntimeError)
    raises_like(lambda lib: getattr(lib.autograd, F).vjp(two_in_two_out, (t(lib, Y), t(lib, Y)),
                                                         (t(lib, Y),)), RuntimeError)
    raises_like(lambda lib: getattr(lib.autograd, F).hessian(vector_fn, t(lib, Y)),
                RuntimeError)
    raises_like(lambda lib: getattr(lib.autograd, F).vhp(two_in_two_out, (t(lib, Y), t(lib, Y)),
                                                         (t(lib, Y), t(lib, Y))), RuntimeError)


@pytest.mark.parametrize("fn,inputs", [(vector_fn, "Y"), (scalar_fn, "X"),
                                       (two_in_two_out, "XY"), (lambda x, y: x * 3, "YX")])
def test_forward_mode_jacobian_as_torch(fn, inputs):
    def run(lib):
        args = tuple(t(lib, {"X": X, "Y": Y}[c]) for c in inputs)
        return lib.autograd.functional.jacobian(fn, args if len(args) > 1 else args[0],
                                                vectorize=True, strategy="forward-mode")
    both(run)


def test_forward_over_reverse_hessian_as_torch():
    both(lambda lib: lib.autograd.functional.hessian(
        two_in_scalar, (t(lib, X), t(lib, Y)), vectorize=True,
        outer_jacobian_strategy="forward-mode"))
    both(lambda lib: lib.autograd.functional.hessian(
        scalar_fn, t(lib, X), vectorize=True, outer_jacobian_strategy="forward-mode"))


@pytest.mark.parametrize("kw,exc", [(dict(), NotImplementedError),
                                    (dict(vectorize=True, create_graph=True), NotImplementedError),
                                    (dict(vectorize=True, strict=True), RuntimeError),
                                    (dict(strategy="sideways"), AssertionError)])
def test_forward_mode_refusals_as_torch(kw, exc):
    messages = []
    for lib in (torch, ember):
        with pytest.raises(exc) as info:
            lib.autograd.functional.jacobian(vector_fn, t(lib, Y), **{"strategy": "forward-mode",
                                                                      **kw})
        messages.append(str(info.value))
    assert messages[1] == messages[0]


def test_edge_shapes_and_defaults():
    def run(lib):
        F = lib.autograd.functional
        return (F.jacobian(lambda x: x * 3, t(lib, 2.0)),
                F.jacobian(lambda x: lib.ones(2), t(lib, Y)),
                F.jvp(lambda x: x ** 2, t(lib, [3.0])),
                F.hvp(lambda x: (x ** 3).sum(), t(lib, [3.0])),
                F.vhp(lambda x: (x ** 3).sum(), t(lib, 3.0)),
                F.hessian(lambda x: x ** 3, t(lib, 2.0)),
                F.jacobian(lambda x: (x * 2,), (t(lib, Y),)),
                F.hessian(lambda x, y: (x * y * y).sum(), (t(lib, Y), t(lib, Y)),
                          create_graph=True))
    both(run)


def test_under_no_grad():
    def run(lib):
        with lib.no_grad():
            return lib.autograd.functional.jacobian(vector_fn, t(lib, Y, requires_grad=True))
    both(run)
