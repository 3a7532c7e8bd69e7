"""ember/ops/elementwise_extra.py against torch: each extra unary and binary op's values,
gradients, second derivatives and grad_fn name, dtype promotion and torch's errors."""
import numpy as np
import pytest
import torch
from oracle import check, close, same_error, wide_inputs

import ember

R = np.random.default_rng(0)
X = R.standard_normal((3, 4))
POS = R.uniform(0.2, 4.0, (3, 4))
UNIT = R.uniform(-0.9, 0.9, (3, 4))
PROB = R.uniform(0.05, 0.95, (3, 4))
ABOVE1 = R.uniform(1.2, 4.0, (3, 4))

UNARY = {  # name: (inputs, tolerance)
    "acosh": (ABOVE1, 1e-7), "asinh": (X, 1e-7), "atanh": (UNIT, 1e-7), "erfc": (X * 3, 1e-7),
    "erfinv": (UNIT, 1e-7), "lgamma": (X * 3, 1e-7), "digamma": (X * 3, 1e-7),
    "i0": (X * 4, 1e-7), "sinc": (X, 1e-7), "frac": (X * 3, 1e-7), "exp2": (X, 1e-7),
    "sgn": (X, 1e-7), "deg2rad": (X, 1e-7), "rad2deg": (X, 1e-7), "arcsinh": (X, 1e-7),
    "arccosh": (ABOVE1, 1e-7), "arctanh": (UNIT, 1e-7),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_against_torch(name):
    data, tol = UNARY[name]
    check(lambda L, x: getattr(L, name)(x), data, rtol=tol, atol=tol)
    check(lambda L, x: getattr(x, name)(), data, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", ["erfc", "erfinv", "lgamma", "digamma", "i0", "sinc", "exp2",
                                  "deg2rad", "asinh", "sgn"])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_unary_dtypes(name, dtype):
    data = (UNIT * 0.9 if name == "erfinv" else X * 3).astype(dtype)
    if dtype == "int64" and name == "erfinv":
        data = np.array([0, 1, -1, 2])
    close(getattr(ember, name)(ember.tensor(data)), getattr(torch, name)(torch.tensor(data)),
          rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("n", [1, 2, 3])
def test_polygamma(n):
    check(lambda L, x: L.polygamma(n, x), POS, rtol=1e-7, atol=1e-7)
    check(lambda L, x: x.polygamma(n), POS, rtol=1e-7, atol=1e-7)


def test_logit():
    check(lambda L, x: L.logit(x), PROB)
    check(lambda L, x: L.logit(x, eps=0.2), PROB)
    check(lambda L, x: x.logit(0.1), R.uniform(-0.5, 1.5, (3, 4)), second=False)


def test_special_edge_values():
    edges = [0.0, -0.0, -1.0, -2.5, 1.0, 2.0, float("inf"), -float("inf"), float("nan"), 1e-30,
             170.0, -170.3]
    for name in ("lgamma", "digamma", "erfc", "i0", "sinc", "frac", "sgn"):
        for dtype in (np.float32, np.float64):
            data = np.array(edges, dtype=dtype)
            close(getattr(ember, name)(ember.tensor(data)),
                  getattr(torch, name)(torch.tensor(data)), rtol=1e-6, atol=1e-30, what=name)
    u = np.array([1.0, -1.0, 2.0, 0.0, -0.0, 1 - 1e-12, -0.999999, 1e-300])
    close(ember.erfinv(ember.tensor(u)), torch.erfinv(torch.tensor(u)), rtol=1e-12, atol=0)


def test_integer_and_bool_refusals():
    same_error(lambda L: L.frac(L.tensor([1, 2])))
    same_error(lambda L: L.frac(L.tensor([True])))
    same_error(lambda L: L.hypot(L.tensor([1, 2]), L.tensor([1, 2])))
    same_error(lambda L: L.logaddexp(L.tensor([1, 2]), L.tensor([1, 2])))
    same_error(lambda L: L.nextafter(L.tensor([1, 2]), L.tensor([1, 2])))
    same_error(lambda L: L.gcd(L.tensor([1.0]), L.tensor([1.0])))
    same_error(lambda L: L.bitwise_left_shift(L.tensor([1.0]), 1))
    same_error(lambda L: L.fmod(L.tensor([1, 2]), 0))
    same_error(lambda L: L.heaviside(L.tensor([1.0]), L.tensor(1)))
    same_error(lambda L: L.polygamma(-1, L.tensor([1.0])))


A, B = R.standard_normal((3, 4)), R.standard_normal(4)
BINARY = {
    "atan2": (lambda L, a, b: L.atan2(a, b), A, B),
    "arctan2": (lambda L, a, b: a.arctan2(b), A, B),
    "hypot": (lambda L, a, b: L.hypot(a, b), A, B),
    "fmod": (lambda L, a, b: L.fmod(a * 3, b), A, B),
    "fmod_scalar": (lambda L, a, b: a.fmod(0.7) + b, A, B),
    "copysign": (lambda L, a, b: L.copysign(a, b), A, B),
    "copysign_scalar": (lambda L, a, b: L.copysign(a, -1.0) * b, A, B),
    "fmax": (lambda L, a, b: L.fmax(a, b), A, B),
    "fmin": (lambda L, a, b: a.fmin(b), A, B),
    "logaddexp": (lambda L, a, b: L.logaddexp(a, b), A, B),
    "logaddexp2": (lambda L, a, b: a.logaddexp2(b), A, B),
    "xlogy": (lambda L, a, b: L.xlogy(a, b), A, np.abs(B) + 0.1),
    "xlogy_scalar_self": (lambda L, a, b: L.xlogy(2, b) * a, A, np.abs(B) + 0.1),
    "xlogy_scalar_other": (lambda L, a, b: L.xlogy(a, 3.0) + b, A, B),
    "float_power": (lambda L, a, b: L.float_power(a.abs(), b), A, B),
    "float_power_scalar": (lambda L, a, b: a.float_power(2) + b, A, B),
    "ldexp": (lambda L, a, b: L.ldexp(a, b.round()), A, B),
}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_against_torch(name):
    fn, a, b = BINARY[name]
    check(fn, a, b, rtol=1e-7, atol=1e-7,
          same_grad_fn=name != "float_power_scalar")


def test_extrema_ties_and_nan():
    a = np.array([1.0, np.nan, 2.0, 3.0, np.nan])
    b = np.array([1.0, 2.0, np.nan, 0.5, np.nan])
    check(lambda L, x, y: L.fmax(x, y), a, b, second=False)
    check(lambda L, x, y: L.fmin(x, y), a, b, second=False)


def test_xlogy_zeros():
    a = np.array([0.0, 0.0, 0.0, 1.0])
    b = np.array([0.0, -1.0, np.nan, 2.0])
    check(lambda L, x, y: L.xlogy(x, y), a, b, second=False)


@pytest.mark.parametrize("fn", [
    lambda L, a, b: L.atan2(a, b), lambda L, a, b: L.copysign(a, b),
    lambda L, a, b: L.fmod(a, b), lambda L, a, b: L.fmax(a, b), lambda L, a, b: L.xlogy(a, b),
    lambda L, a, b: L.ldexp(a, b), lambda L, a, b: L.float_power(a, b),
    lambda L, a, b: L.gcd(a, b), lambda L, a, b: L.lcm(a, b),
    lambda L, a, b: L.bitwise_left_shift(a, b), lambda L, a, b: L.bitwise_right_shift(a, b),
    lambda L, a, b: a << b, lambda L, a, b: a >> b, lambda L, a, b: 3 << b,
    lambda L, a, b: L.bitwise_right_shift(a, 70), lambda L, a, b: L.fmod(a, 2.5)])
def test_integer_inputs(fn):
    a, b = np.array([1, 12, -3, 7]), np.array([2, 8, 3, -1])
    close(fn(ember, ember.tensor(a), ember.tensor(b)), fn(torch, torch.tensor(a),
                                                         torch.tensor(b)))


def test_nextafter_and_heaviside():
    a, b = np.array([1.5, -2.0, 0.0], np.float32), np.array([2.0, -3.0, 1.0], np.float32)
    close(ember.nextafter(ember.tensor(a), ember.tensor(b)),
          torch.nextafter(torch.tensor(a), torch.tensor(b)), rtol=0, atol=0)
    close(ember.heaviside(ember.tensor(a), ember.tensor(np.float32(0.5))),
          torch.heaviside(torch.tensor(a), torch.tensor(np.float32(0.5))))
    x = ember.tensor(a, requires_grad=True)
    y = ember.heaviside(x, ember.tensor(np.float32(0.5)))
    assert type(y.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="heaviside"):
        y.sum().backward()


def test_no_derivative_for_nextafter():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="nextafter"):
        ember.nextafter(x, ember.tensor([2.0, 3.0])).sum().backward()


