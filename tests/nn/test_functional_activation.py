"""Functional activations: values, gradients, second derivatives and grad_fn names against
torch, plus in-place forms."""
import numpy as np
import pytest
import torch
from oracle import check
from oracle import kinkless as _input

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


@pytest.mark.parametrize("fn", [
    lambda lib, x: lib.softmax(x, 1), lambda lib, x: lib.log_softmax(x, -1),
    lambda lib, x: x.softmax(0), lambda lib, x: x.log_softmax(dim=1),
    lambda lib, x: lib.erf(x), lambda lib, x: x.erf()])
def test_tensor_methods_and_top_level_forms_match_torch(fn):
    check(fn, _input((3, 4), seed=4), rtol=1e-10, atol=1e-12, second=False)


def test_softmax_dtype_argument_casts_first():
    check(lambda lib, x: x.softmax(-1, dtype=lib.float32), _input((3, 4), seed=4), rtol=1e-6,
          atol=1e-7, second=False)


@pytest.mark.parametrize("name,args", [("elu_", ()), ("selu_", ()), ("celu_", ()),
                                       ("leaky_relu_", (0.2,)), ("hardtanh_", ()),
                                       ("threshold_", (0.1, 2.0))])
def test_functional_inplace_variants_match_torch(name, args):
    x = _input((3, 4), seed=8)
    e, t = ember.tensor(x), torch.tensor(x)
    assert getattr(ember.nn.functional, name)(e, *args) is e
    getattr(torch.nn.functional, name)(t, *args)
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-12)


def test_vectorised_erf_matches_math_erf():
    import math

    from ember.ops.activation_ops import _np_erf
    x = np.concatenate([np.linspace(-7, 7, 20001), [0.0, 1e-300, 2.0, 6.0, np.inf, -np.inf]])
    expected = np.array([math.erf(v) for v in x])
    np.testing.assert_allclose(_np_erf(x), expected, rtol=1e-14, atol=1e-15)
    assert np.isnan(_np_erf(np.array([np.nan]))[0])
    assert np.isnan(_np_erf(np.array([np.nan], np.float32))[0])
    x32 = x.astype(np.float32)
    expected32 = np.array([math.erf(float(v)) for v in x32])
    got32 = _np_erf(x32)
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32, expected32, rtol=2.5e-7, atol=1e-30)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_vectorised_erf_of_non_contiguous_input(dtype):
    # the tail (|x| > 2) is computed apart and written back by flat index: any layout
    import math

    from ember.ops.activation_ops import _np_erf
    x = np.linspace(-5, 5, 60).reshape(6, 10).T.astype(dtype)
    expected = np.vectorize(math.erf)(x.astype(np.float64))
    np.testing.assert_allclose(_np_erf(x), expected, rtol=2.5e-7, atol=1e-30)
    np.testing.assert_allclose(_np_erf(np.asfortranarray(x)), expected, rtol=2.5e-7, atol=1e-30)


@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax_draws_and_gradients_as_torch(hard):
    x = np.random.default_rng(0).standard_normal((3, 5))
    weights = np.arange(15.0).reshape(3, 5)
    got = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        t = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.gumbel_softmax(t, tau=0.7, hard=hard, dim=0)
        (y * lib.tensor(weights)).sum().backward()
        got.append((y.detach().numpy(), t.grad.numpy(), lib.rand(1).item()))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-10, atol=1e-12)
    assert got[0][2] == got[1][2]  # the same number of draws taken from the stream
    if hard:
        assert set(np.unique(got[0][0])) <= {0.0, 1.0}


def test_gumbel_softmax_eps_is_deprecated():
    for lib in (ember, torch):
        with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
            lib.nn.functional.gumbel_softmax(lib.zeros(2, 3), eps=1e-5)


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.rrelu(L.tensor([1.0, -1.0]), 0.5, 0.1),
    lambda L: L.nn.functional.rrelu(L.tensor([1.0, -1.0]), 0.5, 0.1, training=True),
    lambda L: L.nn.functional.rrelu_(L.tensor([1.0, -1.0]), 0.5, 0.1),
    lambda L: L.nn.RReLU(0.5, 0.1)(L.tensor([1.0, -1.0]))])
def test_rrelu_refuses_a_lower_bound_above_the_upper_as_torch(call):
    """(it computed with the bounds swapped)"""
    from oracle import same_error
    state = ember.get_rng_state().numpy().copy()
    same_error(call)
    np.testing.assert_array_equal(ember.get_rng_state().numpy(), state)  # nothing drawn
