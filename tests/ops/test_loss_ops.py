"""Loss primitives (ember/ops/loss_ops.py): the pointwise losses (mse, smooth L1, Huber), binary
cross-entropy (with and without logits, weights, pos_weight) and NLL (1-D and 2-D targets,
weights, ignore_index) in every reduction, against torch: values, gradients, second derivatives
and grad_fn names; out-of-range targets raise as torch."""
import numpy as np
import pytest
import torch
from oracle import assert_blocks_bits, check, gradient_bits, wide_inputs

import ember

R = np.random.default_rng(0)
A, B = R.standard_normal((4, 3)), R.standard_normal((4, 3))
P, T01 = R.uniform(0.05, 0.95, (4, 3)), R.uniform(0, 1, (4, 3))
LOGP = np.log(R.dirichlet(np.ones(5), 6))
TARGET = np.array([0, 4, 2, 2, 1, 3])
LOGP2D = np.ascontiguousarray(np.log(R.dirichlet(np.ones(3), (2, 4, 2))).transpose(0, 3, 1, 2))
TARGET2D = R.integers(0, 3, (2, 4, 2))


def _f(lib):
    return lib.nn.functional


def _cases(reduction):
    return {
        "mse": (lambda L, a, b: _f(L).mse_loss(a, b, reduction=reduction), A, B),
        "smooth_l1": (lambda L, a, b: _f(L).smooth_l1_loss(a, b, reduction=reduction, beta=0.7),
                      A, B),
        "huber": (lambda L, a, b: _f(L).huber_loss(a, b, reduction=reduction, delta=0.6), A, B),
        "bce": (lambda L, p, t: _f(L).binary_cross_entropy(p, t, reduction=reduction), P, T01),
        "bce_weight": (lambda L, p, t: _f(L).binary_cross_entropy(
            p, t, weight=L.tensor(A[0] ** 2), reduction=reduction), P, T01),
        "bce_logits": (lambda L, a, t: _f(L).binary_cross_entropy_with_logits(
            a, t, pos_weight=L.tensor([1.0, 2.0, 0.5], dtype=L.float64), reduction=reduction),
            A, T01),
        "nll": (lambda L, x: _f(L).nll_loss(x, L.tensor(TARGET), reduction=reduction), LOGP),
        "nll_weight_ignore": (lambda L, x: _f(L).nll_loss(
            x, L.tensor(TARGET), weight=L.tensor(np.arange(1.0, 6.0)), ignore_index=2,
            reduction=reduction), LOGP),
        "nll2d": (lambda L, x: _f(L).nll_loss(x, L.tensor(TARGET2D), reduction=reduction),
                  LOGP2D),
    }


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", sorted(_cases("mean")))
def test_matches_torch(name, reduction):
    fn, *inputs = _cases(reduction)[name]
    grad_inputs = [True] + [name.startswith(("mse", "smooth", "huber"))] * (len(inputs) - 1)
    check(fn, *inputs, grad_inputs=grad_inputs)


def test_nll_target_out_of_range_raises_as_torch():
    errors = []
    for lib in (torch, ember):
        with pytest.raises((IndexError, RuntimeError)) as info:
            _f(lib).nll_loss(lib.tensor(LOGP), lib.tensor([0, 5, 1, 1, 1, 1]))
        errors.append(info.type)
    assert errors[0] == errors[1]


@pytest.mark.parametrize("fn", [
    lambda L, x, t: L.nn.functional.cross_entropy(x, t),
    lambda L, x, t: L.nn.functional.nll_loss(x, t),
    lambda L, x, t: L.nn.functional.cross_entropy(x, t, label_smoothing=0.1),
    lambda L, x, t: L.nn.functional.cross_entropy(x, t, reduction="sum")])
def test_an_empty_batch_gives_torchs_loss(fn):
    """No targets: the mean is NaN (the sum 0), and the gradient is empty (it raised
    ZeroDivisionError before)."""
    out = []
    for lib in (torch, ember):
        x = lib.zeros(0, 4, requires_grad=True)
        loss = fn(lib, x, lib.zeros(0, dtype=lib.int64))
        loss.backward()
        out.append((loss.item(), tuple(x.grad.shape)))
    np.testing.assert_equal(out[1], out[0])


