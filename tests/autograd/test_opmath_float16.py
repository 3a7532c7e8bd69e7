"""float16 op math (ember/autograd/_opmath.py): ops on float16 compute in float32 and round their
result once, scalars enter as torch feeds them, backward computes in float32 (or in torch's Half
steps where its kernel takes them): bit for bit against torch 2.13's CPU kernels."""
import subprocess
import sys

import numpy as np
import pytest
import torch

import ember
from tests.kernels import TORCH_AVX2, assert_as_torch_kernel


def _f(lib):
    return lib.nn.functional


def _input(lib, shape=(12, 40), seed=0, strided=False):
    x = np.asarray(np.random.RandomState(seed).randn(*shape) * 3, np.float32)
    if strided:  # the same values, transposed in memory
        return lib.tensor(np.ascontiguousarray(x.T)).to(lib.float16).t()
    return lib.tensor(x).to(lib.float16)


def _bits(x):
    x = x.detach()
    return x.view(torch.int16).numpy() if isinstance(x, torch.Tensor) else \
        x.numpy().view(np.int16)


def _target(lib, n=12):
    return lib.arange(n) % 40


# ops torch computes in float32 and rounds once; the scalar cases cover torch's feeding of a
# scalar to float16: rounded to float16 first for add/sub/rsub/pow, read as float32 by mul/div
OPS = {
    "mul_scalar": lambda a, L: a * 0.1, "rmul_scalar": lambda a, L: 0.1 * a,
    "div_scalar": lambda a, L: a / 0.3, "rdiv_scalar": lambda a, L: 2.5 / a,
    "add_scalar": lambda a, L: a + 0.1, "sub_scalar": lambda a, L: a - 0.1,
    "rsub_scalar": lambda a, L: 0.3 - a, "pow_scalar": lambda a, L: a.abs() ** 1.7,
    "pow_3": lambda a, L: a ** 3, "add_alpha": lambda a, L: L.add(a.detach() * 2, a, alpha=0.1),
    "sub_alpha": lambda a, L: L.sub(a.detach(), a, alpha=0.3), "scalar_pow": lambda a, L: 1.3 ** a,
    "mul_0d_float32": lambda a, L: a * L.tensor(0.1), "add_0d_float32": lambda a, L: a + L.tensor(0.1),
    "0d_float32_div": lambda a, L: L.tensor(0.1) / a,
    "lerp": lambda a, L: L.lerp(a, a.detach() * 0.5, 0.3),
    "lerp_tensor": lambda a, L: L.lerp(a, a.detach() * 0.5, a.detach().sigmoid()),
    "addcdiv": lambda a, L: L.addcdiv(a.detach(), a, a.abs() + 1, value=0.3),
    "sum": lambda a, L: a.sum(), "sum_dim": lambda a, L: a.sum(1), "mean": lambda a, L: a.mean(),
    "mean_dim": lambda a, L: a.mean(0), "var": lambda a, L: a.var(1), "std": lambda a, L: a.std(),
    "norm": lambda a, L: a.norm(), "cumsum": lambda a, L: a.cumsum(1),
    "pairwise_distance": lambda a, L: _f(L).pairwise_distance(a, a.detach() * 0.3),
    "cumprod": lambda a, L: (a * 0.1 + 1).cumprod(1),
    "prod_dim": lambda a, L: (a * 0.2 + 1).prod(1),
    "prod_dim_with_zero": lambda a, L: (a * 0.2 + 1).index_fill(1, L.tensor([3]), 0).prod(1),
    "prod_strided": lambda a, L: (a.t() * 0.2 + 1).prod(1),
    "cumsum_float32": lambda a, L: a.cumsum(1, dtype=L.float32).to(L.float16),
    "logsumexp": lambda a, L: a.logsumexp(1), "logcumsumexp": lambda a, L: a.logcumsumexp(1),
    "exp": lambda a, L: (a * 0.3).exp(), "log": lambda a, L: a.abs().log(),
    "tanh": lambda a, L: a.tanh(), "sqrt": lambda a, L: a.abs().sqrt(),
    "rsqrt": lambda a, L: a.abs().rsqrt(), "reciprocal": lambda a, L: a.reciprocal(),
    "sigmoid": lambda a, L: a.sigmoid(), "silu": lambda a, L: _f(L).silu(a),
    "gelu": lambda a, L: _f(L).gelu(a), "gelu_tanh": lambda a, L: _f(L).gelu(a, approximate="tanh"),
    "softplus": lambda a, L: _f(L).softplus(a), "mish": lambda a, L: _f(L).mish(a),
    "hardswish": lambda a, L: _f(L).hardswish(a), "logsigmoid": lambda a, L: _f(L).logsigmoid(a),
    "glu": lambda a, L: _f(L).glu(a, -1),
    "logit": lambda a, L: (a.sigmoid() * 0.9).logit(),
    "logit_eps": lambda a, L: (a.sigmoid() * 1.2 - 0.1).logit(eps=0.01),
    "xlogy": lambda a, L: L.xlogy(a, a.detach().abs() + 0.5),
    "ldexp": lambda a, L: L.ldexp(a, a * 0.3),
    "softmax": lambda a, L: a.softmax(-1), "softmax_dim0": lambda a, L: a.softmax(0),
    "log_softmax": lambda a, L: a.log_softmax(-1),
    "log_softmax_dim0": lambda a, L: a.log_softmax(0),
    "layer_norm": lambda a, L: _f(L).layer_norm(a, (40,)),
    "group_norm": lambda a, L: _f(L).group_norm(a.reshape(12, 4, 10), 2),
    "batch_norm": lambda a, L: _f(L).batch_norm(a, None, None, training=True),
    "batch_norm_affine": lambda a, L: _f(L).batch_norm(a, None, None, a.detach()[0] * 0.5 + 1,
                                                       a.detach()[1], training=True),
    "rms_norm": lambda a, L: _f(L).rms_norm(a, (40,)),
    "matmul": lambda a, L: a @ a.detach().t(),
    "linear": lambda a, L: _f(L).linear(a, a.detach()[:5] * 0.5, a.detach()[0, :5]),
    "outer": lambda a, L: L.outer(a[0], a.detach()[1] * 0.3),
    "addmm": lambda a, L: L.addmm(a[:, :12], a, a.detach().t(), beta=0.3, alpha=0.7),
    "baddbmm": lambda a, L: L.baddbmm(a[:, :4].reshape(3, 4, 4), a.reshape(3, 4, 40),
                                      a.detach().reshape(3, 40, 4), alpha=0.7),
    "broadcast_mul": lambda a, L: a[:1] * a.detach(),
    "conv1d": lambda a, L: _f(L).conv1d(a.reshape(12, 4, 10), a.detach()[:3, :12].reshape(3, 4, 3)),
    "conv2d": lambda a, L: _f(L).conv2d(a.reshape(3, 4, 4, 10), a.detach()[:2, :36].reshape(2, 4, 3, 3),
                                        padding=1),
    "conv_transpose2d": lambda a, L: _f(L).conv_transpose2d(
        a.reshape(3, 4, 4, 10), a.detach()[:4, :18].reshape(4, 2, 3, 3) * 0.3, stride=2),
    "interpolate_linear": lambda a, L: _f(L).interpolate(a[None], scale_factor=2, mode="linear"),
    "interpolate_bilinear": lambda a, L: _f(L).interpolate(a[None, None], scale_factor=2,
                                                           mode="bilinear"),
    "mse_loss": lambda a, L: _f(L).mse_loss(a, a.detach() * 0.5),
    "cross_entropy": lambda a, L: _f(L).cross_entropy(a, _target(L)),
    "kl_div_target": lambda a, L: _f(L).kl_div(a.detach().log_softmax(-1), a.softmax(-1),
                                               reduction="batchmean"),
    "bce": lambda a, L: _f(L).binary_cross_entropy(a.sigmoid(), (a * 0.7).sigmoid()),
    "bce_sum": lambda a, L: _f(L).binary_cross_entropy(a.sigmoid(), (a.detach() * 0.7).sigmoid(),
                                                       reduction="sum"),
    "bce_with_logits": lambda a, L: _f(L).binary_cross_entropy_with_logits(
        a, (a.detach() * 0.7).sigmoid()),
}


