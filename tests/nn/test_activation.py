"""Activations (functional and modules): values, gradients, second derivatives and grad_fn names
against torch, plus module reprs and in-place forms."""
import numpy as np
import pytest
import torch
from oracle import check

import ember

# (name, fn(lib, x)) - both libraries expose the same nn.functional API
CASES = [
    ("relu", lambda lib, x: lib.nn.functional.relu(x)),
    ("leaky_relu", lambda lib, x: lib.nn.functional.leaky_relu(x, 0.2)),
    ("elu", lambda lib, x: lib.nn.functional.elu(x, alpha=0.7)),
    ("selu", lambda lib, x: lib.nn.functional.selu(x)),
    ("celu", lambda lib, x: lib.nn.functional.celu(x, alpha=1.5)),
    ("gelu", lambda lib, x: lib.nn.functional.gelu(x)),
    ("gelu_tanh", lambda lib, x: lib.nn.functional.gelu(x, approximate="tanh")),
    ("silu", lambda lib, x: lib.nn.functional.silu(x)),
    ("mish", lambda lib, x: lib.nn.functional.mish(x)),
    ("sigmoid", lambda lib, x: lib.nn.functional.sigmoid(x)),
    ("tanh", lambda lib, x: lib.nn.functional.tanh(x)),
    ("softplus", lambda lib, x: lib.nn.functional.softplus(x)),
    ("softplus_beta", lambda lib, x: lib.nn.functional.softplus(x, beta=2.0, threshold=1.0)),
    ("softmax0", lambda lib, x: lib.nn.functional.softmax(x, dim=0)),
    ("softmax_last", lambda lib, x: lib.nn.functional.softmax(x, dim=-1)),
    ("log_softmax", lambda lib, x: lib.nn.functional.log_softmax(x, dim=-1)),
    ("log_softmax0", lambda lib, x: lib.nn.functional.log_softmax(x, dim=0)),
    ("softmin", lambda lib, x: lib.nn.functional.softmin(x, dim=-1)),
    ("hardtanh", lambda lib, x: lib.nn.functional.hardtanh(x, -0.5, 0.8)),
    ("relu6", lambda lib, x: lib.nn.functional.relu6(x * 4)),
    ("logsigmoid", lambda lib, x: lib.nn.functional.logsigmoid(x)),
    ("hardsigmoid", lambda lib, x: lib.nn.functional.hardsigmoid(x * 4)),
    ("hardswish", lambda lib, x: lib.nn.functional.hardswish(x * 4)),
    ("hardshrink", lambda lib, x: lib.nn.functional.hardshrink(x, 0.3)),
    ("softshrink", lambda lib, x: lib.nn.functional.softshrink(x, 0.3)),
    ("softsign", lambda lib, x: lib.nn.functional.softsign(x)),
    ("tanhshrink", lambda lib, x: lib.nn.functional.tanhshrink(x)),
    ("threshold", lambda lib, x: lib.nn.functional.threshold(x, 0.1, -2.0)),
    ("glu", lambda lib, x: lib.nn.functional.glu(x, dim=-1)),
]

SHAPES = [(6,), (3, 4), (2, 3, 4)]


def _input(shape, seed=0):
    x = np.random.default_rng(seed).standard_normal(shape) * 2
    x[np.abs(x) < 1e-3] = 0.5  # keep away from kinks, where one-sided derivatives differ
    return x


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_matches_torch_float64(name, fn, shape):
    second = name != "hardsigmoid"  # torch has no double backward for hardsigmoid
    check(fn, _input(shape), rtol=1e-10, atol=1e-12, second=second)


@pytest.mark.parametrize("name,fn", CASES, ids=[c[0] for c in CASES])
def test_matches_torch_float32(name, fn):
    check(fn, _input((4, 6)).astype(np.float32), rtol=1e-5, atol=1e-6, second=False)


def test_extreme_values_are_finite():
    x = np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0], dtype=np.float32)
    for name, fn in CASES:
        if name == "glu":
            continue
        out = fn(ember, ember.tensor(x))
        ref = fn(torch, torch.tensor(x))
        np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=name)


MODULES = [
    ("ReLU", (), {}), ("ReLU", (), {"inplace": True}), ("LeakyReLU", (0.2,), {}),
    ("LeakyReLU", (), {"inplace": True}), ("ELU", (0.5,), {}), ("CELU", (), {}),
    ("SELU", (), {}), ("GELU", (), {}), ("GELU", (), {"approximate": "tanh"}), ("SiLU", (), {}),
    ("Mish", (), {}), ("Sigmoid", (), {}), ("Tanh", (), {}), ("Softplus", (2.0, 10.0), {}),
    ("Softmax", (1,), {}), ("LogSoftmax", (-1,), {}), ("Softmin", (1,), {}),
    ("Hardtanh", (-2.0, 2.0), {}), ("ReLU6", (), {}), ("Threshold", (0.1, 20.0), {}),
    ("LogSigmoid", (), {}), ("Hardsigmoid", (), {}), ("Hardswish", (), {}),
    ("Hardshrink", (), {}), ("Softshrink", (0.2,), {}), ("Softsign", (), {}),
    ("Tanhshrink", (), {}), ("GLU", (), {}), ("PReLU", (), {}),
]


@pytest.mark.parametrize("name,args,kwargs", MODULES, ids=[m[0] for m in MODULES])
def test_modules_match_torch(name, args, kwargs):
    e_mod = getattr(ember.nn, name)(*args, **kwargs)
    t_mod = getattr(torch.nn, name)(*args, **kwargs)
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    x = _input((3, 4), seed=1).astype(np.float32)
    e_out = e_mod(ember.tensor(x))
    t_out = t_mod(torch.tensor(x))
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-6,
                               atol=1e-7)


def test_prelu_gradients_match_torch():
    x = _input((2, 3, 4), seed=2)
    for n in (1, 3):
        check(lambda lib, v, w: lib.nn.functional.prelu(v, w), x, np.full(n, 0.25),
              rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("fn_name", ["relu", "leaky_relu", "elu", "silu", "hardtanh", "relu6",
                                     "selu", "mish"])
def test_inplace_forms_match_torch(fn_name):
    x = _input((3, 4), seed=3)
    for lib in (ember, torch):
        base = lib.tensor(x, requires_grad=True)
        y = base * 1
        out = getattr(lib.nn.functional, fn_name)(y, inplace=True)
        assert out is y
        out.sum().backward()
        if lib is ember:
            e_val, e_grad = y.detach().numpy().copy(), base.grad.numpy().copy()
        else:
            np.testing.assert_allclose(e_val, y.detach().numpy(), rtol=1e-12)
            np.testing.assert_allclose(e_grad, base.grad.numpy(), rtol=1e-12)


def test_softmax_errors_and_defaults():
    x = ember.randn(2, 3)
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of "
                       r"\[-2, 1\], but got 2\)"):
        ember.nn.functional.softmax(x, dim=2)
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        out = ember.nn.functional.softmax(x)
    np.testing.assert_allclose(out.sum(1).numpy(), np.ones(2), rtol=1e-6)
    y = ember.nn.functional.softmax(ember.tensor([1.0, 2.0]), dim=0, dtype=ember.float64)
    assert y.dtype == ember.float64
    with pytest.raises(RuntimeError, match="approximate argument must be either none or tanh"):
        ember.nn.functional.gelu(x, approximate="fast")
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        ember.nn.functional.glu(ember.randn(2, 3))
