"""The public functions of ember/ops/api/arithmetic.py (add, sub, mul, div, pow, clamp, where, masked_fill, maximum, ... and the comparisons),
called as ``ember.X``: values, gradients, second derivatives and grad_fn names against torch 2.13."""
import pytest
import torch
from oracle import check, same_error

import ember

from ._cases import POS, A, B, I

ARITHMETIC = {
    "add": (lambda L, a, b: L.add(a, b, alpha=-2.0), A, B),
    "sub": (lambda L, a, b: L.sub(a, b, alpha=0.5), A, B),
    "rsub_scalar": (lambda L, a: L.rsub(a, 2.0), A),
    "mul": (lambda L, a, b: L.mul(a, b[0]), A, B),
    "div": (lambda L, a, b: L.div(a, b + 3), A, B),
    "div_floor": (lambda L, a: L.div(L.tensor(I), 3, rounding_mode="floor"), A),
    "div_trunc": (lambda L, a: L.div(L.tensor(I), -3, rounding_mode="trunc"), A),
    "floor_divide": (lambda L, a: L.floor_divide(L.tensor(I), 4), A),
    "remainder": (lambda L, a: L.remainder(L.tensor(I), -3), A),
    "pow": (lambda L, a, b: L.pow(a, b), POS, A),
    "pow_scalar": (lambda L, a: L.pow(a, 3), A),
    "neg": (lambda L, a: L.neg(a), A),
    "clamp": (lambda L, a: L.clamp(a, min=-0.5, max=0.7), A),
    "clamp_tensor": (lambda L, a, b: L.clamp(a, min=b), A, B),
    "where": (lambda L, a, b: L.where(a > b, a, b), A, B),
    "masked_fill": (lambda L, a: L.masked_fill(a, a < 0, -1.5), A),
    "maximum": (lambda L, a, b: L.maximum(a, b), A, B),
    "minimum": (lambda L, a, b: L.minimum(a, b), A, B),
}

COMPARISONS = {
    "isclose": (lambda L, a, b: L.isclose(a, a + b * 1e-7), A, B),
    "isnan": (lambda L, a: L.isnan(L.log(a)), A),
    "isinf": (lambda L, a: L.isinf(1 / (a * 0)), A),
    "isfinite": (lambda L, a: L.isfinite(L.log(a)), A),
}


CASES = {**ARITHMETIC, **COMPARISONS}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, *inputs = CASES[name]
    check(fn, *inputs)


def test_rsub_of_two_tensors_matches_torch():
    check(lambda L, a, b: L.rsub(a, b), A, B)
    check(lambda L, a, b: L.rsub(a, b[0], alpha=-1.5), A, B)


def test_rsub_alpha_scales_the_gradient_as_torch():
    # was a silent wrong gradient: rsub(x, 2, alpha=3) gave d/dx = -1
    check(lambda L, a: L.rsub(a, 2.0, alpha=3), A)
    check(lambda L, a: 2.0 - a, A)


def test_equal_and_allclose_answer_as_torch():
    for lib in (ember, torch):
        a, b = lib.tensor(A), lib.tensor(B)
        assert lib.equal(a, a * 1) and not lib.equal(a, b)
        assert lib.allclose(a, a + 1e-9) and not lib.allclose(a, b)


@pytest.mark.parametrize("call", [
    lambda L: L.ones(2) & True, lambda L: L.ones(2) | L.ones(2), lambda L: L.ones(2) ^ 1,
    lambda L: L.ones(2, dtype=L.int32) & 1.5,
    lambda L: L.ones(2, dtype=L.float64) | L.ones(2, dtype=L.int64),
    lambda L: L.bitwise_not(L.ones(2, dtype=L.float16)), lambda L: ~L.ones(2)])
def test_bitwise_ops_on_floats_raise_as_torch(call):
    """torch refuses floating operands (NumPy's ufunc TypeError leaked before)."""
    caught = []
    for lib in (torch, ember):
        with pytest.raises((NotImplementedError, TypeError)) as info:
            call(lib)
        caught.append((info.type, str(info.value)))
    assert caught[1] == caught[0]


