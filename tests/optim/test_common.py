"""Shared pieces of the update rules and argument checks (ember/optim/_common.py): the direction
±g + wd·p, torch's two-sided lerp and addcmul order (against torch's own ops), the ops on
bfloat16 and float16 tensors (each rounding once, as torch's), the scalar step dtype, tensor
learning rates, and the checks' errors (NaN refused too) against torch's constructors."""
import math

import numpy as np
import pytest
import torch
from oracle import special_inputs

import ember
from ember.optim import _common as C

R = np.random.default_rng(0)
P = R.standard_normal(7).astype(np.float32)
G = R.standard_normal(7).astype(np.float32)


@pytest.mark.parametrize("weight_decay, maximize", [(0, False), (0, True), (0.1, False),
                                                    (0.1, True)])
def test_direction(weight_decay, maximize):
    d = C.direction(C.ArrayOps, P, G, weight_decay, maximize)
    expected = (-G if maximize else G) + weight_decay * P
    np.testing.assert_allclose(d, expected, rtol=1e-6)
    assert (d is G) == (weight_decay == 0 and not maximize)  # g itself only when unchanged
    assert d is not P


@pytest.mark.parametrize("weight", [0.0, 0.1, 0.5, 0.9, 1.0])
def test_lerp_matches_torch_and_is_exact_at_the_ends(weight):
    a = P.copy()
    C.ArrayOps.lerp_(a, G, weight)
    np.testing.assert_allclose(a, torch.tensor(P).lerp_(torch.tensor(G), weight).numpy(),
                               rtol=1e-6, atol=1e-7)  # torch's kernel may fuse (1 ulp)
    if weight in (0.0, 1.0):
        np.testing.assert_array_equal(a, P if weight == 0 else G)


def test_addcmul_is_torchs_bit_for_bit():
    v = np.abs(P).copy()
    C.ArrayOps.addcmul_(v, G, G, 0.001)
    t = torch.tensor(np.abs(P)).addcmul_(torch.tensor(G), torch.tensor(G), value=0.001)
    np.testing.assert_array_equal(v, t.numpy())


def test_scalar_zero():
    assert C.scalar_zero().dtype == np.float32 and C.scalar_zero(2.0) == 2.0
    ember.set_default_dtype(ember.float64)
    try:
        assert C.scalar_zero().dtype == np.float64
    finally:
        ember.set_default_dtype(ember.float32)


def test_as_float_reads_one_element_tensors():
    assert C.as_float(ember.tensor(0.25)) == 0.25 and C.as_float(0.5) == 0.5
    with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
        C.as_float(ember.tensor([0.1, 0.2]))


@pytest.mark.parametrize("kwargs", [
    {"lr": -1.0}, {"lr": math.nan}, {"eps": -1e-8}, {"weight_decay": -0.1},
    {"betas": (1.0, 0.9)}, {"betas": (0.9, -0.1)}, {"betas": (math.nan, 0.9)},
    {"foreach": True, "fused": True},
])
def test_checks_raise_torchs_errors(kwargs):
    errors = []
    for lib in (torch, ember):
        with pytest.raises((ValueError, RuntimeError)) as info:
            lib.optim.Adam([lib.zeros(2, requires_grad=True)], **kwargs)
        errors.append((info.type, str(info.value)))
    assert errors[0] == errors[1]


def test_check_range_refuses_nan():
    C.check_range("alpha", 0.0)
    with pytest.raises(ValueError, match="Invalid alpha value: nan"):
        C.check_range("alpha", math.nan)


def test_adam_moments_match_the_formulas():
    state = {"exp_avg": np.zeros(7, np.float32), "exp_avg_sq": np.zeros(7, np.float32)}
    p = P.copy()
    d, m, v = C.adam_moments_(C.ArrayOps, p, G, state, 0.1, (0.9, 0.999), 0.01, False, True)
    np.testing.assert_array_equal(p, P * np.float32(1 - 0.1 * 0.01))  # decoupled decay first
    assert d is G
    np.testing.assert_allclose(m, 0.1 * G, rtol=1e-6)
    np.testing.assert_allclose(v, 0.001 * G * G, rtol=1e-5)
    assert m is state["exp_avg"] and v is state["exp_avg_sq"]