SWEEP = {"f32": np.array([1.5, -2.25, 0.0, 3.0], np.float32),
         "f64": np.array([0.5, -1.0, 2.0, 7.5]),
         "f16": np.array([1.5, -2.0, 0.25, 3.0], np.float16), "i64": np.array([3, -2, 0, 5]),
         "i32": np.array([1, 2, -3, 4], np.int32), "u8": np.array([1, 2, 3, 250], np.uint8),
         "b": np.array([True, False, True, True]), "0d": np.array(0.7)}
SWEEP_SCALARS = {"int": 2, "float": 1.5}
SWEEP_BINARY = ["atan2", "hypot", "fmod", "copysign", "fmax", "fmin", "logaddexp", "logaddexp2",
                "xlogy", "ldexp", "nextafter", "gcd", "lcm", "bitwise_left_shift",
                "bitwise_right_shift", "float_power"]


def _outcome(fn, lib, *args):
    try:
        r = fn(lib, *args)
    except Exception as error:  # the error's type is the outcome compared
        return type(error).__name__, None
    return str(r.dtype).split(".")[1], np.asarray(r.detach().numpy(), dtype=float)


@pytest.mark.filterwarnings("ignore:An output with one or more elements")  # torch's ldexp
@pytest.mark.parametrize("name", SWEEP_BINARY)
def test_dtype_sweep_binary(name):
    """Every pair of dtypes (and numbers as other): torch's result dtype, values, or error."""
    def fn(lib, a, b):
        return getattr(lib, name)(a, b)
    others = {**SWEEP, **SWEEP_SCALARS}
    for ka, a in SWEEP.items():
        for kb, b in others.items():
            lift = (lambda lib, v: v) if kb in SWEEP_SCALARS else (lambda lib, v: lib.tensor(v))
            e = _outcome(fn, ember, ember.tensor(a), lift(ember, b))
            t = _outcome(fn, torch, torch.tensor(a), lift(torch, b))
            assert e[0] == t[0], f"{name}({ka}, {kb}): {e[0]} vs torch {t[0]}"
            if t[1] is not None:
                tol = 2e-3 if t[0] == "float16" else 1e-6
                np.testing.assert_allclose(e[1], t[1], rtol=tol, atol=tol, equal_nan=True)