def _run(lib, name, strided=False):
    a = _input(lib, strided=strided).requires_grad_()
    out = OPS[name](a, lib)
    seed = _input(lib, out.shape, seed=1) if out.ndim else None
    (grad,) = lib.autograd.grad(out, a, seed)
    return out, grad


# ember reproduces torch's AVX2 vector lanes (tests/kernels.py: GELU's erf and tanh, softmax's
# 16-lane vectors off the last dim); elsewhere those positions may differ by a float16 step
# (rms_norm computes in float32, where torch's AVX-512 sqrt is not IEEE's: its gradient, after
# the exact formulas of the float32 backward, may round to the other float16 neighbour)
LANES = {"gelu", "gelu_tanh", "softmax_dim0", "rms_norm"}


def _assert_as_torch(e, t, name):
    assert_as_torch_kernel(e, t, _bits, exact=TORCH_AVX2 or name not in LANES, rtol=2 ** -10,
                           atol=1e-7, of_max=2 ** -9)  # (a gradient: steps of its largest)


@pytest.mark.parametrize("name", sorted(OPS))
def test_forward_and_backward_are_bit_exact_with_torch(name):
    (t, tg), (e, eg) = _run(torch, name), _run(ember, name)
    assert e.dtype is ember.float16 and eg.dtype is ember.float16
    _assert_as_torch(e, t, name)
    _assert_as_torch(eg, tg, name)


