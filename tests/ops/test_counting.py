"""Counting, searching and index-set functions (ember/ops/counting.py) against torch: values,
dtypes, the gradients of combinations/cartesian_prod, and errors."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember

R = np.random.default_rng(0)
INTS = R.integers(0, 6, (4, 5))
W = R.standard_normal(5)
X = R.standard_normal(50)


def _same(fn):
    e, t = fn(ember), fn(torch)
    e, t = (e, t) if isinstance(t, tuple) else ((e,), (t,))
    assert len(e) == len(t)
    for a, b in zip(e, t):
        assert a.tolist() == b.tolist() and str(a.dtype)[6:] == str(b.dtype)[6:]


@pytest.mark.parametrize("fn", [
    lambda L: L.unique(L.tensor(INTS)),
    lambda L: L.tensor(INTS).unique(return_inverse=True, return_counts=True),
    lambda L: L.unique(L.tensor(INTS), sorted=False, return_counts=True),
    lambda L: L.unique(L.tensor(INTS[:, :2] % 2), dim=0, return_inverse=True),
    lambda L: L.unique(L.tensor(INTS[:2] % 2), return_counts=True, dim=1),
    lambda L: L.unique(L.tensor([2.5, -1.0, 2.5])),
    lambda L: L.bincount(L.tensor(INTS[0])),
    lambda L: L.tensor(INTS[1]).bincount(minlength=9),
    lambda L: L.bincount(L.tensor(INTS[0]), L.tensor(W)),
    lambda L: L.bincount(L.tensor(INTS[0]), L.tensor(W, dtype=L.float32)),
    lambda L: L.bincount(L.tensor(INTS[0]), L.tensor(INTS[1])),
    lambda L: L.histc(L.tensor(X), bins=7),
    lambda L: L.tensor([1.0, 2, 1, 5, -1]).histc(bins=4, min=0, max=3),
    lambda L: L.histc(L.tensor([2.0, 2.0]), bins=3),
    lambda L: L.bucketize(L.tensor([[0.5, 3.0], [9.0, 1.0]]), L.tensor([1.0, 3.0, 5.0])),
    lambda L: L.bucketize(L.tensor([1, 3, 4]), L.tensor([1, 3, 5]), right=True,
                          out_int32=True),
    lambda L: L.searchsorted(L.tensor([1.0, 3.0, 5.0]), L.tensor([3.0, 6.0, 0.0])),
    lambda L: L.searchsorted(L.tensor([[1, 3, 5], [2, 4, 6]]), L.tensor([[3, 6], [1, 4]]),
                             side="right"),
    lambda L: L.searchsorted(L.tensor([5.0, 1.0, 3.0]), L.tensor([2.0]),
                             sorter=L.tensor([1, 2, 0])),
    lambda L: L.tril_indices(3, 4), lambda L: L.tril_indices(4, 3, -1),
    lambda L: L.triu_indices(3, 3, 1), lambda L: L.triu_indices(2, 5, dtype=L.int32),
])
def test_matches_torch(fn):
    _same(fn)


@pytest.mark.parametrize("fn", [
    lambda L, x: L.combinations(x), lambda L, x: L.combinations(x, 3),
    lambda L, x: L.combinations(x, with_replacement=True),
    lambda L, x: L.cartesian_prod(x, x[:2] * 2), lambda L, x: L.cartesian_prod(x[:2], x, x[1:3])])
def test_index_built_functions_match_torch(fn):
    check(fn, R.standard_normal(4), same_grad_fn=False)


def test_degenerate_combinations():
    _same(lambda L: L.combinations(L.tensor([1.0, 2.0]), r=0))
    _same(lambda L: L.combinations(L.tensor([1.0, 2.0, 3.0]), r=4))
    _same(lambda L: L.cartesian_prod(L.tensor([1, 2])))


@pytest.mark.parametrize("call", [
    lambda L: L.bincount(L.tensor([-1, 2])),
    lambda L: L.bincount(L.tensor([[1, 2]])),
    lambda L: L.bincount(L.tensor([1.0])),
    lambda L: L.bincount(L.tensor([True])),
    lambda L: L.histc(L.tensor([1, 2])),
    lambda L: L.bucketize(L.tensor([1.0]), L.tensor([[1.0]])),
    lambda L: L.combinations(L.ones(2, 2)),
    lambda L: L.searchsorted(L.tensor([[1.0, 2.0]]), L.tensor([[1.0], [2.0]])),
])
def test_errors_as_torch(call):
    same_error(call)


@pytest.mark.parametrize("values", [[1.0, float("nan")], [1.0, float("inf")]])
def test_histc_of_a_non_finite_range_raises_as_torch(values):
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match=r"torch.histc: range of \[.*\] is not finite"):
            lib.histc(lib.tensor(values))


@pytest.mark.parametrize("call", [
    lambda L: L.unique(L.tensor(1.0), dim=0), lambda L: L.unique(L.ones(2, 2), dim=2),
    lambda L: L.unique_consecutive(L.tensor(1.0), dim=0)])
def test_unique_dim_errors_as_torch(call):
    """A dim of a 0-d tensor, or out of range, is refused (it wrapped silently before)."""
    same_error(call)


def test_unique_keeps_every_nan_distinct():
    # torch never merges NaNs (NumPy's np.unique did by default: one NaN, count 2)
    nan = float("nan")
    e, t = (lib.unique(lib.tensor([3.0, nan, 1.0, nan, 3.0]), return_inverse=True,
                       return_counts=True) for lib in (ember, torch))
    for a, b in zip(e, t):  # (assert_array_equal: NaN equals NaN)
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_unique_rows_with_nan_stay_distinct():
    # (torch orders NaN rows by its own comparison; the rows kept are the same)
    rows = [[float("nan"), 1.0], [float("nan"), 1.0], [2.0, 1.0]]
    e, t = (lib.unique(lib.tensor(rows), dim=0, return_counts=True) for lib in (ember, torch))
    assert e[0].shape == t[0].shape and sorted(e[1].tolist()) == sorted(t[1].tolist())


@pytest.mark.parametrize("call", [
    lambda L: L.searchsorted(L.tensor([1 + 1j, 2 + 0j]), L.tensor([1 + 1j, 2 + 0j])), lambda L: L.searchsorted(L.tensor([1.0, 2.0]), L.tensor([1 + 1j, 2 + 0j])),
    lambda L: L.searchsorted(L.tensor([1 + 1j, 2 + 0j]), 1.0), lambda L: L.bucketize(L.tensor([1.0, 2.0]), L.tensor([1 + 1j, 2 + 0j])),
    lambda L: L.unique(L.tensor([1 + 1j, 2 + 0j]), dim=0)])
def test_searchsorted_and_unique_refuse_complex_as_torch(call):
    """(searchsorted ordered complex values as NumPy does)"""
    same_error(call)


@pytest.mark.parametrize("call", [
    lambda L: L.searchsorted(L.tensor([True, False]), L.tensor([True, False])), lambda L: L.searchsorted(L.tensor([True, False]), True),
    lambda L: L.bucketize(L.tensor([True, False]), L.tensor([True, False]))])
def test_searchsorted_refuses_bool_as_torch(call):
    """(bool sequences were searched)"""
    same_error(call)


def test_searchsorted_of_bool_against_numbers_as_torch():
    for call in (lambda L: L.searchsorted(L.tensor([1.0, 2.0]), L.tensor([True, False])), lambda L: L.searchsorted(L.tensor([True, False]), L.tensor([1.0, 2.0]))):
        assert call(ember).tolist() == call(torch).tolist()
_SEQ = lambda L: L.tensor([1.0, 2.0, 3.0])  # noqa: E731
_Q = lambda L: L.tensor([2.5])  # noqa: E731


@pytest.mark.parametrize("call", [
    lambda L: L.searchsorted(_SEQ(L), _Q(L), sorter=L.tensor([0, 1, 2], dtype=L.int32)),
    lambda L: L.searchsorted(_SEQ(L), _Q(L), sorter=L.tensor([0.0, 1.0, 2.0])),
    lambda L: L.searchsorted(_SEQ(L), _Q(L), sorter=L.tensor([0, 1])),
    lambda L: L.searchsorted(_SEQ(L), _Q(L), sorter=L.tensor([[0, 1, 2]])),
    lambda L: L.searchsorted(_SEQ(L), _Q(L), sorter=L.tensor([0, 1, 5])),
    lambda L: L.searchsorted(_SEQ(L), _Q(L), sorter=L.tensor([-1, 0, 1])),
    lambda L: L.searchsorted(_SEQ(L), _Q(L), side="left", right=True),
    lambda L: L.searchsorted(_SEQ(L), _Q(L), side="bad", right=True),
    lambda L: L.searchsorted(L.tensor(1.0), _Q(L)), lambda L: L.searchsorted(L.tensor(1.0), 2.0),
    lambda L: L.searchsorted(L.tensor([1 + 1j, 2]), L.tensor([2.5 + 0j])),
    lambda L: L.searchsorted(L.tensor([False, True]), L.tensor([True])),
    lambda L: L.bucketize(L.tensor([2.5 + 1j]), L.tensor([1 + 0j, 3])),
    lambda L: L.bucketize(L.tensor([True]), L.tensor([False, True]))])
def test_searchsorted_refusals_as_torch(call):
    # ember sorted by an int32 / wrong-shaped sorter, let NumPy's errors out, searched complex
    # and bool sequences
    same_error(call)


@pytest.mark.parametrize("call", [
    lambda L, x: L.unique(x), lambda L, x: x.unique(sorted=False, return_counts=True)[0],
    lambda L, x: L.unique(x, dim=0), lambda L, x: L.unique_consecutive(x),
    lambda L, x: L.unique_consecutive(x, return_inverse=True, dim=1)[0],
    lambda L, x: L.unique(x.to(L.bfloat16))])
def test_unique_values_are_recorded_and_refuse_a_gradient_as_torch(call):
    """torch records unique's values (Unique2Backward0, UniqueDimBackward0,
    UniqueConsecutiveBackward0) and raises when a gradient reaches them; ember made them
    constants, so a loss through them silently dropped that path."""
    seen = []
    for lib in (torch, ember):
        x = lib.tensor([[1.0, 2.0, 2.0], [1.0, 2.0, 2.0]], requires_grad=True)
        out = call(lib, x)
        assert out.requires_grad
        with pytest.raises(NotImplementedError) as info:
            (out.sum() + x.sum()).backward()
        seen.append((type(out.grad_fn).__name__, str(info.value)))
        assert not call(lib, x.detach()).requires_grad
    assert seen[1] == seen[0]


_NAN = float("nan")


@pytest.mark.parametrize("call", [
    lambda L: L.searchsorted(L.tensor([1.0, _NAN, 3.0]), L.tensor([0.0, 2.0, 5.0, _NAN])),
    lambda L: L.searchsorted(L.tensor([_NAN, _NAN]), L.tensor([0.0, 2.0]), right=True),
    lambda L: L.searchsorted(L.tensor([[_NAN, 1.0, 2.0, 4.0], [0.0, 1.0, _NAN, _NAN]]),
                             L.tensor([[1.0, 3.0, _NAN], [0.0, 1.0, 2.0]]), side="right"),
    lambda L: L.searchsorted(L.tensor([3.0, _NAN, 1.0, 2.0]), L.tensor([1.5, 2.0, 9.0]),
                             sorter=L.tensor([2, 3, 0, 1]), out_int32=True),
    lambda L: L.searchsorted(L.tensor([4.0, 1.0, 3.0, 2.0, 0.0]), L.tensor([1.0, 2.5])),
    lambda L: L.bucketize(L.tensor([[0.0, 2.0], [_NAN, 7.0]]), L.tensor([1.0, _NAN, 5.0])),
    lambda L: L.bucketize(2.0, L.tensor([_NAN, 1.0, 5.0]), right=True),
    lambda L: L.searchsorted(L.tensor([1.0, _NAN], dtype=L.bfloat16), L.tensor([0.5, 1.0]))])
def test_searchsorted_with_nan_or_unsorted_boundaries_as_torch(call):
    """torch's binary search lets a NaN boundary (compared false) send each step right; ember
    took NumPy's order, NaN last ([0, 1, 3, 3] for torch's [2, 2, 3, 3])"""
    _same(call)


def test_searchsorted_with_nan_fuzzed_against_torch():
    rng = np.random.default_rng(5)
    for _ in range(200):
        seq = np.sort(rng.integers(-3, 4, (2, int(rng.integers(0, 7)))).astype(float), -1)
        seq[rng.random(seq.shape) < 0.3] = np.nan
        values = rng.integers(-4, 5, (2, 4)) + rng.choice([0.0, 0.5, np.nan], (2, 4))
        right = bool(rng.random() < 0.5)
        _same(lambda L: L.searchsorted(L.tensor(seq), L.tensor(values), right=right))
        _same(lambda L: L.searchsorted(L.tensor(seq[0]), L.tensor(values), right=right))


@pytest.mark.parametrize("call", [
    lambda L: L.searchsorted(L.tensor([0.1]), L.tensor([0.1000000005], dtype=L.float64),
                             right=True),
    lambda L: L.searchsorted(L.tensor([16777217]), L.tensor([16777216.0]), right=True),
    lambda L: L.searchsorted(L.tensor([1.0, 2.0, 3.0], dtype=L.bfloat16), 1.999, right=True),
    lambda L: L.searchsorted(L.tensor([1.0, 2.0], dtype=L.bfloat16), L.tensor(1.999),
                             right=True),
    lambda L: L.bucketize(0.1000000005, L.tensor([0.1]), right=True),
    lambda L: L.searchsorted(L.tensor([1, 2, 3], dtype=L.uint8), -1),
    lambda L: L.searchsorted(L.tensor([-87, 12], dtype=L.int8), -149, right=True),
    lambda L: L.searchsorted(L.tensor([1.0, 70000.0], dtype=L.float16), 1e6)])
def test_searchsorted_compares_in_torchs_promoted_dtype(call):
    """a number or 0-d tensor is cast to the boundaries' dtype (wrapping an int, overflowing a
    float to inf), tensors promote as torch's (int64 with float32: float32); ember compared in
    NumPy's promotion and refused numbers past the dtype"""
    _same(call)


