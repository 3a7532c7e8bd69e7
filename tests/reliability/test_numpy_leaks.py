"""No NumPy exception or warning escapes ember's public API: a broad set of ops on edge inputs
(NaN, inf, empty, 0-d, bool, int) runs with every warning turned into an error, and each outcome
(a result of some dtype, or an exception type) must be torch's."""
import warnings

import pytest
import torch

import ember

nan, inf = float("nan"), float("inf")
INPUTS = {
    "nan": lambda L: L.tensor([nan, 1.0, -2.0]), "inf": lambda L: L.tensor([inf, -inf, 0.0]),
    "zero": lambda L: L.tensor([0.0, -0.0, 1.0]), "empty": lambda L: L.zeros(0),
    "empty2d": lambda L: L.zeros(0, 3), "scalar": lambda L: L.tensor(2.0),
    "scalar_nan": lambda L: L.tensor(nan), "bool": lambda L: L.tensor([True, False]),
    "int": lambda L: L.tensor([3, 0, -2]), "int0d": lambda L: L.tensor(3),
}


def F(L):
    return L.nn.functional


OPS = {
    "sum0": lambda L, x: x.sum(0), "sum-1": lambda L, x: x.sum(-1), "mean0": lambda L, x: x.mean(0),
    "mean": lambda L, x: x.mean(), "amax0": lambda L, x: x.amax(0), "amin-1": lambda L, x: x.amin(-1),
    "prod0": lambda L, x: x.prod(0), "var0": lambda L, x: x.var(0), "std-1": lambda L, x: x.std(-1),
    "logsumexp0": lambda L, x: L.logsumexp(x, 0), "max0": lambda L, x: x.max(0)[0],
    "argmax0": lambda L, x: x.argmax(0), "softmax0": lambda L, x: L.softmax(x, 0),
    "log_softmax-1": lambda L, x: F(L).log_softmax(x, -1), "cumsum0": lambda L, x: x.cumsum(0) if hasattr(x, "cumsum") else None,
    "norm": lambda L, x: x.norm(), "max": lambda L, x: x.max(), "sum": lambda L, x: x.sum(),
    "neg": lambda L, x: -x, "sub": lambda L, x: x - x, "rsub": lambda L, x: 1 - x,
    "floor": lambda L, x: x.floor(), "ceil": lambda L, x: x.ceil(), "round": lambda L, x: x.round(),
    "trunc": lambda L, x: x.trunc(), "sign": lambda L, x: x.sign(), "abs": lambda L, x: x.abs(),
    "sqrt": lambda L, x: x.sqrt(), "log": lambda L, x: x.log(), "exp": lambda L, x: x.exp(),
    "div0": lambda L, x: x / 0, "divx": lambda L, x: 1 / x, "mod0": lambda L, x: x % 0,
    "floordiv0": lambda L, x: x // 0, "inf-inf": lambda L, x: x * inf - x * inf,
    "pow-1": lambda L, x: x ** -1, "pow-2": lambda L, x: x.pow(-2), "pow2": lambda L, x: x ** 2,
    "pow0.5": lambda L, x: x ** 0.5, "rpow": lambda L, x: 2 ** x,
    "relu": lambda L, x: x.relu(), "sigmoid": lambda L, x: x.sigmoid(), "tanh": lambda L, x: x.tanh(),
    "gelu": lambda L, x: F(L).gelu(x), "silu": lambda L, x: F(L).silu(x), "elu": lambda L, x: F(L).elu(x),
    "leaky": lambda L, x: F(L).leaky_relu(x), "softplus": lambda L, x: F(L).softplus(x),
    "hardtanh": lambda L, x: F(L).hardtanh(x), "relu6": lambda L, x: F(L).relu6(x),
    "clamp": lambda L, x: x.clamp(0, 1), "masked_fill_-inf": lambda L, x: x.masked_fill(x > 0, -inf),
    "masked_fill_nan": lambda L, x: x.masked_fill(x > 0, nan), "fill_inf": lambda L, x: x.clone().fill_(inf),
    "cat_empty": lambda L, x: L.cat([x, L.zeros(0)]), "cat_self": lambda L, x: L.cat([x, x]),
    "stack": lambda L, x: L.stack([x, x]), "reciprocal": lambda L, x: x.reciprocal(),
    "rsqrt": lambda L, x: x.rsqrt(), "log1p": lambda L, x: x.log1p(), "sin": lambda L, x: x.sin(),
    "mul_bool": lambda L, x: x * True, "add_bool": lambda L, x: x + x, "bitnot": lambda L, x: ~x,
    "matmul": lambda L, x: x @ x, "dot": lambda L, x: L.dot(x, x), "maximum": lambda L, x: L.maximum(x, x),
    "where": lambda L, x: L.where(x > 0, x, x), "tolist_item": lambda L, x: x.sum().item(),
    "to_int": lambda L, x: x.to(L.int64), "to_bool": lambda L, x: x.to(L.bool), "isnan": lambda L, x: L.isnan(x),
    "float_idx": lambda L, x: x[x.long()] if x.numel() else x, "eq_nan": lambda L, x: x == nan,
    "mean_int": lambda L, x: x.mean(), "std": lambda L, x: x.std(), "var": lambda L, x: x.var(),
    "sort": lambda L, x: x.sort()[0] if hasattr(x, "sort") else None, "median": lambda L, x: x.median() if hasattr(x, "median") else None,
    "topk": lambda L, x: x.topk(1)[0] if hasattr(x, "topk") else None, "mse": lambda L, x: F(L).mse_loss(x, x),
    "cross_entropy": lambda L, x: F(L).cross_entropy(x.reshape(1, -1), L.tensor([0])),
    "layer_norm": lambda L, x: F(L).layer_norm(x, x.shape), "dropout": lambda L, x: F(L).dropout(x, 0.0),
}