@pytest.mark.parametrize("call", [
    lambda L: L.maximum(L.tensor([1.0]), 2.0), lambda L: L.minimum(1.0, L.tensor([1.0])),
    lambda L: L.tensor([1.0]).maximum(2.0), lambda L: L.logical_and(L.tensor([True]), True),
    lambda L: L.logical_xor(L.tensor([True]), 1), lambda L: L.logical_not(True),
    lambda L: L.tensor([True]).logical_or(False), lambda L: L.isclose(L.tensor([1.0]), 1.0),
    lambda L: L.tensor([1.0]).allclose(1.0), lambda L: L.equal(L.tensor([1.0]), 1.0)])
def test_tensor_only_functions_refuse_numbers_as_torch(call):
    # ember took Python numbers (torch's signatures take tensors only)
    same_error(call)


# ---------------------------------------------------------------- ops outside the graph (fuzz finds)
_NOT_BROADCASTING = {
    "eq": lambda L, a, b: a == b, "lt": lambda L, a, b: L.lt(a, b), "ne": lambda L, a, b: a != b,
    "logical_and": lambda L, a, b: L.logical_and(a, b), "logical_xor": lambda L, a, b: L.logical_xor(a, b),
    "bitwise_and": lambda L, a, b: a.int() & b.int(), "bitwise_xor": lambda L, a, b: L.bitwise_xor(a.int(), b.int()),
    "isclose": lambda L, a, b: L.isclose(a, b), "allclose": lambda L, a, b: L.allclose(a, b),
}


@pytest.mark.parametrize("name", sorted(_NOT_BROADCASTING))
def test_shapes_that_do_not_broadcast_raise_torch_error(name):
    # NumPy's ValueError ("operands could not be broadcast") leaked before
    f = _NOT_BROADCASTING[name]
    with pytest.raises(RuntimeError) as expected:
        f(torch, torch.ones(2, 3), torch.ones(4))
    with pytest.raises(RuntimeError) as got:
        f(ember, ember.ones(2, 3), ember.ones(4))
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize("name", ["isclose", "allclose"])
def test_isclose_refuses_different_dtypes(name):
    for da, db in [("float32", "int32"), ("float32", "float64"), ("uint8", "bool")]:
        msgs = []
        for L in (torch, ember):
            with pytest.raises(RuntimeError) as info:
                getattr(L, name)(L.ones(3, dtype=getattr(L, da)), L.ones(3, dtype=getattr(L, db)))
            msgs.append(str(info.value))
        assert msgs[0] == msgs[1]


def test_python_int_past_an_integer_dtype_wraps_in_place_as_torch():
    # torch wraps the number into the tensor's dtype; NumPy 2 raised OverflowError
    for op in ["add_", "sub_", "mul_"]:
        out = []
        for L in (torch, ember):
            a = L.tensor([250, 3, 7], dtype=L.uint8)
            out.append(getattr(a.t(), op)(300).tolist())
        assert out[0] == out[1], op
    out = [(L.tensor([1, -5]) + 2 ** 63).tolist() for L in (torch, ember)]
    assert out[0] == out[1]


def test_integer_division_by_zero_of_an_empty_tensor_is_empty():
    for f in (lambda L, x: x // 0, lambda L, x: L.fmod(x, L.zeros(1, dtype=L.int8)),
              lambda L, x: L.remainder(x, 0)):
        assert f(ember, ember.ones(2, 0, dtype=ember.int16)).shape == \
            f(torch, torch.ones(2, 0, dtype=torch.int16)).shape
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        ember.ones(2, dtype=ember.int16) // 0


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("bounds", [{"max": 1e6}, {"min": -1e6}, {"max": 1e39}])
def test_clamp_bound_past_a_half_precision_range_is_refused(dtype, bounds):
    # float16/bfloat16 compute widened to float32, where 1e6 fits: no overflow check before
    if dtype == "float16" or "1e39" in str(bounds.values()):
        same_error(lambda L: L.ones(2, dtype=getattr(L, dtype)).clamp(**bounds))
    assert ember.ones(2, dtype=getattr(ember, dtype)).clamp(max=float("inf")).tolist() == [1, 1]
