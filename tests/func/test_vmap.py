"""torch.func.vmap (ember/func/_vmap.py, a per-sample loop) and stack_module_state against
torch: values, gradients through the mapped call, per-sample gradients, model ensembling,
nesting, in_dims/out_dims pytrees, randomness modes and errors."""
import numpy as np
import pytest
import torch
from oracle import same_error

import ember

R = np.random.default_rng(0)
X = R.standard_normal((3, 4)).astype(np.float32)
Y = R.standard_normal((4, 3)).astype(np.float32)


def _both(run):
    e, t = run(ember), run(torch)
    _same(e, t)
    return e, t


def _same(e, t):
    if isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            _same(a, b)
    elif isinstance(t, dict):
        assert list(e) == list(t)
        for k in t:
            _same(e[k], t[k])
    else:
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda L: L.vmap(L.sum)(L.tensor(X)),
    lambda L: L.func.vmap(lambda a, b: a * b, in_dims=(0, None))(L.tensor(X), L.tensor(Y[:, 0])),
    lambda L: L.func.vmap(lambda a, b: a @ b, in_dims=(1, None))(L.tensor(X), L.tensor(Y[:3])),
    lambda L: L.func.vmap(lambda a: a.sin(), in_dims=-1, out_dims=1)(L.tensor(X)),
    lambda L: L.func.vmap(lambda a: (a.sum(), a * 2), out_dims=(0, 1))(L.tensor(X)),
    lambda L: L.func.vmap(lambda d: d["x"] + d["y"], in_dims=({"x": 0, "y": None},))(
        {"x": L.tensor(X), "y": L.tensor(Y[:, 0])}),
    lambda L: L.func.vmap(lambda a, s: a * s, in_dims=(0, None))(L.tensor(X), 2.5),
    lambda L: L.func.vmap(L.func.vmap(L.dot))(L.tensor(X[None].repeat(2, 0)),
                                              L.tensor(X[None].repeat(2, 0))),
    lambda L: L.func.vmap(lambda a, scale=1.0: a * scale)(L.tensor(X), scale=3.0)])
def test_vmap_values_as_torch(call):
    _both(call)


def test_gradients_flow_through_vmap_as_torch():
    def run(lib):
        x = lib.tensor(X, requires_grad=True)
        w = lib.tensor(Y, requires_grad=True)
        out = lib.func.vmap(lambda row: (row @ w).tanh().sum())(x)
        out.pow(2).sum().backward()
        return out, x.grad, w.grad
    _both(run)


def test_per_sample_gradients_as_torch():
    # the torch tutorial's recipe: vmap(grad(loss), in_dims=(None, None, 0, 0))
    def run(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 5), lib.nn.ReLU(), lib.nn.Linear(5, 2))
        params = {k: v.detach() for k, v in model.named_parameters()}
        buffers = {k: v.detach() for k, v in model.named_buffers()}

        def loss(p, b, sample, target):
            out = lib.func.functional_call(model, (p, b), (sample.unsqueeze(0),))
            return lib.nn.functional.cross_entropy(out, target.unsqueeze(0))
        data, targets = lib.tensor(X), lib.tensor([0, 1, 1])
        return lib.func.vmap(lib.func.grad(loss), in_dims=(None, None, 0, 0))(
            params, buffers, data, targets)
    _both(run)


def test_model_ensembling_with_stack_module_state_as_torch():
    def run(lib):
        lib.manual_seed(0)
        models = [lib.nn.Linear(4, 2) for _ in range(3)]
        params, buffers = lib.func.stack_module_state(models)
        assert all(p.requires_grad and p.is_leaf for p in params.values())

        def one(p, b, x):
            return lib.func.functional_call(models[0], (p, b), (x,))
        return lib.func.vmap(one, in_dims=(0, 0, None))(params, buffers, lib.tensor(X)), params
    _both(run)


@pytest.mark.parametrize("call", [
    lambda L: L.func.vmap(L.sum)(L.tensor(3.0)),
    lambda L: L.func.vmap(L.sum, in_dims=2)(L.tensor(X)),
    lambda L: L.func.vmap(L.add)(L.tensor(X), L.tensor(Y)),
    lambda L: L.func.vmap(L.sum, in_dims=None)(L.tensor(X)),
    lambda L: L.func.vmap(lambda a: 1.0)(L.tensor(X)),
    lambda L: L.func.vmap(lambda a, s: a, in_dims=(0, 0))(L.tensor(X), 2.0),
    lambda L: L.func.vmap(L.sum, randomness="bad")(L.tensor(X)),
    lambda L: L.func.vmap(lambda a: a + L.rand(4))(L.tensor(X))])
def test_vmap_errors_as_torch(call):
    with pytest.raises(Exception) as t_info:
        call(torch)
    with pytest.raises(t_info.type):
        call(ember)


def test_randomness_same_gives_every_sample_the_same_draws():
    out = ember.func.vmap(lambda a: a * 0 + ember.rand(4), randomness="same")(ember.tensor(X))
    assert all(ember.equal(out[0], row) for row in out)
    different = ember.func.vmap(lambda a: a * 0 + ember.rand(4), randomness="different")(
        ember.tensor(X))
    assert not ember.equal(different[0], different[1])


def test_nested_errors_name_the_function():
    same_error(lambda lib: lib.func.vmap(lambda a: 1.0)(lib.tensor(X)))