def test_binary_cross_entropy_refuses_a_target_outside_0_1_as_torch():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="all elements of target should be between 0 and 1"):
            lib.nn.functional.binary_cross_entropy(lib.tensor([0.5]), lib.tensor([2.0]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_mse_gradient_folds_two_over_n_as_torch_bit_for_bit(reduction, dtype):
    """torch's kernel: ((x - y) * norm) * g with norm = 2/n for 'mean' (one number)."""
    x, g = wide_inputs(dtype), wide_inputs(dtype, seed=1)
    target = x * 0.5 + 0.1

    def fn(lib, t):
        return lib.nn.functional.mse_loss(t, lib.tensor(target), reduction=reduction)
    for create_graph in (False, True):
        np.testing.assert_array_equal(*gradient_bits(fn, x, g, None, create_graph))


def _target(dtype):
    g = wide_inputs(dtype, seed=4)
    return (np.abs(g) / (1 + np.abs(g))).astype(dtype)


LOSS_FORMULAS = {
    # ((x - y) / beta or +-1) * norm * g, norm = 1/n for 'mean'
    "smooth_l1": lambda L, t, y, red: L.nn.functional.smooth_l1_loss(t, y, reduction=red,
                                                                      beta=0.3),
    "huber": lambda L, t, y, red: L.nn.functional.huber_loss(t, y, reduction=red, delta=0.7),
    # ((sigmoid(x) - y) * g) [* w] [/ n]
    "bce_logits": lambda L, t, y, red: L.nn.functional.binary_cross_entropy_with_logits(
        t, y, reduction=red),
    "bce_logits_weight": lambda L, t, y, red: L.nn.functional.binary_cross_entropy_with_logits(
        t, y, weight=L.linspace(0, 3, t.numel(), dtype=t.dtype), reduction=red),
    "bce_logits_pos_weight": lambda L, t, y, red:
        L.nn.functional.binary_cross_entropy_with_logits(
            t, y, pos_weight=L.linspace(0.5, 2.5, t.numel(), dtype=t.dtype), reduction=red),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", sorted(LOSS_FORMULAS))
def test_loss_gradients_in_torchs_steps_bit_for_bit(name, reduction, dtype):
    """As torch's kernels: the factor and 'mean''s 1/n folded into one number (smooth L1,
    Huber), or sigmoid(x) - y times g, then the weight, then / n (with logits; compared where
    ember's sigmoid equals torch's)."""
    x, g, target = wide_inputs(dtype), wide_inputs(dtype, seed=1), _target(dtype)
    key = (lambda L, t: t.sigmoid()) if name.startswith("bce") else None

    def fn(lib, t):
        return LOSS_FORMULAS[name](lib, t, lib.tensor(target), reduction)
    for create_graph in (False, True):
        np.testing.assert_array_equal(*gradient_bits(fn, x, g, key, create_graph, least=0.5))


def _backward_exp(L, x, dim):
    """exp(log_softmax(x)) as log_softmax's backward takes it (torch's exp kernel there is
    neither its exp op's nor NumPy's): the gradient for an upstream -1 at place 1 along dim,
    g - exp(y) * (-1), is exp(y) but at place 1, taken from the one for -1 at place 0."""
    out = []
    for place in (1, 0):
        x = x.detach().requires_grad_()
        g = L.zeros(x.shape, dtype=x.dtype)
        g.select(dim, place).fill_(-1)
        out.append(L.autograd.grad(L.nn.functional.log_softmax(x, dim), x, g)[0])
    return L.cat([out[0].narrow(dim, 0, 1), out[1].narrow(dim, 1, 1),
                  out[0].narrow(dim, 2, x.shape[dim] - 2)], dim)


def _softmax_key(shape, dim=1):
    """The forward values log_softmax's backward reads (log_softmax and its exp), flat."""
    def key(L, t):
        x = t.reshape(shape)
        return (L.nn.functional.log_softmax(x, dim).reshape(-1),
                _backward_exp(L, x, dim).reshape(-1))
    return key


_XENT_TARGETS = np.random.default_rng(5).integers(0, 10, 10_000)
_XENT_IGNORED = np.where(np.arange(10_000) % 7 == 3, -100, _XENT_TARGETS)
_XENT_WEIGHT = np.arange(10) / 4  # (a 0 among them; sums exact in any order)
XENT_FORMULAS = {  # (loss of the flat inputs, its logits' shape, their class dim)
    "ce": (lambda L, x, red: L.nn.functional.cross_entropy(
        x.reshape(10_000, 10), L.tensor(_XENT_TARGETS), reduction=red), (10_000, 10), 1),
    "ce_weight_ignore": (lambda L, x, red: L.nn.functional.cross_entropy(
        x.reshape(10_000, 10), L.tensor(_XENT_IGNORED), reduction=red,
        weight=L.tensor(_XENT_WEIGHT, dtype=x.dtype)), (10_000, 10), 1),
    "ce_wide_rows": (lambda L, x, red: L.nn.functional.cross_entropy(
        x.reshape(1000, 100), L.tensor(_XENT_TARGETS[:1000] * 9), reduction=red),
        (1000, 100), 1),
    "ce_1d": (lambda L, x, red: L.nn.functional.cross_entropy(x, L.tensor(12345),
                                                             reduction=red), (100_000,), 0),
    "ce_3d": (lambda L, x, red: L.nn.functional.cross_entropy(
        x.reshape(1000, 10, 10), L.tensor(_XENT_IGNORED.reshape(1000, 10)), reduction=red),
        (1000, 10, 10), 1),
    # class probabilities, one-hot (log_softmax's sums exact): the mean's g / count
    "ce_probs": (lambda L, x, red: L.nn.functional.cross_entropy(
        x.reshape(10_000, 10), L.tensor(np.eye(10)[_XENT_TARGETS], dtype=x.dtype),
        weight=L.tensor(_XENT_WEIGHT + 0.5, dtype=x.dtype), reduction=red), (10_000, 10), 1),
    "log_softmax_nll": (lambda L, x, red: L.nn.functional.nll_loss(
        L.nn.functional.log_softmax(x.reshape(10_000, 10), 1), L.tensor(_XENT_IGNORED),
        weight=L.tensor(_XENT_WEIGHT, dtype=x.dtype), reduction=red), (10_000, 10), 1),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name", sorted(XENT_FORMULAS))
def test_cross_entropy_gradient_bit_for_bit(name, reduction, dtype):
    """torch's two kernels: nll's -(g / total weight) w at each target (+0 at ignored ones),
    then log_softmax's g - exp(y) sum(g), one fused multiply-add (ember took exps / total for
    softmax, and -w / total times g: ~90% of the elements an ulp off). Compared where the
    forward values it reads (log_softmax, the backward's exp) agree with torch's."""
    fn, shape, dim = XENT_FORMULAS[name]
    x, g = wide_inputs(dtype), wide_inputs(dtype, seed=1)
    for create_graph in (False, True):
        _assert_same_bits(*gradient_bits(lambda L, t: fn(L, t, reduction), x, g,
                                         _softmax_key(shape, dim), create_graph, least=0.3))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("dim", [0, 1])
def test_log_softmax_gradient_is_one_fused_multiply_add_as_torch(dim, dtype):
    """g - exp(y) * sum(g) rounded once; the upstream gradient in small integers, so that its
    sums are exact in any order (on any CPU: torch's vectors are as wide as the CPU's, ember
    sums by AVX2's)."""
    shape = (1000, 100)
    x = wide_inputs(dtype)
    g = np.random.default_rng(6).integers(-3, 4, x.size).astype(dtype)
    for create_graph in (False, True):
        _assert_same_bits(*gradient_bits(
            lambda L, t: L.nn.functional.log_softmax(t.reshape(shape), dim), x, g,
            _softmax_key(shape, dim), create_graph, least=0.3))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_gradient_in_torchs_steps_bit_for_bit(reduction, dtype):
    """-(g / total weight) * w at each target, +0 at ignored ones (ember took g * (-w / total),
    and -0 where the weight is 0)."""
    x, g = wide_inputs(dtype), wide_inputs(dtype, seed=1)

    def fn(L, t):
        return L.nn.functional.nll_loss(t.reshape(10_000, 10), L.tensor(_XENT_IGNORED),
                                        weight=L.tensor(_XENT_WEIGHT, dtype=t.dtype),
                                        reduction=reduction)
    for create_graph in (False, True):
        _assert_same_bits(*gradient_bits(fn, x, g, None, create_graph))


def _assert_same_bits(e, t):
    """The same bits (zeros' signs too, which assert_array_equal does not tell apart)."""
    np.testing.assert_array_equal(e.view(f"u{e.itemsize}"), t.view(f"u{t.itemsize}"))


@pytest.mark.parametrize("targets, weight", [
    ([-100, -100], None), ([0, 1], [0.0, 0.0, 0.0]), ([0, -100], [0.0, 1.0, 1.0]),
    ([2, 1], [0.5, 0.0, 2.0])])
@pytest.mark.parametrize("scale", [0.75, -0.75, 0.0])
def test_cross_entropy_gradient_zeros_and_nans_as_torch(targets, weight, scale):
    """Ignored rows +0 (ember gave -0), zero weights -0 at the target, a zero total weight NaN
    over the row (ember gave 0 where exp(y) is 0), and underflowed exp(y) in both signs."""
    grads = []
    for L in (ember, torch):
        x = L.tensor([[1e30, -1e30, 0.0], [-200.0, 0.0, 1.0]], requires_grad=True)
        w = None if weight is None else L.tensor(weight)
        for reduction in ("mean", "sum", "none"):
            loss = L.nn.functional.cross_entropy(x, L.tensor(targets), weight=w,
                                                 reduction=reduction)
            grads.append(L.autograd.grad(loss.sum() * scale, x)[0].numpy())
    exact = np.array([[True, True, True], [True, False, False]])  # exp(y) 1 or 0 there
    for e, t in zip(grads[:3], grads[3:]):
        nan = np.isnan(t)
        np.testing.assert_array_equal(np.isnan(e), nan)
        _assert_same_bits(np.where(nan, 0, e)[exact], np.where(nan, 0, t)[exact])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [5, 64, 1000, 4097])
def test_nll_mean_divides_by_torchs_total_weight(n, dtype):
    """'mean''s divisor is the weights summed in torch's kernel's cascade of partial sums (16
    at a time, ignored targets skipped): NumPy's pairwise sum was an ulp off for about half the
    batches, and then every element of the gradient with it."""
    rng = np.random.default_rng(n)
    x = rng.standard_normal((n, 10)).astype(dtype)
    t = np.where(rng.random(n) < 0.1, -100, rng.integers(0, 10, n))
    for seed in range(4):
        w = np.random.default_rng(seed).uniform(0.1, 3, 10).astype(dtype)
        grads = []
        for L in (ember, torch):
            a = L.tensor(x, requires_grad=True)
            loss = L.nn.functional.nll_loss(a, L.tensor(t), weight=L.tensor(w))
            grads.append(L.autograd.grad(loss, a)[0].numpy())
        _assert_same_bits(*grads)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(5000, 10), (8, 10, 7, 5), (16, 10, 33), (10,)])
def test_nll_loss_value_sums_as_torch(shape, dtype):
    """'sum' and 'mean' add the kept losses in torch's cascade (NumPy's pairwise sum was an ulp
    off in most batches); a 1-D input with a weight and an ignored target raised TypeError."""
    rng = np.random.default_rng(len(shape))
    x = rng.standard_normal(shape).astype(dtype)
    tshape = (shape[0],) + shape[2:] if len(shape) > 1 else ()
    w = rng.uniform(0.1, 3, 10).astype(dtype)
    for seed in range(3):
        t = np.where(rng.random(tshape) < 0.1 + seed / 3, -100, rng.integers(0, 10, tshape))
        t[...] = -100 if seed == 2 and not tshape else t  # (a 1-D input's one target ignored)
        for weight in (None, w):
            for reduction in ("sum", "mean"):
                values = [L.nn.functional.nll_loss(
                    L.tensor(x), L.tensor(t), reduction=reduction,
                    weight=None if weight is None else L.tensor(weight)).numpy()
                    for L in (ember, torch)]
                _assert_same_bits(*values)


# log_softmax's backward summing a dense upstream gradient (label smoothing, class
# probabilities, log_softmax alone): torch sums each row by its vectors (an AVX2 CPU's order,
# which ember takes); compared with torch run as on an AVX2 CPU, in a child process
_DENSE_FORMULAS = {  # (fn of the flat logits, their shape, class dim)
    "log_softmax": (lambda L, x: L.nn.functional.log_softmax(x.reshape(1000, 100), 1),
                    (1000, 100), 1),
    "log_softmax_rows_of_10": (lambda L, x: L.nn.functional.log_softmax(
        x.reshape(10_000, 10), 1), (10_000, 10), 1),
    "log_softmax_rows_of_1000": (lambda L, x: L.nn.functional.log_softmax(
        x.reshape(100, 1000), 1), (100, 1000), 1),
    "ce_label_smoothing": (lambda L, x: L.nn.functional.cross_entropy(
        x.reshape(10_000, 10), L.tensor(_XENT_IGNORED), label_smoothing=0.1,
        weight=L.tensor(_XENT_WEIGHT, dtype=x.dtype)), (10_000, 10), 1),
    "ce_probabilities": (lambda L, x: L.nn.functional.cross_entropy(
        x.reshape(1000, 100), L.tensor(np.random.default_rng(7).dirichlet(
            np.ones(100), 1000), dtype=x.dtype)), (1000, 100), 1),
}


def _dense_side(L, name, dtype, create_graph=False):
    """(gradient, forward keys) of a _DENSE_FORMULAS case in library L, flat."""
    fn, shape, dim = _DENSE_FORMULAS[name]
    x, g = wide_inputs(dtype), wide_inputs(dtype, seed=1)
    t = L.tensor(x, requires_grad=True)
    y = fn(L, t)
    go = L.tensor(g[:y.numel()]).reshape(y.shape)
    (grad,) = L.autograd.grad(y, t, go, create_graph=create_graph and L is ember)
    keys = np.stack([k.detach().numpy() for k in _softmax_key(shape, dim)(L, L.tensor(x))])
    return grad.detach().numpy(), keys


def _torch_avx2_dense():
    """The child's side: torch's gradients and keys of every dense case."""
    return {f"{name}-{dtype.__name__}-{part}": value
            for name in _DENSE_FORMULAS for dtype in (np.float32, np.float64)
            for part, value in zip(("grad", "keys"), _dense_side(torch, name, dtype))}


@pytest.fixture(scope="module")
def torch_avx2(tmp_path_factory):
    import os
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    out = tmp_path_factory.mktemp("avx2") / "torch.npz"
    script = (f"import sys; sys.path[:0] = [{here!r}, {os.path.dirname(here)!r}]; "
              "import numpy as np, torch, test_loss_ops as T; "
              "assert torch.backends.cpu.get_cpu_capability() == 'AVX2'; "
              f"np.savez({str(out)!r}, **T._torch_avx2_dense())")
    env = dict(os.environ, ATEN_CPU_CAPABILITY="avx2")
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
    if run.returncode:
        pytest.skip(f"torch as on an AVX2 CPU did not run here: {run.stderr[-300:]}")
    return dict(np.load(out))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(_DENSE_FORMULAS))