@pytest.mark.parametrize("name", ["mul_scalar", "gelu", "softmax", "layer_norm", "rsqrt",
                                  "cross_entropy", "batch_norm", "batch_norm_affine"])
def test_strided_inputs_are_bit_exact_with_torch(name):
    (t, tg), (e, eg) = _run(torch, name, strided=True), _run(ember, name, strided=True)
    _assert_as_torch(e, t, name)
    _assert_as_torch(eg, tg, name)


@pytest.mark.parametrize("shape", [(), (0, 40)])
@pytest.mark.parametrize("name", ["mul_scalar", "add_scalar", "exp", "sigmoid", "sum"])
def test_zero_dim_and_empty_inputs(shape, name):
    outs = []
    for lib in (torch, ember):
        a = _input(lib, shape).requires_grad_()
        out = OPS[name](a, lib)
        (grad,) = lib.autograd.grad(out.sum(), a)
        outs.append((out, grad))
    for e, t in zip(outs[1], outs[0]):
        assert e.shape == t.shape and str(e.dtype) == str(t.dtype).replace("torch", "ember")
        np.testing.assert_array_equal(_bits(e), _bits(t))


def test_batch_norm_running_stats_as_torch():
    """The mean and 1/std normalize as float16 values; the running stats update in float32
    from the float32 statistics, rounded once."""
    outs = []
    for lib in (torch, ember):
        norm = lib.nn.BatchNorm1d(40).half()
        a = _input(lib).requires_grad_()
        y = norm(a)
        y.backward(_input(lib, seed=1))
        outs.append((y, norm.running_mean, norm.running_var, a.grad, norm.weight.grad))
    for e, t in zip(outs[1], outs[0]):
        np.testing.assert_array_equal(_bits(e), _bits(t))


def test_masked_fill_checks_the_float16_range():
    """masked_fill moves a value in (no float32 compute): torch refuses a float16 overflow."""
    with pytest.raises(RuntimeError, match="c10::Half"):
        ember.zeros(2, dtype=ember.float16).masked_fill(ember.tensor([True, False]), 65519.99)


def test_mixed_operands_keep_torchs_result_dtype():
    a = _input(ember)
    assert (a * ember.ones(40)).dtype is ember.float32
    assert (a * ember.tensor(2.0)).dtype is ember.float16
    assert (a * ember.ones(40, dtype=ember.bfloat16)).dtype is ember.float32
    assert a.sum(dtype=ember.float32).dtype is ember.float32


def test_float16_from_numpy_alone_computes_as_torch():
    """A program whose float16 comes only from NumPy (never naming ember.float16) still
    switches the op math on."""
    code = ("import numpy as np, ember\n"
            "x = np.random.RandomState(0).randn(64).astype(np.float16)\n"
            "print((ember.from_numpy(x) * 0.1).numpy().view(np.int16).tolist())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    x = np.random.RandomState(0).randn(64).astype(np.float16)
    assert eval(out) == (torch.from_numpy(x) * 0.1).view(torch.int16).tolist()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["prod", "softmax_dim0", "layer_norm", "mse_loss"])
