"""torch.func (grad, grad_and_value, vjp, jacrev, jacfwd, hessian, functional_call) against torch."""
import numpy as np
import pytest
import torch
from oracle import both_trees, same_tree

import ember

X = np.array([[0.5, -1.2, 2.0], [0.3, 1.1, -0.7]], dtype=np.float32)
Y = np.array([1.5, -0.4, 0.9], dtype=np.float32)


same = same_tree


def both(run):
    return both_trees(run)[0]


def raises_like(run, exc):
    with pytest.raises(exc) as theirs:
        run(torch)
    with pytest.raises(exc) as ours:
        run(ember)
    assert str(ours.value) == str(theirs.value).replace("torch.", "ember.")


def t(lib, a, requires_grad=False):
    return lib.tensor(a, requires_grad=requires_grad)


def loss(x, y):
    return (x.sin() * y).sum() + (y ** 3).sum()


def test_reachable_as_torch_func():
    import ember.func
    assert ember.func is ember.__getattr__("func")


@pytest.mark.parametrize("argnums", [0, 1, (0, 1), (1,), -1])
def test_grad_argnums(argnums):
    both(lambda lib: lib.func.grad(loss, argnums=argnums)(t(lib, X), t(lib, Y)))


def test_grad_and_value_has_aux():
    def f(x):
        return (x * x).sum(), {"double": x * 2, "n": (x.sum(),)}
    both(lambda lib: lib.func.grad_and_value(f, has_aux=True)(t(lib, Y)))
    both(lambda lib: lib.func.grad(f, has_aux=True)(t(lib, Y)))


def test_grad_of_dict_argument_and_kwargs():
    def f(params, x, scale=1.0):
        return ((params["w"] @ x).tanh().sum() + params["b"].sum()) * scale
    both(lambda lib: lib.func.grad(f)({"w": t(lib, X), "b": t(lib, Y)}, t(lib, Y), scale=2.0))


def test_grad_keeps_the_enclosing_graph():
    def run(lib):
        x, w = t(lib, Y, requires_grad=True), t(lib, Y * 2, requires_grad=True)
        g = lib.func.grad(lambda z: (z ** 3 * w).sum())(x)
        g.sum().backward()
        plain = lib.func.grad(lambda z: (z ** 3).sum())(t(lib, Y))
        return g, x.grad, w.grad, plain
    both(run)


def test_grad_of_grad():
    both(lambda lib: lib.func.grad(lambda x: lib.func.grad(lambda z: (z ** 4).sum())(x).sum())(
        t(lib, Y)))


def test_vjp():
    def run(lib):
        out, fn = lib.func.vjp(lambda x, y: (x * y, (x ** 2).sum()), t(lib, X), t(lib, Y))
        return out, fn((t(lib, X), t(lib, 2.0)))
    both(run)


def test_vjp_has_aux_and_reuse():
    def run(lib):
        out, fn, aux = lib.func.vjp(lambda x: (x.exp(), x.sum()), t(lib, Y), has_aux=True)
        return out, aux, fn(t(lib, Y)), fn(t(lib, Y * 3))
    both(run)


@pytest.mark.parametrize("name", ["jacrev", "jacfwd"])
def test_jacobians(name):
    def run(lib):
        jac = getattr(lib.func, name)
        f = (lambda x, y: {"a": x * y, "b": (x.sum(), y.exp())})
        return (jac(f, argnums=(0, 1))(t(lib, X), t(lib, Y)),
                jac(lambda x: x.tanh())(t(lib, X)),
                jac(lambda d: d["u"] * 2)({"u": t(lib, Y)}))
    both(run)


def test_hessian():
    both(lambda lib: lib.func.hessian(loss, argnums=1)(t(lib, X), t(lib, Y)))
    both(lambda lib: lib.func.hessian(lambda x: (x.sin() * x).sum())(t(lib, X)))


def test_argument_errors_match_torch():
    raises_like(lambda lib: lib.func.grad(lambda x: x)(t(lib, Y)), RuntimeError)
    raises_like(lambda lib: lib.func.grad(lambda x: 3.0)(t(lib, Y)), RuntimeError)
    raises_like(lambda lib: lib.func.grad(lambda x: x.sum(), has_aux=True)(t(lib, Y)),
                RuntimeError)
    raises_like(lambda lib: lib.func.grad(lambda x: x.sum(), argnums=2)(t(lib, Y)), RuntimeError)
    raises_like(lambda lib: lib.func.grad(lambda x: x.sum(), argnums=1.5)(t(lib, Y)),
                RuntimeError)
    raises_like(lambda lib: lib.func.grad(lambda x: x.sum(), argnums=())(t(lib, Y)), RuntimeError)
    raises_like(lambda lib: lib.func.vjp(lambda x: x.sum(), t(lib, Y), has_aux=True),
                RuntimeError)
    raises_like(lambda lib: lib.func.vjp(lambda x: x * 2, t(lib, Y))[1](t(lib, X)), RuntimeError)


def model(lib):
    lib.manual_seed(0)
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.Linear(4, 2))
    return m


def test_functional_call_swaps_and_restores():
    def run(lib):
        m = model(lib)
        before = {k: v.clone() for k, v in m.state_dict().items()}
        params = {k: v * 0.5 for k, v in m.named_parameters()}
        out = lib.func.functional_call(m, (params, {"1.running_mean": t(lib, [1., 2, 3, 4])}),
                                       (t(lib, X),))
        after = m.state_dict()
        return out, tuple(after[k] for k in before), tuple(before.values())
    both(run)


