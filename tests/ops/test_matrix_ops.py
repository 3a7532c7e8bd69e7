"""ember/ops/matrix_ops.py against torch: tril/triu, diag/diagonal, addmm/baddbmm, outer, lerp,
clamp_min/clamp_max, roll, repeat_interleave, meshgrid (values, gradients, second derivatives,
grad_fn names, errors)."""
import warnings

import numpy as np
import pytest
import torch
from oracle import check, close, same_error

import ember

R = np.random.default_rng(0)
M34, M33, V4, V3 = (R.standard_normal(s) for s in ((3, 4), (3, 3), (4,), (3,)))
B = R.standard_normal((2, 3, 4))

UNARY = {
    "tril": (lambda L, x: L.tril(x), M34), "tril_k": (lambda L, x: x.tril(diagonal=-1), M34),
    "triu": (lambda L, x: L.triu(x, 1), M34), "triu_batched": (lambda L, x: x.triu(-1), B),
    "tril_": (lambda L, x: (x * 1).tril_(1), M34), "triu_": (lambda L, x: (x * 1).triu_(), B),
    "diag_vector": (lambda L, x: L.diag(x), V4), "diag_vector_k": (lambda L, x: x.diag(-2), V4),
    "diag_matrix": (lambda L, x: L.diag(x), M34), "diag_matrix_k": (lambda L, x: L.diag(x, 2), M34),
    "diag_matrix_neg": (lambda L, x: x.diag(diagonal=-1), M34),
    "diagonal": (lambda L, x: L.diagonal(x), M34),
    "diagonal_3d": (lambda L, x: x.diagonal(1, 0, 2), B),
    "diagonal_neg": (lambda L, x: L.diagonal(x, offset=-1, dim1=-1, dim2=1), B),
    "clamp_min": (lambda L, x: L.clamp_min(x, 0.2), M34),
    "clamp_max": (lambda L, x: x.clamp_max(-0.1), M34),
    "clamp_min_": (lambda L, x: (x * 1).clamp_min_(0.0), M34),
    "roll": (lambda L, x: L.roll(x, 1, 1), M34), "roll_flat": (lambda L, x: x.roll(5), M34),
    "roll_multi": (lambda L, x: L.roll(x, (1, -2), (0, 2)), B),
    "repeat_interleave": (lambda L, x: L.repeat_interleave(x, 2, dim=0), M34),
    "repeat_interleave_flat": (lambda L, x: x.repeat_interleave(3), M34),
    "repeat_interleave_dim1": (lambda L, x: x.repeat_interleave(2, 1), B),
    "repeat_interleave_tensor": (lambda L, x: L.repeat_interleave(x, L.tensor([1, 0, 3]), dim=0),
                                 M34),
    "repeat_interleave_tensor_flat": (
        lambda L, x: x.repeat_interleave(L.tensor([2, 1, 0, 1])), V4),
}
BINARY = {
    "outer": (lambda L, x, y: L.outer(x, y), V4, V3),
    "ger": (lambda L, x, y: x.ger(y), V3, V4),
    "lerp_scalar": (lambda L, x, y: L.lerp(x, y, 0.3), M34, V4),
    "lerp_scalar_high": (lambda L, x, y: x.lerp(y, 0.8), M34, M34),
    "clamp_min_tensor": (lambda L, x, y: L.clamp_min(x, y), M34, V4),
    "clamp_max_tensor": (lambda L, x, y: x.clamp_max(y), M34, M34 * 0.5),
    "meshgrid_ij": (lambda L, x, y: L.meshgrid(x, y, indexing="ij")[0] * 2 +
                    L.meshgrid(x, y, indexing="ij")[1], V4, V3),
    "meshgrid_xy": (lambda L, x, y: L.meshgrid([x, y], indexing="xy")[1], V4, V3),
}
TERNARY = {
    "lerp_tensor": (lambda L, x, y, w: L.lerp(x, y, w), M34, V4, R.uniform(0, 1, (3, 4))),
    "addmm": (lambda L, i, a, b: L.addmm(i, a, b), R.standard_normal((3, 2)), M34,
              R.standard_normal((4, 2))),
    "addmm_beta_alpha": (lambda L, i, a, b: L.addmm(i, a, b, beta=0.5, alpha=-2.0),
                         R.standard_normal(2), M34, R.standard_normal((4, 2))),
    "addmm_method": (lambda L, i, a, b: i.addmm(a, b, alpha=3), M33, M33, M33),
    "addmm_": (lambda L, i, a, b: (i * 1).addmm_(a, b, beta=2), M33, M33, M33),
    "baddbmm": (lambda L, i, a, b: L.baddbmm(i, a, b), R.standard_normal((2, 3, 2)), B,
                R.standard_normal((2, 4, 2))),
    "baddbmm_beta_alpha": (lambda L, i, a, b: i.baddbmm(a, b, beta=-1, alpha=0.5),
                           R.standard_normal((3, 1)), B, R.standard_normal((2, 4, 2))),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary(name):
    fn, x = UNARY[name]
    check(fn, x)
    check(fn, x.astype(np.float32), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary(name):
    check(*BINARY[name])


@pytest.mark.parametrize("name", sorted(TERNARY))
def test_ternary(name):
    check(*TERNARY[name])
    fn, *args = TERNARY[name]
    check(fn, *[a.astype(np.float32) for a in args], rtol=1e-4, atol=1e-5)


def test_addmm_beta_zero_ignores_nan_input():
    nan = np.full((3, 2), np.nan)
    check(lambda L, i, a, b: L.addmm(i, a, b, beta=0), nan, M34, R.standard_normal((4, 2)))


def test_lerp_is_exact_at_the_ends():
    x, y = R.standard_normal(5) * 1e8, R.standard_normal(5)
    for w in (0.0, 1.0):
        close(ember.lerp(ember.tensor(x), ember.tensor(y), w),
              torch.lerp(torch.tensor(x), torch.tensor(y), w), rtol=0, atol=0)


def test_diagonal_is_a_writable_view():
    x = ember.zeros(3, 3)
    d = x.diagonal()
    d += 1
    assert np.array_equal(x._data, np.eye(3))
    assert ember.diag(x)._data.base is None or not np.shares_memory(ember.diag(x)._data, x._data)


def test_repeat_interleave_of_counts_and_meshgrid_default():
    close(ember.repeat_interleave(ember.tensor([2, 0, 1])),
          torch.repeat_interleave(torch.tensor([2, 0, 1])))
    with pytest.warns(UserWarning, match="indexing argument"):
        grid = ember.meshgrid(ember.arange(3), ember.arange(2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        close(grid, torch.meshgrid(torch.arange(3), torch.arange(2)))


ERRORS = [
    lambda L: L.tril(L.zeros(3)),
    lambda L: L.outer(L.zeros(2, 2), L.zeros(2)),
    lambda L: L.diag(L.zeros(2, 2, 2)),
    lambda L: L.addmm(L.zeros(3, 4), L.zeros(3, 4), L.zeros(3, 4)),
    lambda L: L.roll(L.zeros(3, 4), (1, 2), 0),
    lambda L: L.repeat_interleave(L.zeros(3, 4), L.tensor([1, 2]), dim=0),
    lambda L: L.lerp(L.zeros(3, 4), L.zeros(3, 4), L.zeros(5)),
    lambda L: L.meshgrid(L.zeros(2, 2), L.zeros(2), indexing="ij"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index):
    with pytest.raises(RuntimeError) as te:
        ERRORS[index](torch)
    with pytest.raises(RuntimeError) as ee:
        ERRORS[index](ember)
    assert str(ee.value).split("\n")[0][:60] == str(te.value).split("\n")[0][:60]


@pytest.mark.parametrize("call", [
    lambda L: L.repeat_interleave(L.tensor([1, 2]), 2.0),
    lambda L: L.repeat_interleave(L.tensor([1, 2]), True),
    lambda L: L.repeat_interleave(L.tensor([1, 2]), L.tensor(2.0)),
    lambda L: L.repeat_interleave(L.tensor([1, 2]), L.tensor([1.0, 2.0])),
    lambda L: L.repeat_interleave(L.tensor([1, 2]), L.tensor([True, False])),
    lambda L: L.repeat_interleave(L.tensor([1.0, 2.0]))])
def test_repeat_interleave_refuses_non_integer_repeats_as_torch(call):
    """(float repeats were truncated)"""
    from oracle import same_error
    same_error(call)


@pytest.mark.parametrize("call", [
    lambda L: L.lerp(L.tensor([1, 2]), L.tensor([1, 2]), 0.5), lambda L: L.lerp(L.tensor([1, 2]), L.tensor([1, 2]), L.tensor([1, 2])), lambda L: L.lerp(L.tensor([True, False]), L.tensor([True, False]), 0.5),
    lambda L: L.lerp(L.tensor([1.0, 2.0]), L.tensor([1, 2]), 0.5), lambda L: L.lerp(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0]).double(), 0.5),
    lambda L: L.lerp(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0]).double())])
def test_lerp_refuses_integers_and_mixed_dtypes_as_torch(call):
    """(integers were interpolated and truncated; mixed dtypes promoted)"""
    from oracle import same_error
    same_error(call)
_F = lambda L: L.tensor([1.0, 2.0])  # noqa: E731


@pytest.mark.parametrize("call", [
    lambda L: L.lerp(_F(L), L.tensor([3.0, 4.0], dtype=L.float64), 0.5),
    lambda L: L.lerp(_F(L), L.tensor([3, 4]), 0.5), lambda L: L.lerp(_F(L), 3.0, 0.5),
    lambda L: L.lerp(L.tensor([1, 2]), L.tensor([3, 4]), 0.5),
    lambda L: L.lerp(L.tensor([1, 2]), L.tensor([3, 4]), L.tensor([1, 0])),
    lambda L: L.lerp(_F(L), _F(L), L.tensor([1, 0])), lambda L: L.lerp(_F(L), _F(L), 1 + 1j),
    lambda L: L.lerp(_F(L), _F(L), L.tensor([0.5], dtype=L.float64)),
    lambda L: _F(L).lerp_(L.tensor([3.0, 4.0], dtype=L.float64), 0.5)])
def test_lerp_refusals_as_torch(call):
    # ember cast end and weight of other dtypes, lerped integers and a complex weight's real part
    same_error(call, first_line=True)


@pytest.mark.parametrize("weight", [lambda L: L.tensor(0.25, dtype=L.float64),
                                    lambda L: L.tensor(1), lambda L: L.tensor(0.5 + 1j)])
def test_lerp_with_a_0d_weight_of_another_dtype_promotes_as_torch(weight):
    # ember computed in the 0-d weight's dtype (float64 out of float32 inputs)
    ours = ember.lerp(_F(ember), _F(ember) * 3, weight(ember))
    theirs = torch.lerp(_F(torch), _F(torch) * 3, weight(torch))
    assert str(ours.dtype) == str(theirs.dtype).replace("torch", "ember")
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("call", [
    lambda L: L.roll(L.tensor(5.0), 1, 0), lambda L: L.roll(L.tensor(5.0), 1, -1),
    lambda L: L.roll(L.tensor(5.0), [1, 2], [0, 0]), lambda L: L.roll(L.arange(4), [], []),
    lambda L: L.roll(L.arange(4), 2.5)])
def test_roll_refusals_as_torch(call):
    # NumPy's AxisError and TypeError leaked; empty shifts rolled nothing
    same_error(call)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("n", [100, 4099, 70000])
@pytest.mark.parametrize("weight", [0.05, 0.3, 0.7, 0.95])
def test_lerp_low_precision_rounds_as_torchs_kernel(dtype, n, weight):
    """bfloat16/float16 lerp: torch's vector lanes take one fused multiply-add in float32
    ((w or w-1) * (end - start) + (start or end)), its scalar tail the two-sided formula; each
    rounds once to the low dtype (up to 238 of 70000 elements differed)."""
    rng = np.random.default_rng(n)
    start, end = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    results = []
    for lib in (ember, torch):
        low = getattr(lib, dtype)
        a, b = lib.tensor(start).to(low), lib.tensor(end).to(low)
        out = a.lerp(b, weight)
        a.lerp_(b, weight)
        results.append((out.float().numpy(), a.float().numpy()))
    for e, t in zip(*results):
        np.testing.assert_array_equal(e, t)
