"""ember/ops/pointwise.py against torch: the public functions' argument handling (tensor-only
arguments, numbers), float_power, mvlgamma, the predicates, is_nonzero, frexp and out=."""
import numpy as np
import pytest
import torch
from oracle import check, close, same_error

import ember

R = np.random.default_rng(0)
F = np.array([1.5, -2.0, 0.0, -0.0, np.inf, -np.inf, np.nan], np.float32)
I = np.array([1, -2, 0, 7])


@pytest.mark.parametrize("name", ["signbit", "isposinf", "isneginf", "isreal", "sgn"])
@pytest.mark.parametrize("data", [F, I, np.array([True, False])])
def test_predicates(name, data):
    if name == "sgn" and data.dtype == np.bool_:
        data = I
    close(getattr(ember, name)(ember.tensor(data)), getattr(torch, name)(torch.tensor(data)))


def test_positive_is_the_input():
    x = ember.tensor([1.0, -2.0])
    assert ember.positive(x) is x and x.positive() is x
    same_error(lambda L: L.positive(L.tensor([True])))


def test_is_nonzero():
    for data in ([0.0], [2], [False], [[3.0]]):
        assert ember.is_nonzero(ember.tensor(data)) == torch.is_nonzero(torch.tensor(data))
    same_error(lambda L: L.is_nonzero(L.tensor([1.0, 2.0])))
    same_error(lambda L: L.is_nonzero(L.tensor([])))


def test_frexp():
    m, e = ember.frexp(ember.tensor(F[:4]))
    tm, te = torch.frexp(torch.tensor(F[:4]))
    close(m, tm)
    close(e, te)
    assert ember.frexp(ember.tensor(F[:4])).exponent is not None
    same_error(lambda L: L.frexp(L.tensor([1, 2])))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_frexp_mantissa_is_differentiable_as_torch(dtype):
    """torch's FrexpBackward0: d mantissa / dx = 2^-exponent (the mantissa had no grad_fn)."""
    x = (R.standard_normal(7) * np.array([1, 10, 1e-3, 300, 1e5, 0.5, 4])).astype(dtype)
    check(lambda L, t: L.frexp(t)[0], x)
    check(lambda L, t: L.frexp(t * 3).mantissa.sin(), x)


def test_float_power():
    check(lambda L, x, y: L.float_power(x, y), np.abs(R.standard_normal(4)) + 0.1,
          R.standard_normal(4))
    close(ember.float_power(ember.tensor(I), 2), torch.float_power(torch.tensor(I), 2))
    close(ember.float_power(2, ember.tensor([1.0, 3.0])),
          torch.float_power(2, torch.tensor([1.0, 3.0])))
    same_error(lambda L: L.tensor([1.0, 2.0]).float_power_(2))
    e = ember.tensor([1.0, 2.0], dtype=ember.float64).float_power_(3)
    close(e, torch.tensor([1.0, 8.0], dtype=torch.float64))


def test_mvlgamma():
    x = R.uniform(2.0, 5.0, (3, 2))
    check(lambda L, t: L.mvlgamma(t, 3), x, rtol=1e-7, atol=1e-7)
    check(lambda L, t: t.mvlgamma(1), x, rtol=1e-7, atol=1e-7)
    same_error(lambda L: L.mvlgamma(L.tensor([0.5, 3.0]), 0))
    for data in ([0.5, 3.0], [1, 2]):  # no domain check in torch 2.13: inf below (p-1)/2
        close(ember.mvlgamma(ember.tensor(data), 3), torch.mvlgamma(torch.tensor(data), 3))


def test_tensor_only_arguments():
    for name in ("atan2", "hypot", "fmax", "logaddexp", "gcd", "ldexp", "nextafter"):
        with pytest.raises(TypeError, match="must be Tensor"):
            getattr(ember, name)(ember.tensor([1.0]), 2)
        with pytest.raises(TypeError):
            getattr(torch, name)(torch.tensor([1.0]), 2)


def test_out():
    out = ember.empty(3)
    a, b = R.standard_normal(3).astype(np.float32), R.standard_normal(3).astype(np.float32)
    assert ember.atan2(ember.tensor(a), ember.tensor(b), out=out) is out
    close(out, torch.atan2(torch.tensor(a), torch.tensor(b)))
    assert ember.lgamma(ember.tensor(a), out=out) is out
    close(out, torch.lgamma(torch.tensor(a)))


@pytest.mark.parametrize("call", [
    lambda L: L.signbit(L.tensor([1 + 1j, 2 + 0j])), lambda L: L.isposinf(L.tensor([1 + 1j, 2 + 0j])), lambda L: L.tensor([1 + 1j, 2 + 0j]).isneginf(),
    lambda L: L.mvlgamma(L.tensor([True]), 1), lambda L: L.mvlgamma(L.tensor([1 + 1j, 2 + 0j]), 1)])
def test_predicates_and_mvlgamma_refuse_as_torch(call):
    """(signbit/isposinf/isneginf of complex were all False; mvlgamma computed on bool)"""
    same_error(call)


def test_isreal_of_complex_as_torch():
    """(it was True everywhere)"""
    for lib in (torch, ember):
        assert lib.isreal(lib.tensor([1 + 1j, 2 + 0j, 0j])).tolist() == [False, True, True]


@pytest.mark.parametrize("call", [
    lambda L: L.xlogy(L.tensor([0, 2, 3], dtype=L.int8), 300),
    lambda L: L.xlogy(300, L.tensor([0, 2, 3], dtype=L.int8)),
    lambda L: L.xlogy(L.tensor([True, False]), 2), lambda L: L.xlogy(L.tensor([0, 2, 3]), 2.5)])
def test_xlogy_of_integers_reads_numbers_as_given(call):
    # ember wrapped 300 into int8 (44) before the float computation
    ours, theirs = call(ember), call(torch)
    assert str(ours.dtype) == str(theirs.dtype).replace("torch", "ember")
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("int64", "float32"), ("float16", "float32")])
def test_heaviside_refuses_different_dtypes(dtypes):
    same_error(lambda L: L.heaviside(L.ones(2).to(getattr(L, dtypes[0])),
                                     L.tensor(0.5).to(getattr(L, dtypes[1]))))
