"""The activation primitives (ember/ops/activation_ops.py), one node each: values, gradients,
second derivatives and grad_fn names against torch, in float64 and float32; softmax and
log_softmax with dim and dtype; the nodes' errors as torch's."""
import numpy as np
import pytest
import torch
from oracle import check, kinkless

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
