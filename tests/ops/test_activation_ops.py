"""The activation primitives (ember/ops/activation_ops.py), one node each: values, gradients,
second derivatives and grad_fn names against torch, in float64 and float32; softmax and
log_softmax with dim and dtype; the nodes' errors as torch's."""
import numpy as np
import pytest
import torch
from oracle import assert_blocks_bits, assert_formula_bits, check, kinkless, same_error

import ember

X = kinkless((3, 5))


def _f(lib):
    return lib.nn.functional


CASES = {
    "erf": lambda L, x: L.erf(x),
    "leaky_relu": lambda L, x: _f(L).leaky_relu(x, 0.2),
    "hardtanh": lambda L, x: _f(L).hardtanh(x, -0.7, 0.9),
    "threshold": lambda L, x: _f(L).threshold(x, 0.3, -2.0),
    "elu": lambda L, x: _f(L).elu(x, 1.3),
    "celu": lambda L, x: _f(L).celu(x, 0.8),
    "gelu": lambda L, x: _f(L).gelu(x),
    "gelu_tanh": lambda L, x: _f(L).gelu(x, approximate="tanh"),
    "silu": lambda L, x: _f(L).silu(x),
    "mish": lambda L, x: _f(L).mish(x),
    "softplus": lambda L, x: _f(L).softplus(x, beta=2.0, threshold=3.0),
    "logsigmoid": lambda L, x: _f(L).logsigmoid(x),
    "hardsigmoid": lambda L, x: _f(L).hardsigmoid(x * 2),
    "hardswish": lambda L, x: _f(L).hardswish(x * 2),
    "hardshrink": lambda L, x: _f(L).hardshrink(x, 0.4),
    "softshrink": lambda L, x: _f(L).softshrink(x, 0.4),
    "glu": lambda L, x: _f(L).glu(x[:, :4], dim=1),
    "softmax": lambda L, x: L.softmax(x, 1),
    "softmax_dim0": lambda L, x: x.softmax(0),
    "log_softmax": lambda L, x: L.log_softmax(x, -1),
    "prelu": lambda L, x: _f(L).prelu(x, L.tensor([0.25], dtype=x.dtype)),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_matches_torch(name, dtype):
    tol = {} if dtype == np.float64 else {"rtol": 1e-4, "atol": 1e-5}
    second = name != "hardsigmoid"  # torch has no second derivative of hardsigmoid
    check(CASES[name], X.astype(dtype), second=second, **tol)


def test_softmax_with_dtype_casts_first():
    check(lambda L, x: L.softmax(x, 1, dtype=L.float64), X.astype(np.float32))
    check(lambda L, x: L.log_softmax(x, 0, dtype=L.float64), X.astype(np.float32))


def test_rrelu_in_eval_mode_is_a_leaky_relu_with_the_mean_slope():
    check(lambda L, x: _f(L).rrelu(x, 0.1, 0.3, training=False), X)


@pytest.mark.parametrize("call", [
    lambda L: _f(L).glu(L.ones(3, 5), dim=1),
    lambda L: L.softmax(L.ones(2, 3), 2),
    lambda L: L.erf(L.tensor([1, 2])).sum().backward(),
])
def test_errors_match_torch(call):
    errors = []
    for lib in (torch, ember):
        with pytest.raises(Exception) as info:
            call(lib)
        errors.append((info.type.__name__, str(info.value).replace("torch.", "ember.")))
    assert errors[0] == errors[1]


_SIGNED_ZERO_X = [-3., -1., -0.0, 0.0, 0.5, 1., 6., 7., float("nan"), float("inf"), -float("inf")]
_MASKED = {
    "relu": lambda lib, x: lib.relu(x),
    "relu6": lambda lib, x: lib.nn.functional.relu6(x),
    "hardtanh": lambda lib, x: lib.nn.functional.hardtanh(x),
    "threshold": lambda lib, x: lib.nn.functional.threshold(x, 0.5, 2.0),
    "clamp": lambda lib, x: lib.clamp(x, -1, 1),
    "clamp_min": lambda lib, x: x.clamp_min(0.0),
    "clamp_max": lambda lib, x: lib.clamp(x, max=0),
    "clamp_tensor": lambda lib, x: lib.clamp(x, lib.tensor(-1.0), lib.tensor(1.0)),
    "hardsigmoid": lambda lib, x: lib.nn.functional.hardsigmoid(x),
    "hardswish": lambda lib, x: lib.nn.functional.hardswish(x),
    "hardshrink": lambda lib, x: lib.nn.functional.hardshrink(x),
    "softshrink": lambda lib, x: lib.nn.functional.softshrink(x),
    "maximum": lambda lib, x: lib.maximum(x, lib.zeros(())),
    "elu": lambda lib, x: lib.nn.functional.elu(x),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(_MASKED))
def test_masked_gradients_are_positive_zero_as_torch(name, dtype):
    """A masked-out gradient is +0.0 in torch (a select); ember multiplied by the mask, -0.0
    for a negative incoming gradient. Also under create_graph, and the gradient's own
    gradient with respect to the incoming one (finite where torch's is: no inf * 0)."""
    x0 = np.array(_SIGNED_ZERO_X, dtype=dtype)
    g0 = np.tile([1.0, -1.0], 6)[:x0.size].astype(dtype)
    got = []
    for lib in (torch, ember):
        row = []
        for sign in (1, -1):
            x = lib.tensor(x0, requires_grad=True)
            _MASKED[name](lib, x).backward(lib.tensor(sign * g0))
            row.append(x.grad.numpy().copy())
        x, g = lib.tensor(x0, requires_grad=True), lib.tensor(-g0, requires_grad=True)
        (gx,) = lib.autograd.grad(_MASKED[name](lib, x), x, g, create_graph=True)
        row.append(gx.detach().numpy().copy())
        if name != "hardsigmoid":  # torch has no double backward of hardsigmoid
            row.append(lib.autograd.grad(gx.sum(), g)[0].numpy())
        got.append(row)
    for want, have in zip(*got):
        np.testing.assert_array_equal(np.signbit(have), np.signbit(want))
        np.testing.assert_allclose(have, want, rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("call", [
    lambda L, x: L.nn.functional.prelu(x, L.tensor([1])),
    lambda L, x: L.nn.functional.prelu(x, L.tensor([0.25])),
    lambda L, x: L.nn.functional.glu(x),
    lambda L, x: L.nn.functional.silu(x)])
def test_integer_input_refused_as_torch_not_cast_to_float(call):
    # prelu of a Long input with a float weight and glu of a Long input computed in float32
    same_error(lambda lib: call(lib, lib.tensor([1, -2])))


_KINKS = {
    "prelu": lambda F, x, w: F.prelu(x, w), "elu": lambda F, x, w: F.elu(x, alpha=2.0),
    "elu_negative_alpha": lambda F, x, w: F.elu(x, alpha=-0.5),
    "celu": lambda F, x, w: F.celu(x, alpha=1.5), "selu": lambda F, x, w: F.selu(x),
    "leaky_relu": lambda F, x, w: F.leaky_relu(x, 0.1),
    "rrelu_eval": lambda F, x, w: F.rrelu(x, training=False), "relu": lambda F, x, w: F.relu(x),
    "hardtanh": lambda F, x, w: F.hardtanh(x, -0.0, 1.0),
    "threshold": lambda F, x, w: F.threshold(x, 0.0, -2.0),
    "hardshrink": lambda F, x, w: F.hardshrink(x, 0.0),
    "prelu_channels": lambda F, x, w: F.prelu(x.reshape(2, 3), w.expand(3) * x.new_tensor(
        [1.0, 2.0, 8.0])).reshape(-1)}


@pytest.mark.parametrize("name", list(_KINKS))
def test_second_derivative_at_the_kink_as_torch(name):
    # ember's ELU family gave alpha (not torch's 0) as the second derivative at x = 0, prelu's
    # weight term counted x = 0; piecewise-linear ones left x out of the graph (an error where
    # torch gives zeros)
    results = []
    for lib in (torch, ember):
        x = lib.tensor([-1.0, -0.0, 0.0, 1.0, 2.0, -3.0], dtype=lib.float64, requires_grad=True)
        w = lib.tensor([0.25], dtype=lib.float64, requires_grad=True)
        y = _KINKS[name](lib.nn.functional, x, w)
        g, = lib.autograd.grad((y * lib.arange(1.0, 7.0, dtype=lib.float64)).sum(), x,
                               create_graph=True)
        second = lib.autograd.grad(g.sum(), [x, w], allow_unused=True)
        results.append([g.tolist()] + [None if s is None else s.tolist() for s in second])
    assert results[1] == results[0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_hardswish_gradient_bit_exact(dtype):
    """torch's slope is g * (x / 3 + 0.5): x * (1/3) rounds differently."""
    x = (np.random.RandomState(0).randn(4000) * 2).astype(dtype)
    g = np.random.RandomState(1).randn(4000).astype(dtype)
    grads = []
    for lib in (torch, ember):
        a = lib.tensor(x).requires_grad_()
        (grad,) = lib.autograd.grad(lib.nn.functional.hardswish(a), a, lib.tensor(g))
        grads.append(grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


# backward formulas in torch's order of operations, checked to the bit (silu's at the inputs
# where ember's sigmoid equals torch's: the formula apart from the machine's exp kernel)
FORMULA_CASES = {
    "silu": (lambda L, t: L.nn.functional.silu(t), lambda L, t: t.sigmoid()),  # fma inside
    "tanhshrink": (lambda L, t: L.nn.functional.tanhshrink(t), lambda L, t: t.tanh()),
    "hardswish": (lambda L, t: L.nn.functional.hardswish(t), None),  # g * (x / 3 + 0.5)
    "softsign": (lambda L, t: L.nn.functional.softsign(t), None),  # division's gradients
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(FORMULA_CASES))
def test_gradient_formulas_match_torch_bit_for_bit(name, dtype):
    assert_formula_bits(*FORMULA_CASES[name], dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
@pytest.mark.parametrize("size", [3 * 4096, 3 * 4096 + 77])
def test_relu_of_a_large_array_bit_exact(size, dtype):
    """ReLU's forward over a large array runs in blocks against a cached block of zeros (a
    0-d operand makes NumPy's maximum 3-4x slower): NaN payloads, signed zeros, infinities and
    subnormals still come out as torch's, also in the tail past the last whole block."""
    special = np.array([-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, 1.0, -1.0, 1e-45, -1e-45],
                       np.float32)
    payloads = np.array([0x7fc00001, 0xffc12345], np.uint32).view(np.float32)
    x = np.resize(np.concatenate([special, payloads]).astype(dtype), size)
    np.random.RandomState(0).shuffle(x)
    got = [lib.relu(lib.tensor(x)).numpy() for lib in (torch, ember)]
    bits = np.dtype(f"u{np.dtype(dtype).itemsize}")
    np.testing.assert_array_equal(got[1].view(bits), got[0].view(bits))


LARGE = {  # a max/min against 0 in blocks (_against), softshrink's branch-free selects
    # (torch's exp / log1p kernels: an ulp apart, also among the subnormals)
    "softplus": (lambda L, t: L.nn.functional.softplus(t), 2e-6, 1e-44),
    "softplus_beta": (lambda L, t: L.nn.functional.softplus(t, 2.0, 5.0), 2e-6, 1e-44),
    "mish": (lambda L, t: L.nn.functional.mish(t), 2e-6, 1e-42),
    "logsigmoid": (lambda L, t: L.nn.functional.logsigmoid(t), 2e-6, 1e-44),
    "softshrink": (lambda L, t: L.nn.functional.softshrink(t), 0.0, 0.0),
}


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "channels_last"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(LARGE))
def test_large_arrays_bit_exact(name, dtype, layout):
    """The large-array path has the bits of small arrays' (signed zeros; NaN payloads where
    no two NaNs are added), torch's values and layout."""
    if name == "logsigmoid" and layout != "contiguous":
        pytest.skip("a known gap: torch's log_sigmoid makes a contiguous result, ember's is laid "
                    "out as its input")
    fn, rtol, atol = LARGE[name]
    assert_blocks_bits(fn, dtype, layout, rtol=rtol, atol=atol, nan_bits=name == "softshrink",
                       grad=True)
