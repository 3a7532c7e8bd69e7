"""torch.autograd.forward_ad (dual tensors) against torch 2.13: tangents of ops, modules, errors."""
import numpy as np
import pytest
import torch
import torch.autograd.forward_ad as tfw

import ember
import ember.autograd.forward_ad as efw

RNG = np.random.default_rng(0)


def arr(*shape, positive=False, dtype=np.float64):
    a = RNG.standard_normal(shape)
    return (np.abs(a) + 0.5 if positive else a).astype(dtype)


def run(lib, fw, fn, primals, tangents):
    """(output primal, output tangent) of fn on dual tensors, as arrays."""
    with fw.dual_level():
        duals = [fw.make_dual(lib.tensor(p), lib.tensor(t)) if t is not None else lib.tensor(p)
                 for p, t in zip(primals, tangents)]
        out = fn(lib, *duals)
        primal, tangent = fw.unpack_dual(out)
        return primal.detach().numpy(), (None if tangent is None else tangent.detach().numpy())


def check(fn, primals, tangents=None, atol=1e-6):
    if tangents is None:
        tangents = [arr(*np.shape(p)) for p in primals]
    expected = run(torch, tfw, fn, primals, tangents)
    got = run(ember, efw, fn, primals, tangents)
    np.testing.assert_allclose(got[0], expected[0], atol=atol, rtol=1e-6)
    if expected[1] is None:
        assert got[1] is None
    else:
        assert got[1] is not None, "no tangent"
        np.testing.assert_allclose(got[1], expected[1], atol=atol, rtol=1e-6)


A, B, P = arr(3, 4), arr(3, 4), arr(3, 4, positive=True)
CASES = {
    "pow_add": (lambda m, x, y: x ** 2 + y ** 2, [A, B]),
    "mul_scalar": (lambda m, x: 3 * x - 1, [A]),
    "div": (lambda m, x, y: x / y, [A, P]),
    "broadcast_mul": (lambda m, x, y: x * y, [A, arr(4)]),
    "exp_log": (lambda m, x: x.exp() + x.log(), [P]),
    "tanh_sigmoid": (lambda m, x: m.tanh(x) * m.sigmoid(x), [A]),
    "relu": (lambda m, x: m.relu(x), [A]),
    "sqrt_rsqrt": (lambda m, x: x.sqrt() + x.rsqrt(), [P]),
    "clamp": (lambda m, x: x.clamp(-0.5, 0.5), [A]),
    "where": (lambda m, x, y: m.where(x > 0, x, y), [A, B]),
    "maximum": (lambda m, x, y: m.maximum(x, y), [A, B]),
    "matmul": (lambda m, x, y: x @ y, [A, arr(4, 2)]),
    "bmm": (lambda m, x, y: m.bmm(x, y), [arr(2, 3, 4), arr(2, 4, 5)]),
    "sum_dim": (lambda m, x: x.sum(1), [A]),
    "mean": (lambda m, x: x.mean(), [A]),
    "var": (lambda m, x: x.var(0), [A]),
    "amax": (lambda m, x: x.amax(1), [A]),
    "max_dim": (lambda m, x: x.max(1).values, [A]),
    "prod": (lambda m, x: x.prod(1), [A]),
    "norm": (lambda m, x: x.norm(), [A]),
    "logsumexp": (lambda m, x: x.logsumexp(1), [A]),
    "cumsum": (lambda m, x: x.cumsum(0), [A]),
    "transpose": (lambda m, x: x.t() * 1, [A]),
    "view_reshape": (lambda m, x: x.view(4, 3).reshape(2, 6), [A]),
    "permute": (lambda m, x: x.permute(2, 0, 1).contiguous(), [arr(2, 3, 4)]),
    "unsqueeze_expand": (lambda m, x: x.unsqueeze(0).expand(2, 3, 4), [A]),
    "index_slice": (lambda m, x: x[1:, ::2], [A]),
    "index_tensor": (lambda m, x: x[m.tensor([2, 0, 2])], [A]),
    "gather": (lambda m, x: x.gather(1, m.tensor([[0, 1], [2, 3], [1, 1]])), [A]),
    "cat_stack": (lambda m, x, y: m.cat([x, m.stack([y[0], y[1]])]), [A, B]),
    "split": (lambda m, x: x.split(2, 1)[1] * 2, [A]),
    "softmax": (lambda m, x: m.softmax(x, 1), [A]),
    "log_softmax": (lambda m, x: m.nn.functional.log_softmax(x, dim=0), [A]),
    "layer_norm": (lambda m, x, w, b: m.nn.functional.layer_norm(x, (4,), w, b), [A, arr(4),
                                                                                  arr(4)]),
    "linear": (lambda m, x, w, b: m.nn.functional.linear(x, w, b), [A, arr(5, 4), arr(5)]),
    "conv2d": (lambda m, x, w: m.nn.functional.conv2d(x, w, padding=1),
               [arr(1, 2, 5, 5), arr(3, 2, 3, 3)]),
    "max_pool": (lambda m, x: m.nn.functional.max_pool2d(x, 2), [arr(1, 2, 4, 4)]),
    "mse_loss": (lambda m, x, y: m.nn.functional.mse_loss(x, y), [A, B]),
    "cross_entropy": (lambda m, x: m.nn.functional.cross_entropy(x, m.tensor([0, 3, 1])), [A]),
    "gelu": (lambda m, x: m.nn.functional.gelu(x), [A]),
    "dropout_eval": (lambda m, x: m.nn.functional.dropout(x, 0.5, training=False), [A]),
    "embedding": (lambda m, w: m.nn.functional.embedding(m.tensor([[0, 2], [1, 0]]), w), [A]),
    "to_float32": (lambda m, x: x.float() * 2, [A]),
    "clone": (lambda m, x: x.clone(), [A]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_tangents_match_torch(name):
    fn, primals = CASES[name]
    check(fn, primals)


def test_only_some_inputs_dual():
    check(lambda m, x, y: x * y + y.sin(), [A, B], [arr(3, 4), None])


def test_non_float_outputs_have_no_tangent():
    check(lambda m, x: x.argmax(1), [A])
    check(lambda m, x: x > 0, [A])


def test_float32_tangents():
    a, b = arr(3, 4, dtype=np.float32), arr(3, 4, dtype=np.float32)
    check(lambda m, x, y: (x * y).sigmoid().sum(0), [a, b], atol=1e-5)


INPLACE = {
    "add_scalar": lambda m, x, y: x.add_(1) * y,
    "mul_dual": lambda m, x, y: x.mul_(y),
    "plain_gets_tangent": lambda m, x, y: m.zeros(3, 4, dtype=m.float64).add_(y * x),
    "setitem": lambda m, x, y: _setitem(x, y),
    "copy": lambda m, x, y: m.zeros(3, 4, dtype=m.float64).copy_(y),
    "zero": lambda m, x, y: x.zero_() + y,
}


def _setitem(x, y):
    x[0] = y[1]
    return x


@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_tangents_match_torch(name):
    check(INPLACE[name], [A, B])