@pytest.mark.parametrize("call", [
    lambda L: L.searchsorted(L.tensor([True]), L.tensor([], dtype=L.bool)),
    lambda L: L.searchsorted(L.tensor([[1 + 1j]]), L.zeros(1, 0, dtype=L.complex64),
                             out_int32=True),
    lambda L: L.bucketize(L.tensor([], dtype=L.bool), L.tensor([True]))])
def test_searchsorted_of_no_values_skips_the_dtype_refusal_as_torch(call):
    _same(call)


@pytest.mark.parametrize("call", [
    lambda L: L.searchsorted(L.tensor([[True]]), L.zeros(2, 0, dtype=L.bool)),
    lambda L: L.searchsorted(L.tensor([1.0, 2.0], dtype=L.float64), L.tensor([1 + 1j])),
    lambda L: L.searchsorted(L.tensor([1 + 1j]), L.tensor([1.0, 2.0], dtype=L.float64)),
    lambda L: L.searchsorted(L.tensor([1, 2]), 1j)])
def test_searchsorted_refusals_in_torchs_order(call):
    """the batch-shape error before the dtype's; the dtype named is the promoted one"""
    same_error(call)


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("values, bins, low, high", [
    ([0.1, 0.2, 0.3, 0.6, 0.7, 0.9, 1.0, 0.0, 1.5, -0.1], 10, 0, 1),
    ([0.4, 0.4, 0.1, 0.8, 0.3, 0.0, 0.2, 0.9, 0.8, 0.5, 0.7, 0.6, 0.5], 10, -1.5, 2.5),
    ([-0.9, -0.3, 0.3, 0.9, 0.6, float("nan")], 6, -0.9, 0.9)])
def test_histc_bins_as_torchs_arithmetic(dtype, values, bins, low, high):
    """torch's bin is (x - min) * bins / (max - min) truncated in the input's dtype: 0.3 of
    [0, 1] in 10 bins is in bin 3 (ember: NumPy's edge search put it in bin 2); bfloat16 is
    rounded at each step (ember counted its float32 values)"""
    def call(L):
        return L.histc(L.tensor(values, dtype=getattr(L, dtype)), bins=bins, min=low,
                       max=high).float()
    assert call(ember).tolist() == call(torch).tolist()


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64", "float32"])
def test_bincount_weights_give_float_or_double_as_torch(dtype):
    """torch's bincount sums float32 weights as float, any other as double (ember kept
    float16)"""
    _same(lambda L: L.bincount(L.tensor([0, 1, 1]), L.tensor([1.0, 2.0, 0.5],
                                                               dtype=getattr(L, dtype))))