@pytest.mark.parametrize("name", sorted(UNARY) + ["signbit", "isposinf", "isneginf", "isreal",
                                                  "positive"])
def test_dtype_sweep_unary(name):
    for ka, a in SWEEP.items():
        e = _outcome(lambda lib, x: getattr(lib, name)(x), ember, ember.tensor(a))
        t = _outcome(lambda lib, x: getattr(lib, name)(x), torch, torch.tensor(a))
        assert e[0] == t[0], f"{name}({ka}): {e[0]} vs torch {t[0]}"
        if t[1] is not None:
            tol = 2e-3 if t[0] == "float16" else 1e-6
            np.testing.assert_allclose(e[1], t[1], rtol=tol, atol=tol, equal_nan=True)


def _two_orders(lib, fn, arrays):
    inputs = [lib.tensor(a, requires_grad=True) for a in arrays]
    first = lib.autograd.grad(fn(lib, *inputs).sum(), inputs, create_graph=True)
    total = sum(g.sum() for g in first)
    second = lib.autograd.grad(total, inputs, allow_unused=True) if total.requires_grad else \
        [None] * len(inputs)  # a piecewise-linear op: no second derivative recorded
    return list(first) + list(second)


@pytest.mark.parametrize("fn,arrays", [
    (lambda L, a, b: L.atan2(a, b), ([0.0, 1.0, 0.0], [0.0, 0.0, -1.0])),  # 0 at the origin
    (lambda L, a: L.sinc(a), ([0.0, 1.0, -2.0, 0.5],)),  # NaN second derivative at 0, as torch
    (lambda L, a, b: L.hypot(a, b), ([0.0, 1.0, -2.0], [0.0, 0.0, 3.0])),
    (lambda L, a, b: L.xlogy(a, b), ([0.0, 0.0, 1.0, 2.0], [0.0, 1.0, 0.5, 3.0])),
    (lambda L, a: L.logit(a), ([-0.5, 0.0, 0.5, 1.0, 1.5],)),
    (lambda L, a: L.logit(a, 0.2), ([-0.5, 0.1, 0.2, 0.5, 0.8, 0.95],)),
    (lambda L, a: L.erfinv(a), ([-1.0, 0.0, 0.5, 1.0],)),
    (lambda L, a: L.lgamma(a), ([-2.5, -0.5, 0.5, 3.0],)),
    (lambda L, a: L.i0(a), ([0.0, -1.0, 20.0, -30.0],)),
    (lambda L, a, b: L.fmax(a, b), ([np.nan, 1.0, 2.0], [1.0, np.nan, 2.0])),
    (lambda L, a, b: L.logaddexp(a, b), ([1000.0, -1000.0, 0.0], [0.0, 0.0, 0.0])),
    (lambda L, a: L.atanh(a), ([1.0, 0.5, -1.0],))])