def test_empty_low_precision_inputs_as_torch(name, dtype):
    """torch's low-dtype kernels have nothing to round in an empty input: the result (and its
    gradient) is torch's, with no NumPy error on the way."""
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    fn = {"prod": lambda a, L: (a + 1).prod(-1), "softmax_dim0": lambda a, L: a.softmax(0),
          "layer_norm": lambda a, L: _f(L).layer_norm(a, (40,)),
          "mse_loss": lambda a, L: _f(L).mse_loss(a, a.detach() * 0.5, reduction="sum")}[name]
    outs = []
    for lib in (torch, ember):
        a = lib.zeros(0, 40, dtype=getattr(lib, dtype)).requires_grad_()
        out = fn(a, lib)
        (grad,) = lib.autograd.grad(out.sum(), a)
        outs.append((out, grad))
    for e, t in zip(outs[1], outs[0]):
        assert e.shape == t.shape and str(e.dtype) == str(t.dtype).replace("torch", "ember")
        np.testing.assert_array_equal(e.detach().float().numpy(), t.detach().float().numpy())


INPLACE = {"mul_": lambda a, b: a.mul_(0.1), "add_alpha_": lambda a, b: a.add_(b, alpha=0.1),
           "div_": lambda a, b: a.div_(0.3), "sub_": lambda a, b: a.sub_(b, alpha=0.7),
           "add_": lambda a, b: a.add_(0.1), "mul_tensor_": lambda a, b: a.mul_(b)}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(INPLACE))
def test_inplace_arithmetic_without_graph_as_torch(name, dtype):
    """An optimizer's in-place step on low-precision tensors computes as the op does: in
    float32 with torch's scalar feeding, rounded once (bfloat16's div_ raised before)."""
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    outs = []
    for lib in (torch, ember):
        a = _input(lib).to(getattr(lib, dtype))
        b = _input(lib, seed=1).to(getattr(lib, dtype))
        INPLACE[name](a, b)
        outs.append(a)
    np.testing.assert_array_equal(_bits(outs[1]), _bits(outs[0]))


ACCUMULATING = {
    "index_add": lambda a, s, L: a.index_add(1, L.tensor([0, 2, 2, 7]), s, alpha=0.3),
    "scatter_add": lambda a, s, L: a.scatter_add(1, L.zeros(12, 4, dtype=L.long), s),
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(ACCUMULATING))
def test_accumulating_ops_round_as_torch(name, dtype):
    """torch's index_add adds in the low dtype's arithmetic (alpha * source and each sum
    rounded); its scatter_add adds in float32 and rounds once."""
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    outs = []
    for lib in (torch, ember):
        a = _input(lib).to(getattr(lib, dtype)).requires_grad_()
        s = _input(lib, (12, 4), seed=1).to(getattr(lib, dtype)).requires_grad_()
        out = ACCUMULATING[name](a, s, lib)
        grads = lib.autograd.grad(out, (a, s), _input(lib, seed=2).to(getattr(lib, dtype)))
        outs.append((out,) + grads)
    for e, t in zip(outs[1], outs[0]):
        np.testing.assert_array_equal(_bits(e), _bits(t))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("shape", [(), (37,), (3, 37), (1000,)])
@pytest.mark.parametrize("op", ["add", "sub", "rsub", "add_"])
def test_alpha_rounds_once_on_vector_lanes_and_stepwise_on_the_tail(op, shape, dtype):
    """torch's low-dtype add/sub with alpha: a + alpha b in float32 where a 32-value vector
    step reaches, in the low dtype's arithmetic (alpha b rounded first) on the scalar tail."""
    if dtype == "bfloat16":
        pytest.importorskip("ml_dtypes")
    for seed in range(30 if shape == () else 1):  # (0-d: many values, each its own case)
        outs = []
        for lib in (torch, ember):
            a = _input(lib, shape, seed=seed).to(getattr(lib, dtype))
            b = _input(lib, shape, seed=seed + 100).to(getattr(lib, dtype))
            out = a.clone().add_(b, alpha=0.3) if op == "add_" else \
                getattr(lib, op)(a, b, alpha=0.3)
            outs.append(out)
        np.testing.assert_array_equal(_bits(outs[1]), _bits(outs[0]))