# each op of TensorOps on bfloat16 / float16 tensors against torch's op: bit for bit
OPS = [
    ("mul_", lambda o, a, b, c: o.mul_(a, 0.9)),
    ("add", lambda o, a, b, c: o.add(a, b, 0.1)),
    ("add_", lambda o, a, b, c: o.add_(a, b, -0.01)),
    ("add_scalar_", lambda o, a, b, c: o.add_scalar_(c, 1e-3)),
    ("addcmul_", lambda o, a, b, c: o.addcmul_(c, b, b, 0.001)),
    ("addcmul", lambda o, a, b, c: o.addcmul(c, b, b, -1)),
    ("addcdiv_", lambda o, a, b, c: o.addcdiv_(a, b, c, -0.0123)),
    ("lerp_", lambda o, a, b, c: o.lerp_(a, b, 0.1)),
    ("sqrt_div", lambda o, a, b, c: o.div_(o.sqrt(c), 0.031)),
    ("reciprocal_", lambda o, a, b, c: o.mul_(o.reciprocal_(o.add_scalar(c, 1e-3)), 0.7)),
    ("maximum_", lambda o, a, b, c: o.maximum_(a, o.add_scalar_(o.abs(b), 1e-8))),
    ("sub_mul", lambda o, a, b, c: o.mul_(o.sub(a, b), 0.3)),
    ("adam_addcdiv_", lambda o, a, b, c: o.adam_addcdiv_(a, b, c, 0.0123, 0.031, 1e-3)),
    ("sign_clamp", lambda o, a, b, c: o.clamp_(o.mul_(c, o.sign(o.mul(a, b))), 0.2, 1.0)),
]


class _TorchOps:
    """The same ops called on torch's tensors, by their torch names."""

    def __getattr__(self, name):
        return getattr(C.TensorOps, name)

    @staticmethod
    def maximum_(a, b):
        return torch.maximum(a, b, out=a)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("op", OPS, ids=[name for name, _ in OPS])
def test_tensor_ops_round_as_torchs(op, dtype):
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(256).astype(np.float32) for _ in range(3)]
    arrays[2] = np.abs(arrays[2]) + 0.1
    results = []
    for lib, ops in ((ember, C.TensorOps), (torch, _TorchOps())):
        low = getattr(lib, dtype)
        tensors = [lib.tensor(a).to(low) for a in arrays]
        out = op[1](ops, *tensors)
        assert str(out.dtype).endswith(dtype)
        results.append(out.float().numpy())
    np.testing.assert_array_equal(results[0], results[1])


def test_operands_wraps_only_low_precision_arrays():
    state = {"m": np.zeros(3, np.float32)}
    ops, p, g, st = C.operands(P, G, state)
    assert ops is C.ArrayOps and p is P and g is G and st is state
    low = ember.tensor(P).to(ember.bfloat16)._data
    ops, p, g, st = C.operands(low, low, {"m": low})
    assert ops is C.TensorOps
    assert p._data is low and st["m"]._data is low  # in-place ops write the arrays themselves


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(3 * 4096 + 80,), (80, 3 * 4096 // 16 + 5)])
@pytest.mark.parametrize("low", [1e-30, 0.0, -0.5])
def test_clamp_min_in_place_of_a_large_array(shape, dtype, low):
    """ArrayOps.clamp_min_ (Adafactor's bound on its estimate) runs a large array in place in
    blocks against its bound: the bits of NumPy's plain loop (NaN payloads, signed zeros),
    torch's clamp_min_'s values, the array itself returned."""
    values = special_inputs(dtype, n=math.prod(shape)).reshape(shape)
    a = values.copy()
    assert C.ArrayOps.clamp_min_(a, low) is a
    bits = np.dtype(f"u{a.itemsize}")
    np.testing.assert_array_equal(a.view(bits), np.maximum(values, low).view(bits))
    np.testing.assert_array_equal(a, torch.tensor(values).clamp_min_(low).numpy())