# known gaps, each reported and required to start passing once fixed (strict); none left
KNOWN_GAPS = set()


def outcome(L, op, inp):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            out = OPS[op](L, INPUTS[inp](L))
        except Exception as error:  # the exception's type is the outcome
            module = type(error).__module__.split(".")[0]
            return ("builtins" if module == "torch" else module) + "." + type(error).__name__
        if out is None:
            return None
        return "ok:" + str(out.dtype).split(".")[-1] if hasattr(out, "dtype") else "ok"


CASES = [pytest.param(op, inp, marks=pytest.mark.xfail(strict=True, reason="known gap"))
         if (op, inp) in KNOWN_GAPS else (op, inp) for op in OPS for inp in INPUTS]


@pytest.mark.parametrize("op,inp", CASES)
def test_outcome_matches_torch(op, inp):
    want = outcome(torch, op, inp)
    if want is None:
        pytest.skip("torch has no such op")
    got = outcome(ember, op, inp)
    if got is None:
        pytest.skip("ember has no such op yet")
    assert not got.startswith("numpy."), got
    assert got == want


MESSAGES = {
    "cat_0d": lambda L: L.cat([L.tensor(1.0), L.tensor(2.0)]),
    "int_negative_power": lambda L: L.tensor([2, 3]) ** -1,
    "masked_fill_inf_int": lambda L: L.tensor([1, 2]).masked_fill(L.tensor([True, False]),
                                                                 float("-inf")),
    "fill_nan_int": lambda L: L.tensor([1, 2]).fill_(float("nan")),
    "int_remainder_zero": lambda L: L.tensor([5, 3]) % 0,
    "int_floor_divide_zero": lambda L: L.tensor([5, 3]) // L.tensor([1, 0]),
    "floor_bool": lambda L: L.tensor([True]).floor(),
    "relu_bool": lambda L: L.tensor([True]).relu(),
    "softmax_int": lambda L: L.softmax(L.tensor([1, 2]), 0),
    "argmax_bool": lambda L: L.tensor([True, False]).argmax(0),
    "max_empty_dim": lambda L: L.zeros(0, 3).max(0),
    "var_int": lambda L: L.tensor([1, 2]).var(),
    "pow_bool_bool": lambda L: L.tensor([True]) ** L.tensor([True]),
    "gelu_int": lambda L: L.nn.functional.gelu(L.tensor([1, 2])),
    "selu_bool": lambda L: L.nn.functional.selu(L.tensor([True])),
    "softshrink_byte": lambda L: L.nn.functional.softshrink(L.tensor([1], dtype=L.uint8)),
    "hardswish_int": lambda L: L.nn.functional.hardswish(L.tensor(3)),
    "relu6_bool": lambda L: L.nn.functional.relu6(L.tensor([True])),
    "layer_norm_int": lambda L: L.nn.functional.layer_norm(L.tensor([[1, 2]]), (2,)),
    "layer_norm_0d": lambda L: L.nn.functional.layer_norm(L.tensor(2.0), ()),
}


