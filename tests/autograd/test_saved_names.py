"""The table of saved names (ember/autograd/_saved_names.py): for each node it lists,
``grad_fn._saved_<name>`` is what torch shows (the same input object, an equal new tensor for an
output, None where torch saves nothing, plain values), and pack hooks see torch's tensors in
torch's order."""
import numpy as np
import pytest
import torch

import ember
from ember.autograd._saved_names import SAVED_NAMES, saved_names


def _inputs(lib):
    a = lib.tensor([0.5, 2.0, 3.0], requires_grad=True)
    b = lib.tensor([4.0, 5.0, 6.0], requires_grad=True)
    m = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    n = lib.tensor([[5.0, 6.0], [7.0, 8.0]], requires_grad=True)
    return {"a": a, "b": b, "m": m, "n": n}


def _f(lib):
    return lib.nn.functional


CASES = {
    "mul": lambda L, a, b, m, n: a * b,
    "mul_other_no_grad": lambda L, a, b, m, n: a * b.detach(),
    "mul_float": lambda L, a, b, m, n: a * 2.5,
    "div": lambda L, a, b, m, n: a / b,
    "div_other_no_grad": lambda L, a, b, m, n: a / b.detach(),
    "pow_scalar": lambda L, a, b, m, n: a.pow(2),
    "pow_tensor": lambda L, a, b, m, n: a.pow(b),
    "rpow": lambda L, a, b, m, n: 2 ** a,
    "maximum": lambda L, a, b, m, n: L.maximum(a, b),
    "minimum": lambda L, a, b, m, n: L.minimum(a, b),
    "threshold": lambda L, a, b, m, n: _f(L).threshold(a, 1.5, 0.0),
    "clamp": lambda L, a, b, m, n: a.clamp(1.0, 2.5),
    "add": lambda L, a, b, m, n: a + b,
    "sub": lambda L, a, b, m, n: a - b,
    "neg": lambda L, a, b, m, n: -a,
    "mm": lambda L, a, b, m, n: m @ n,
    "mv": lambda L, a, b, m, n: m @ n[0],
    "dot": lambda L, a, b, m, n: a @ b,
    "addmm": lambda L, a, b, m, n: L.addmm(a[:2], m, n),
    "linear": lambda L, a, b, m, n: _f(L).linear(m, n, a[:2]),
    "linear_no_bias": lambda L, a, b, m, n: _f(L).linear(m, n),
    "sum": lambda L, a, b, m, n: a.sum(),
    "sum_dim": lambda L, a, b, m, n: m.sum(1, keepdim=True),
    "mean": lambda L, a, b, m, n: a.mean(),
    "mean_dim": lambda L, a, b, m, n: m.mean(0),
    "softmax": lambda L, a, b, m, n: m.softmax(1),
    "log_softmax": lambda L, a, b, m, n: m.log_softmax(0),
    "max": lambda L, a, b, m, n: a.max(),
    "min": lambda L, a, b, m, n: a.min(),
    "prod": lambda L, a, b, m, n: a.prod(),
    "norm": lambda L, a, b, m, n: m.norm(),
    "var": lambda L, a, b, m, n: m.var(1),
    "std": lambda L, a, b, m, n: m.std(0, keepdim=True),
    "max_dim": lambda L, a, b, m, n: m.max(1)[0],
    "cumsum": lambda L, a, b, m, n: m.cumsum(1),
    "gelu": lambda L, a, b, m, n: _f(L).gelu(a - 1),
    "gelu_tanh": lambda L, a, b, m, n: _f(L).gelu(a - 1, approximate="tanh"),
    "silu": lambda L, a, b, m, n: _f(L).silu(a),
    "logsigmoid": lambda L, a, b, m, n: _f(L).logsigmoid(a),
    "leaky_relu": lambda L, a, b, m, n: _f(L).leaky_relu(a - 1, 0.1),
    "elu": lambda L, a, b, m, n: _f(L).elu(a - 1, alpha=0.5),
    "softplus": lambda L, a, b, m, n: _f(L).softplus(a, beta=2.0, threshold=10.0),
    "hardtanh": lambda L, a, b, m, n: _f(L).hardtanh(a, -1.0, 2.5),
    "mse": lambda L, a, b, m, n: _f(L).mse_loss(a, b.detach()),
    "bce_logits": lambda L, a, b, m, n: _f(L).binary_cross_entropy_with_logits(
        a, b.detach() / 10),
    "conv2d": lambda L, a, b, m, n: _f(L).conv2d(m.reshape(1, 1, 2, 2), n.reshape(1, 1, 2, 2)),
    "layer_norm": lambda L, a, b, m, n: _f(L).layer_norm(m, (2,), n[0], n[1]),
    "batch_norm": lambda L, a, b, m, n: _f(L).batch_norm(m, None, None, n[0], n[1],
                                                         training=True),
    "view": lambda L, a, b, m, n: m.view(4),
    "squeeze": lambda L, a, b, m, n: m[:1].squeeze(0),
    "slice": lambda L, a, b, m, n: m[:, 1:],
    "select": lambda L, a, b, m, n: m[1],
    "transpose": lambda L, a, b, m, n: m.transpose(0, 1),
    "cat": lambda L, a, b, m, n: L.cat([m, n], 1),
    "stack": lambda L, a, b, m, n: L.stack([m, n], 1),
    "permute": lambda L, a, b, m, n: m.reshape(1, 2, 2).permute(2, 0, 1),
    "flip": lambda L, a, b, m, n: m.flip(0),
    "repeat": lambda L, a, b, m, n: m.repeat(2, 1),
    "split": lambda L, a, b, m, n: a.split(2)[0],
    "index": lambda L, a, b, m, n: a[L.tensor([0, 2])],
    "gather": lambda L, a, b, m, n: m.gather(1, L.tensor([[0], [1]])),
    "sort": lambda L, a, b, m, n: a.sort()[0],
    "topk": lambda L, a, b, m, n: a.topk(2)[0],
    "cumprod": lambda L, a, b, m, n: m.cumprod(1),
    "rsub": lambda L, a, b, m, n: 1 - a,
    "bmm": lambda L, a, b, m, n: L.bmm(m[None], n[None]),
}
for _op in ("exp", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "tanh", "sigmoid",
            "relu", "sqrt", "rsqrt", "reciprocal", "expm1", "asin", "acos", "atan", "sinh",
            "cosh", "abs"):
    CASES[_op] = (lambda op: lambda L, a, b, m, n: getattr(a * 0.25, op)())(_op)


