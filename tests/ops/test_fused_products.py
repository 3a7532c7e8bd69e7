"""ember/ops/fused_products.py against torch: addcmul, addcdiv, addmv, addr, addbmm (values,
gradients, second derivatives, grad_fn names, in-place and out= forms, errors)."""
import numpy as np
import pytest
import torch
from oracle import check, close, same_error, wide_inputs

import ember

R = np.random.default_rng(0)
M34, V3, V4 = R.standard_normal((3, 4)), R.standard_normal(3), R.standard_normal(4)
B1, B2 = R.standard_normal((2, 3, 4)), R.standard_normal((2, 4, 5))

CASES = {
    "addcmul": (lambda L, i, a, b: L.addcmul(i, a, b), M34, V4, M34),
    "addcmul_value": (lambda L, i, a, b: i.addcmul(a, b, value=-0.5), M34, V4, M34),
    "addcmul_": (lambda L, i, a, b: (i * 1).addcmul_(a, b, value=2), M34, V4, M34),
    "addcdiv": (lambda L, i, a, b: L.addcdiv(i, a, b), M34, V4, np.abs(M34) + 0.5),
    "addcdiv_value": (lambda L, i, a, b: i.addcdiv(a, b, value=3), V4, M34, np.abs(V4) + 1),
    "addcdiv_": (lambda L, i, a, b: (i * 1).addcdiv_(a, b, value=-1), M34, V4, V4 + 3),
    "addmv": (lambda L, i, m, v: L.addmv(i, m, v), V3, M34, V4),
    "addmv_scaled": (lambda L, i, m, v: i.addmv(m, v, beta=0.5, alpha=2), V3, M34, V4),
    "addmv_": (lambda L, i, m, v: (i * 1).addmv_(m, v, alpha=-1), V3, M34, V4),
    "addr": (lambda L, i, a, b: L.addr(i, a, b), M34, V3, V4),
    "addr_scaled": (lambda L, i, a, b: i.addr(a, b, beta=2, alpha=0.5), V4, V3, V4),
    "addr_": (lambda L, i, a, b: (i * 1).addr_(a, b), M34, V3, V4),
    "addbmm": (lambda L, i, a, b: L.addbmm(i, a, b), R.standard_normal((3, 5)), B1, B2),
    "addbmm_scaled": (lambda L, i, a, b: i.addbmm(a, b, beta=-1, alpha=3),
                      R.standard_normal(5), B1, B2),
    "addbmm_": (lambda L, i, a, b: (i * 1).addbmm_(a, b), R.standard_normal((3, 5)), B1, B2),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_torch(name):
    fn, *inputs = CASES[name]
    check(fn, *inputs, rtol=1e-7, atol=1e-7)


def test_integer_inputs_and_promotion():
    i = np.array([1, 2, -3])
    close(ember.addcmul(ember.tensor(i), ember.tensor(i), ember.tensor(i), value=2),
          torch.addcmul(torch.tensor(i), torch.tensor(i), torch.tensor(i), value=2))
    f = np.array([1.5, -2.0, 0.25], np.float32)
    close(ember.addcmul(ember.tensor(f), ember.tensor(i), ember.tensor(i), value=0.5),
          torch.addcmul(torch.tensor(f), torch.tensor(i), torch.tensor(i), value=0.5))
    close(ember.addcdiv(ember.tensor(f), ember.tensor(f), ember.tensor(i)),
          torch.addcdiv(torch.tensor(f), torch.tensor(f), torch.tensor(i)))


def test_errors_as_torch():
    same_error(lambda L: L.addcdiv(L.tensor([1]), L.tensor([1]), L.tensor([2])))
    same_error(lambda L: L.addr(L.tensor([1]), L.tensor([1]), L.tensor([2]), alpha=0.5))
    same_error(lambda L: L.ones(3).add_(L.ones(3)).addcmul_(L.ones(3), L.ones(3, 1)))
    with pytest.raises(RuntimeError):
        ember.addmv(ember.ones(3), ember.ones(3, 4), ember.ones(3))
    with pytest.raises(RuntimeError):
        ember.addbmm(ember.ones(3, 3), ember.ones(2, 3, 4), ember.ones(3, 4, 3))
    x = ember.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.addcmul_(ember.ones(3), ember.ones(3))


def test_out():
    out = ember.empty(3, 4, dtype=ember.float64)
    r = ember.addcmul(ember.tensor(M34), ember.tensor(V4), ember.tensor(M34), value=2, out=out)
    assert r is out
    close(out, torch.addcmul(torch.tensor(M34), torch.tensor(V4), torch.tensor(M34), value=2))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("value", [0.3, 1, 2.0])
@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_values_and_gradients_in_torchs_steps_bit_for_bit(op, value, dtype):
    """addcmul: fma(value * t1, t2, input) rounded once, gradients g * (t2 * value); addcdiv:
    input + (value * t1) / t2, gradients g * (value / t2), -g * ((value * t1) / (t2 * t2))."""
    x, t1, g = wide_inputs(dtype), wide_inputs(dtype, seed=2), wide_inputs(dtype, seed=1)
    t2 = np.abs(wide_inputs(dtype, seed=3)) + dtype(0.1)
    results = []
    for lib in (ember, torch):
        ts = [lib.tensor(v, requires_grad=True) for v in (x, t1, t2)]
        out = getattr(lib, op)(*ts, value=value)
        out.backward(lib.tensor(g))
        results.append([out.detach().numpy()] + [t.grad.numpy() for t in ts])
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)
