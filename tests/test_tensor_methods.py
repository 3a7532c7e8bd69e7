"""Tensor methods bound in ember/_tensor_methods.py: conversions (to/type/float/long/cpu), the
new_* factories, in-place random fills, in-place math methods, aliases and Python operators,
against torch 2.13."""
import numpy as np
import pytest
import torch
from oracle import check, close

import ember


def test_to_and_type_conversions():
    x = ember.tensor([1.7, -2.2])
    assert x.to(ember.float64).dtype == ember.float64 and x.double().dtype == ember.float64
    assert x.long().tolist() == torch.tensor([1.7, -2.2]).long().tolist()
    assert x.to("cpu") is x and x.cpu() is x and x.type() == "ember.FloatTensor"
    assert x.to(ember.tensor([1], dtype=ember.int32)).dtype == ember.int32
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        x.to("cuda")  # torch's error on a CPU-only build (see tests/test_device.py)


@pytest.mark.parametrize("call", [lambda L: L.ones(2).to(requires_grad=True),
                                  lambda L: L.ones(2).to(L.float64, requires_grad=True)],
                         ids=["keyword_only", "with_dtype"])
def test_to_refuses_a_keyword_it_does_not_take_as_torch(call):
    # ember ignored to(requires_grad=True) (the former-Torch-users autograd tutorial): the
    # tensor silently stayed without grad where torch raises
    from oracle import same_error
    same_error(call, first_line=True)


@pytest.mark.parametrize("call", [
    lambda L: L.tensor([1, 2]).new_full((2,), 3.0), lambda L: L.tensor([1.0, 2.0]).new_tensor([3, 4]),
    lambda L: L.tensor([1.0], dtype=L.float64).new_zeros(2, 3),
    lambda L: L.tensor([1], dtype=L.int32).new_ones((2,)),
    lambda L: L.tensor([1.0]).new_zeros(2, dtype=L.int64),
])
def test_new_factories(call):
    close(call(ember), call(torch))


@pytest.mark.parametrize("name", ["round", "clamp_min", "tril", "cumsum", "sqrt", "expm1"])
def test_inplace_method_matches_torch_and_bumps_version(name):
    args = {"clamp_min": (0.2,), "cumsum": (0,)}.get(name, ())
    data = np.abs(np.random.default_rng(0).standard_normal((3, 3)))
    e, t = ember.tensor(data), torch.tensor(data)
    version = e._version
    out_e, out_t = getattr(e, name + "_")(*args), getattr(t, name + "_")(*args)
    assert out_e is e
    close(e, t)
    close(out_e, out_t)
    assert e._version > version


def test_round_with_decimals():
    data = np.array([1.2345, -2.5551, 0.5])
    close(ember.tensor(data).round(decimals=2), torch.tensor(data).round(decimals=2))
    close(ember.tensor(data).round(), torch.tensor(data).round())


@pytest.mark.parametrize("fn", [
    lambda L, x: x.clip(-0.3, 0.3), lambda L, x: x.subtract(x * 2),
    lambda L, x: x.multiply(x), lambda L, x: x.divide(x + 3), lambda L, x: x.view_as(x.t()),
    lambda L, x: x.expand_as(L.zeros(2, 3, 3, dtype=L.float64)), lambda L, x: x.mT,
    lambda L, x: x.H, lambda L, x: x.softmax(1), lambda L, x: x.log_softmax(0),
    lambda L, x: x.erf(), lambda L, x: x.where(x > 0, -x), lambda L, x: 2.0 - x,
    lambda L, x: 3.0 / (x + 5), lambda L, x: 2.0 ** x, lambda L, x: +x * -x,
    lambda L, x: x @ x[0], lambda L, x: x[0].outer(x[1]), lambda L, x: x.diagonal(),
])
def test_method_forms_match_torch(fn):
    check(fn, np.random.default_rng(1).standard_normal((3, 3)))


