"""Element-wise ops, activations and reductions (ember/onnx/_ops.py) exported and run in
onnxruntime with ember's outputs."""
import math

import pytest
from onnx_roundtrip import Lambda, assert_matches, export_bytes

import ember
import ember.nn.functional as F

UNARY = {
    "add": lambda x: x + 1.5, "radd": lambda x: 2 + x, "sub": lambda x: x - 0.5,
    "rsub": lambda x: 1 - x, "mul": lambda x: x * 3, "div": lambda x: x / 7, "rdiv": lambda x: 2 / x,
    "pow2": lambda x: x ** 2, "pow_half": lambda x: x.abs() ** 0.5, "neg": lambda x: -x,
    "sqrt": lambda x: (x * x + 1).sqrt(), "rsqrt": lambda x: (x * x + 1).rsqrt(),
    "exp": ember.exp, "log": lambda x: (x.abs() + 0.1).log(), "abs": ember.abs,
    "relu": F.relu, "sigmoid": ember.sigmoid, "tanh": ember.tanh, "erf": ember.erf,
    "gelu": F.gelu, "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"), "silu": F.silu,
    "leaky_relu": lambda x: F.leaky_relu(x, 0.2), "elu": F.elu, "hardtanh": F.hardtanh,
    "hardsigmoid": F.hardsigmoid, "hardswish": F.hardswish, "clamp": lambda x: x.clamp(-0.5, 0.7),
    "clamp_min": lambda x: x.clamp(min=0.1), "softmax": lambda x: F.softmax(x, dim=-1),
    "softmax0": lambda x: ember.softmax(x, 0), "log_softmax": lambda x: F.log_softmax(x, dim=1),
    "sum": lambda x: x.sum(), "sum_dim": lambda x: x.sum(1), "sum_keep": lambda x: x.sum(-1, True),
    "mean": lambda x: x.mean(), "mean_dims": lambda x: x.mean((0, 2), keepdim=True),
    "amax": lambda x: x.amax(-1), "max": lambda x: x.max(), "logsumexp": lambda x: x.logsumexp(1),
    "where": lambda x: ember.where(x > 0, x, x * 0.1), "cumsum": lambda x: x.cumsum(1),
    "masked_fill": lambda x: x.masked_fill(ember.ones(3, 4).tril() == 0, float("-inf")),
    "sin_cos": lambda x: x.sin() + x.cos(), "floor": lambda x: (x * 4).floor(),
    "softplus": F.softplus, "softplus_beta": lambda x: F.softplus(x, beta=2.0),
    "logsigmoid": F.logsigmoid, "mish": F.mish, "norm": lambda x: x.norm(dim=-1),
    "normalize": lambda x: F.normalize(x, dim=1), "norm_l1": lambda x: x.norm(p=1, dim=(0, 2)),
    "vector_norm": lambda x: ember.linalg.vector_norm(x, dim=-1, keepdim=True),
}
BINARY = {
    "add": lambda a, b: a + b, "add_alpha": lambda a, b: ember.add(a, b, alpha=2),
    "sub_broadcast": lambda a, b: a - b[0], "mul": lambda a, b: a * b, "div": lambda a, b: a / b,
    "maximum": ember.maximum, "minimum": ember.minimum, "pow": lambda a, b: a.abs() ** b,
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    ember.manual_seed(0)
    assert_matches(Lambda(UNARY[name]), (ember.randn(2, 3, 4),), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name):
    ember.manual_seed(1)
    a, b = ember.randn(2, 3, 4), ember.randn(2, 3, 4) + 3
    assert_matches(Lambda(BINARY[name]), (a, b))


@pytest.mark.parametrize("opset", [17, 18, 20])
def test_gelu_and_reductions_at_each_opset(opset):
    """GELU is one node from opset 20 on and spelled out before; ReduceMean takes its axes as an
    input from opset 18 on and as an attribute before."""
    ember.manual_seed(2)
    model = Lambda(lambda x: F.gelu(x).mean(-1) + F.gelu(x, approximate="tanh").amax(-1)
                   + F.mish(x).sum(-1) + x.norm(dim=-1))
    assert_matches(model, (ember.randn(3, 5),), opset_version=opset, atol=1e-5)


def test_scaled_constants_keep_the_dtype():
    model = Lambda(lambda x: x * (1.0 / math.sqrt(8)) + 0.5)
    assert_matches(model, (ember.randn(2, 8, dtype=ember.float64),))


def test_unsupported_op_is_named():
    with pytest.raises(RuntimeError, match=r"the op 'cumprod' \(CumprodBackward0\) has no ONNX"):
        export_bytes(Lambda(lambda x: x.cumprod(-1)), (ember.randn(2, 3),))


def test_div_with_rounding_mode_is_refused():
    with pytest.raises(RuntimeError, match="div.*rounding_mode='floor'"):
        export_bytes(Lambda(lambda x: ember.div(x, 2.0, rounding_mode="floor")),
                     (ember.randn(2, 3),))


def test_comparison_of_an_integer_tensor_with_a_float_promotes():
    model = Lambda(lambda x: (x > 1.5).float() + (x == 2).float())
    assert_matches(model, (ember.tensor([[1, 2, 3]]),))


def test_number_taken_from_the_values_is_refused():
    with pytest.raises(RuntimeError, match=r"argument 1 of MulBackward0 was .* on a second "
                                           r"example input"):
        export_bytes(Lambda(lambda x: x * x[0, 0].item()), (ember.randn(2, 3),))