@pytest.mark.parametrize("name", sorted(MESSAGES))
def test_error_type_and_message_match_torch(name):
    errors = []
    for L in (ember, torch):
        with pytest.raises(Exception) as info:
            MESSAGES[name](L)
        errors.append((type(info.value).__name__, str(info.value).replace("torch.", "")))
    assert errors[0] == errors[1]


ZERO_DIM = {"sum": lambda L, x, d: x.sum(d), "mean": lambda L, x, d: x.mean(d),
            "amax": lambda L, x, d: x.amax(d), "prod": lambda L, x, d: x.prod(d),
            "logsumexp": lambda L, x, d: L.logsumexp(x, d), "max": lambda L, x, d: x.max(d)[0],
            "argmax": lambda L, x, d: x.argmax(d), "amin_keep": lambda L, x, d: x.amin(d, True)}


@pytest.mark.parametrize("dim", [0, -1])
@pytest.mark.parametrize("op", sorted(ZERO_DIM))
def test_zero_dim_tensors_reduce_over_dim_0_and_minus_1(op, dim):
    got, want = (ZERO_DIM[op](L, L.tensor(2.5), dim) for L in (ember, torch))
    assert got.shape == want.shape and got.item() == want.item()


def test_cat_skips_legacy_empty_tensors():
    for shapes in ([(0,), (2, 3)], [(2, 3), (0,)], [(0, 3), (0,)], [(0,), (2, 3), (0,)]):
        got, want = (L.cat([L.zeros(s) for s in shapes]) for L in (ember, torch))
        assert tuple(got.shape) == tuple(want.shape)


@pytest.mark.parametrize("bounds", [(-1.0, 1.0), (-0.5, 1.5), (0.0, 6.0)])
def test_hardtanh_clamps_integers_as_integers(bounds):
    got, want = (L.nn.functional.hardtanh(L.tensor([3, 0, -2, 1]), *bounds) for L in (ember, torch))
    assert got.dtype == ember.int64 and got.tolist() == want.tolist()


def test_integer_powers_with_negative_tensor_exponents():
    for L in (ember, torch):
        e = L.tensor([-1, 2, -3, -2])
        assert (L.tensor([2, 3, -1, 1]) ** e).tolist() == [0, 9, -1, 1]
        assert (2 ** e).tolist() == [0, 4, 0, 0]


def test_nan_and_inf_flow_silently_through_forward_and_backward():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x = ember.tensor([0.0, 1.0, float("inf")], requires_grad=True)
        y = (x.log() + 1 / x + x * float("inf") - x * float("inf") + x.sqrt()).sum()
        y.backward()
    assert y.item() != y.item() and x.grad[0].item() != x.grad[0].item()


def test_the_callers_numpy_error_state_is_kept():
    import numpy as np
    with np.errstate(divide="raise"):
        ember.tensor([1.0]) / 0  # ember's kernels are quiet ...
        with pytest.raises(FloatingPointError):
            np.array([1.0]) / 0  # ... the caller's own NumPy calls are not
    assert np.geterr()["divide"] == "warn"