def test_functional_call_gradients_and_single_arg():
    def run(lib):
        m = model(lib).eval()
        params = dict(m.named_parameters())
        g = lib.func.grad(lambda p: lib.func.functional_call(m, p, t(lib, X)).pow(2).sum())(params)
        return g, lib.func.functional_call(m, {}, t(lib, X), kwargs={})
    both(run)


def test_functional_call_tied_weights():
    def run(lib):
        lib.manual_seed(0)
        m = lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.Linear(3, 3))
        m[1].weight = m[0].weight
        new = {"0.weight": t(lib, np.eye(3, dtype=np.float32) * 2)}
        return (lib.func.functional_call(m, new, t(lib, X)),
                lib.func.functional_call(m, new, t(lib, X), tie_weights=False))
    both(run)


def test_functional_call_restores_after_an_exception():
    m = model(ember)
    w = m[0].weight
    with pytest.raises(RuntimeError):
        ember.func.functional_call(m, {"0.weight": ember.zeros(4, 3)}, ember.zeros(2, 5))
    assert m[0].weight is w and isinstance(m[0].weight, ember.nn.Parameter)


def test_functional_call_errors_match_torch():
    def clash(lib):
        x = t(lib, Y)
        return lib.func.functional_call(lib.nn.Linear(3, 2), ({"weight": x}, {"weight": x}), x)
    raises_like(clash, ValueError)
    raises_like(lambda lib: lib.func.functional_call(lib.nn.Linear(3, 2), {"wt": t(lib, Y)},
                                                     (t(lib, Y),), strict=True), RuntimeError)


def test_no_graph_under_no_grad():
    def run(lib):
        x = t(lib, Y, requires_grad=True)
        with lib.no_grad():
            return (lib.func.grad(lambda z: (z ** 3).sum())(x),
                    lib.func.jacrev(lambda z: z.exp())(x),
                    lib.func.vjp(lambda z: z * z, x)[1](t(lib, Y)))
    both(run)


def test_edge_shapes():
    both(lambda lib: lib.func.jacrev(lambda x: x ** 2)(t(lib, 3.0)))
    both(lambda lib: lib.func.vjp(lambda x, y: x * 2, t(lib, Y), t(lib, [1.0]))[1](t(lib, Y)))
    both(lambda lib: lib.func.grad(lambda x, y: (x * 2).sum(), argnums=1)(t(lib, Y),
                                                                         t(lib, [1.0])))


def test_jvp():
    def run(lib):
        jvp = lib.func.jvp
        f = (lambda x, y: {"p": x * y, "s": (x.cos() * y).sum(), "c": y * 0 + 1})
        return (jvp(f, (t(lib, X), t(lib, Y)), (t(lib, X * 2), t(lib, Y))),
                jvp(lambda x: (x.exp(), x.sum()), (t(lib, Y),), (t(lib, Y),), has_aux=True),
                jvp(lambda x, y: x * 3, (t(lib, Y), t(lib, X)), (t(lib, Y), t(lib, X))))
    both(run)


def test_hvp_by_jvp_of_grad_and_enclosing_graph():
    def run(lib):
        x = t(lib, Y, requires_grad=True)
        f = lib.func.grad(lambda z: (z.sin() * z ** 3).sum())
        plain = lib.func.jvp(f, (t(lib, Y),), (t(lib, [1.0, 2.0, -1.0]),))
        out, tangent = lib.func.jvp(f, (x,), (t(lib, [1.0, 2.0, -1.0]),))
        tangent.sum().backward()
        return plain, out, tangent, x.grad
    both(run)


def test_jvp_errors_match_torch():
    def run_with(primals, tangents, **kw):
        return lambda lib: lib.func.jvp(lambda x: x * 2, primals(lib), tangents(lib), **kw)
    raises_like(run_with(lambda lib: t(lib, Y), lambda lib: t(lib, Y)), RuntimeError)
    raises_like(run_with(lambda lib: (t(lib, Y),), lambda lib: (t(lib, [1.0, 2.0]),)),
                RuntimeError)
    raises_like(run_with(lambda lib: (t(lib, Y),), lambda lib: (t(lib, Y),), has_aux=True),
                RuntimeError)
    for tangents in (lambda lib: t(lib, Y), lambda lib: (t(lib, Y), t(lib, Y))):
        with pytest.raises(RuntimeError, match="Expected primals and tangents to have the same"):
            run_with(lambda lib: (t(lib, Y),), tangents)(ember)
        with pytest.raises(RuntimeError, match="Expected primals and tangents to have the same"):
            run_with(lambda lib: (t(lib, Y),), tangents)(torch)


def test_linearize_as_torch():
    def run(lib):
        x = t(lib, Y).double()
        out, jvp_fn = lib.func.linearize(lambda a, b: (a * b.exp()).sin(), x, x * 2)
        return out, jvp_fn(lib.ones_like(x), lib.zeros_like(x)), jvp_fn(x, x)
    both(run)


@pytest.mark.parametrize("bad", ["structure", "shape", "dtype"])
def test_linearize_checks_the_tangents_as_torch(bad):
    def run(lib):
        x = t(lib, Y)
        _, jvp_fn = lib.func.linearize(lambda a, b: a * b, x, x)
        tangents = {"structure": (x,), "shape": (t(lib, Y[:2]), x),
                    "dtype": (x.double(), x)}[bad]
        jvp_fn(*tangents)
    if bad == "structure":  # the specs' reprs differ between the pytree implementations
        for lib in (torch, ember):
            with pytest.raises(RuntimeError, match="to have the same argspec as the primals"):
                run(lib)
    else:
        raises_like(run, RuntimeError)