def test_log_softmax_gradient_sums_rows_as_torchs_vectors(name, dtype, torch_avx2):
    """sum(g) over a row in torch's vector order (8 float32 lanes folded pairwise, 4 float64
    lanes added in order), then the fused step: ember's BLAS and pairwise sums were an ulp
    off in about a tenth of the elements. Compared where the forward values agree."""
    key = f"{name}-{dtype.__name__}"
    t_grad, t_keys = torch_avx2[f"{key}-grad"], torch_avx2[f"{key}-keys"]
    for create_graph in (False, True):
        e_grad, e_keys = _dense_side(ember, name, dtype, create_graph)
        agree = ((e_keys == t_keys) | (np.isnan(e_keys) & np.isnan(t_keys))).all(0)
        assert agree.mean() > 0.3
        _assert_same_bits(e_grad[agree], t_grad[agree])


def _probabilities(dtype, n=3 * 4096 + 80):
    """Large probabilities with 0 and 1 (log's -100 floor), tiny ones and exact halves."""
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 1, n)
    x[:n // 2] = np.resize([0.0, 1.0, 1e-45, 1e-300, 0.5, 1 - 1e-7, 1e-7, 1e-30, 0.25], n // 2)
    rng.shuffle(x)
    return x.astype(dtype)


LARGE = {  # a max against a number in blocks (_against)
    "binary_cross_entropy": (lambda L, t: L.nn.functional.binary_cross_entropy(
        t, (t > 0.3).to(t.dtype), reduction="none"), _probabilities, 1e-6),
    "hinge_embedding_loss": (lambda L, t: L.nn.functional.hinge_embedding_loss(
        t, L.where(t > 0, 1.0, -1.0).to(t.dtype), reduction="none"), None, 0.0),
    "margin_ranking_loss": (lambda L, t: L.nn.functional.margin_ranking_loss(
        t, t * 0.5, L.ones_like(t), margin=0.5, reduction="none"), None, 0.0),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(LARGE))
def test_large_arrays_bit_exact(name, dtype):
    """Over large arrays (their clamps in blocks) the losses and gradients have the bits of
    small arrays', and torch's values."""
    fn, inputs, rtol = LARGE[name]
    x = inputs(dtype) if inputs is not None else None
    assert_blocks_bits(fn, dtype, rtol=rtol, x=x, grad=True)