def _describe(lib, value, named):
    """A library-free description of a saved value: which input it is, its values and history."""
    if isinstance(value, lib.Tensor):
        who = [k for k, t in named.items() if value is t]
        values = np.round(value.detach().numpy().astype(float), 5).tolist()  # 1 ulp apart
        return ("tensor", who, values, str(value.dtype).split(".")[-1],
                value.grad_fn.name() if value.grad_fn is not None else None,
                value.requires_grad)
    return ("plain", value)


def _saved(lib, case):
    named = _inputs(lib)
    out = CASES[case](lib, **named)
    named["out"] = out
    fn = out.grad_fn
    names = sorted(n for n in dir(fn) if n.startswith("_saved_"))
    return type(fn).__name__, {n: _describe(lib, getattr(fn, n), named) for n in names}


@pytest.mark.parametrize("case", sorted(CASES))
def test_saved_values_match_torch(case):
    torch_node, torch_values = _saved(torch, case)
    node, values = _saved(ember, case)
    assert node == torch_node
    assert values or not torch_values, f"{node} shows no saved values"
    for name, value in values.items():  # ember may show fewer (sizes, strides), never others
        assert name in torch_values, name
        assert value == torch_values[name], name


def _pack_log(lib, case):
    named = _inputs(lib)
    log = []

    def pack(t):
        log.append(("pack", t))
        return t

    def unpack(t):
        log.append(("unpack", t))
        return t

    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        named["out"] = CASES[case](lib, **named)
    log.append(("backward", None))
    named["out"].sum().backward()
    return [(kind, _describe(lib, t, named)) for kind, t in log]


PACKED = ["mul", "mul_other_no_grad", "div", "div_other_no_grad", "pow_scalar", "pow_tensor",
          "maximum", "minimum", "threshold", "clamp", "dot", "mv", "exp", "sin", "tanh",
          "sigmoid", "relu", "sqrt", "softmax", "log_softmax", "mm", "addmm", "linear",
          "linear_no_bias", "max", "prod", "norm", "var", "gelu", "silu", "elu", "mse",
          "bce_logits", "conv2d", "cumprod"]


@pytest.mark.parametrize("case", PACKED)
def test_pack_and_unpack_see_torch_tensors_in_torch_order(case):
    assert _pack_log(ember, case) == _pack_log(torch, case)


def test_rows_name_positions_attributes_or_functions():
    for key, rows in SAVED_NAMES.items():
        for name, where, needed_by in rows:
            assert isinstance(name, str) and name.isidentifier(), key
            assert isinstance(where, (int, str, tuple)) or callable(where), key
            assert needed_by is None or isinstance(needed_by, int), key


def test_lookup_prefers_the_module_qualified_entry():
    from ember.ops import linear_ops, matrix_ops
    assert saved_names(linear_ops.AddmmBackward0) is \
        SAVED_NAMES["ember.ops.linear_ops.AddmmBackward0"]
    assert saved_names(matrix_ops.AddmmBackward0) is SAVED_NAMES["AddmmBackward0"]
    assert saved_names(ember.autograd.graph.AccumulateGrad) is None


def test_every_row_of_the_table_is_checked_against_torch():
    seen = set()
    for case in CASES:
        node = type(CASES[case](ember, **_inputs(ember)).grad_fn)
        seen.add(f"{node.__module__}.{node.__name__}" if f"{node.__module__}.{node.__name__}"
                 in SAVED_NAMES else node.__name__)
    assert set(SAVED_NAMES) - seen == set()