def test_gradients_at_edge_values(fn, arrays):
    arrays = [np.array(a) for a in arrays]
    e, t = _two_orders(ember, fn, arrays), _two_orders(torch, fn, arrays)
    close(e, t, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("call", [
    lambda L: L.bitwise_left_shift(L.tensor([1 + 1j, 2 + 0j]), L.tensor([1 + 1j, 2 + 0j])), lambda L: L.tensor([1 + 1j, 2 + 0j]) << 1, lambda L: L.bitwise_right_shift(L.tensor([1 + 1j, 2 + 0j]), 1),
    lambda L: L.tensor([1, 2]) << L.tensor([1j, 2]), lambda L: L.gcd(L.tensor([1 + 1j, 2 + 0j]), L.tensor([1 + 1j, 2 + 0j])),
    lambda L: L.lcm(L.tensor([1 + 1j, 2 + 0j]), L.tensor([1 + 1j, 2 + 0j]))])
def test_shifts_gcd_lcm_refuse_complex_as_torch(call):
    """(NumPy's TypeError / UFuncTypeError leaked)"""
    same_error(call)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_polygamma_refuses_complex_as_torch(n):
    """(NumPy's ComplexWarning: the imaginary part was dropped)"""
    same_error(lambda L: L.polygamma(n, L.tensor([1 + 1j, 2 + 0j])))


@pytest.mark.parametrize("call", [
    lambda L: L.ldexp(L.tensor([1 + 1j, 2 + 0j]), L.tensor([1, 2])), lambda L: L.ldexp(L.tensor([1 + 1j, 2 + 0j]), L.tensor([1.0, 2.0])), lambda L: L.ldexp(L.tensor([1.0, 2.0]), L.tensor([1 + 1j, 2 + 0j]))])
def test_ldexp_of_complex_as_torch(call):
    """(NumPy's ldexp TypeError leaked)"""
    close(call(ember), call(torch))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_atan2_gradients_in_torchs_steps_bit_for_bit(dtype):
    """r = 1 / (a a + b b) (0 where both are 0); da = (g b) r, db = (g (-a)) r."""
    a, b, g = wide_inputs(dtype), wide_inputs(dtype, seed=2), wide_inputs(dtype, seed=1)
    results = []
    for lib in (ember, torch):
        ts = [lib.tensor(v, requires_grad=True) for v in (a, b)]
        lib.atan2(*ts).backward(lib.tensor(g))
        results.append([t.grad.numpy() for t in ts])
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


_REFUSED_DTYPE_BINARY = [
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
    "gcd", "lcm", "hypot", "atan2", "fmod", "remainder", "copysign", "nextafter", "logaddexp",
    "logaddexp2", "xlogy", "igamma", "igammac", "floor_divide", "lt", "special.zeta",
    "special.xlog1py", "special.chebyshev_polynomial_t", "special.hermite_polynomial_h"]


def _op(lib, name):
    out = lib
    for part in name.split("."):
        out = getattr(out, part)
    return out


@pytest.mark.parametrize("name", _REFUSED_DTYPE_BINARY)
@pytest.mark.parametrize("dtypes", [("float32", "int64"), ("complex64", "float32"),
                                    ("int64", "int64"), ("float32", "float32")])
@pytest.mark.parametrize("shapes", [((2,), (3,)), ((1,), (3,))])
def test_shapes_are_checked_before_the_dtypes_as_torch(name, dtypes, shapes):
    """torch's TensorIterator reports operands that do not broadcast (or, in place, do not fit
    the tensor written) before a kernel refuses their dtypes; ember refused the dtype first"""
    def call(L, inplace):
        a, b = (L.ones(s, dtype=getattr(L, d)) for s, d in zip(shapes, dtypes))
        if inplace:
            return getattr(a, name + "_")(b)
        return _op(L, name)(a, b)
    for inplace in (False, True):
        if inplace and (name.startswith("special") or not hasattr(torch.Tensor, name + "_")):
            continue
        try:
            call(torch, inplace)
        except (RuntimeError, NotImplementedError):
            same_error(lambda L: call(L, inplace))


@pytest.mark.parametrize("call", [
    lambda L: L.special.xlog1py(L.tensor([1 + 1j]), L.tensor([1.0])),
    lambda L: L.special.xlog1py(L.tensor([1.0]), 1j),
    lambda L: L.special.xlog1py(2.0, L.tensor([1 + 1j])),
    lambda L: L.complex(L.ones(2), L.ones(2, dtype=L.int64)),
    lambda L: L.polar(L.ones(2, dtype=L.bool), L.ones(2)),
    lambda L: L.polar(L.ones(2, dtype=L.float16), L.ones(2, dtype=L.float16)),
    lambda L: L.heaviside(L.ones(2), L.ones(2, dtype=L.complex64)),
    lambda L: L.ones(1).heaviside_(L.ones(3, dtype=L.int64))])
def test_dtype_refusals_as_torch(call):
    """xlog1py computed complex values where torch refuses them"""
    same_error(call)


def test_xlog1py_of_zero_is_zero_below_minus_one_as_torch():
    """0 * log1p(y) is 0 for every y but NaN (ember: NaN for y < -1); its derivative in x is
    0 there too (torch's d/dy, x / (1 + y), ember gives as 0 there: left as it is)"""
    check(lambda L, x, y: L.special.xlog1py(x, y), np.array([0.0, 0.0, 0.0, 1.0, 0.0]),
          np.array([np.nan, -1.0, -2.0, -1.0, 3.0]), grad=False)
    check(lambda L, x, y: L.special.xlog1py(x, y), np.array([0.0, 0.0, 1.0, 0.0]),
          np.array([-1.0, -2.0, -1.0, 3.0]), grad_inputs=[True, False], same_grad_fn=False)