@pytest.mark.parametrize("fn", [
    lambda L, x: x == 1, lambda L, x: x != 1, lambda L, x: x < 1, lambda L, x: x >= 1,
    lambda L, x: x & 6, lambda L, x: 6 | x, lambda L, x: x ^ 3, lambda L, x: ~x,
    lambda L, x: x // 2, lambda L, x: 7 // x, lambda L, x: x % 3, lambda L, x: 7 % x,
    lambda L, x: x.type_as(L.zeros(1)), lambda L, x: x.eq(x) == (x == x),
])
def test_integer_operators_match_torch(fn):
    check(fn, np.array([[1, 2, 3], [4, 5, 6]]), grad=False)


def test_comparison_with_a_non_tensor_is_not_implemented():
    assert (ember.tensor([1.0]) == "a") is False
    assert (ember.tensor([1.0]) != None) is True  # noqa: E711


@pytest.mark.parametrize("fill", ["uniform_", "normal_", "exponential_"])
def test_random_fills_keep_shape_dtype_and_draw_torch_stream(fill):
    ember.manual_seed(3)
    torch.manual_seed(3)
    e = getattr(ember.zeros(4, 5, dtype=ember.float64), fill)()
    t = getattr(torch.zeros(4, 5, dtype=torch.float64), fill)()
    close(e, t)


def test_random_fill_range():
    e = ember.zeros(200, dtype=ember.int64).random_(3, 7)
    assert set(e.tolist()) <= {3, 4, 5, 6} and e.dtype == ember.int64


def test_tensors_hash_by_identity():
    a, b = ember.tensor([1.0]), ember.tensor([1.0])
    assert len({a, b, a}) == 2


@pytest.mark.parametrize("call", [
    lambda L: L.round(L.tensor([1, 0]), decimals=1), lambda L: L.round(L.tensor([15]), decimals=0),
    lambda L: L.tensor([1, 2]).round(decimals=-1), lambda L: L.round(L.tensor([True]), decimals=1),
    lambda L: L.round(L.tensor([True]), decimals=0), lambda L: L.round(L.tensor([1j]), decimals=1),
    lambda L: L.round(L.tensor([1], dtype=L.uint8), decimals=2)])
def test_round_with_decimals_refuses_non_floating_as_torch(call):
    """(an int was returned unrounded; bool leaked NumPy's UFuncTypeError)"""
    from oracle import same_error
    same_error(call)


def test_round_of_int_without_decimals_is_itself_as_torch():
    assert ember.round(ember.tensor([1, 2])).tolist() == torch.round(torch.tensor([1, 2])).tolist()


def test_methods_take_numpys_argument_names_as_torch():
    """torch's argument parser takes axis= for dim= and keepdims= for keepdim= (in methods as
    in functions); Tensor.norm, written in Python in torch, does not."""
    import torch
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    for lib in (ember, torch):
        t = lib.tensor(x)
        assert t.sum(axis=1, keepdims=True).shape == (3, 1)
        assert t.mean(1, keepdims=True).shape == (3, 1)
        assert t.amax(axis=0).shape == (4,)
        assert t.cumsum(axis=1).shape == (3, 4)
        assert t.unsqueeze(axis=0).shape == (1, 3, 4)
        np.testing.assert_allclose(t.softmax(axis=1).numpy(), lib.softmax(t, 1).numpy())
        np.testing.assert_allclose(lib.log_softmax(t, axis=0).numpy(), t.log_softmax(0).numpy())
        values, indices = t.max(axis=1, keepdims=True)
        assert values.shape == indices.shape == (3, 1)
        with pytest.raises(TypeError):
            t.norm(axis=1)
        with pytest.raises(TypeError):
            t.flip(axis=0)  # flip's parameter is dims: no alias


def test_edge_calls_torch_accepts():
    """complex div_ (ember refused every non-float dtype), topk / sort of empty rows, the
    broadcast_to method with an int size: each as torch."""
    import torch
    for lib in (ember, torch):
        a = lib.tensor([1 + 1j, 2], dtype=lib.complex64)
        a.div_(lib.tensor([1 + 1j, 2], dtype=lib.complex64))
        a.div_(2)
        assert a.tolist() == [0.5 + 0j, 0.5 + 0j]
        assert tuple(lib.zeros(0).topk(0).indices.shape) == (0,)
        assert tuple(lib.zeros(0, 3).topk(2).values.shape) == (0, 2)
        assert tuple(lib.zeros(1).broadcast_to(3).shape) == (3,)
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type Long"):
            lib.tensor([1, 2]).div_(2)
