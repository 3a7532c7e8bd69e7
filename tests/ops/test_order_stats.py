"""Order statistics and paired reductions (ember/ops/order_stats.py) against torch: values,
indices, gradients and errors."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember

R = np.random.default_rng(0)
T3 = R.permutation(60).reshape(3, 4, 5) * 0.25 - 7  # distinct values: no ties in the indices


def _both(fn):
    """fn(lib, tensor) on T3 in both libraries: the same (values, indices) and gradients."""
    check(lambda L, x: fn(L, x)[0], T3)  # torch's node names: KthvalueBackward0, ...
    e, t = fn(ember, ember.tensor(T3)), fn(torch, torch.tensor(T3))
    assert e[1].tolist() == t[1].tolist() and e[1].dtype == ember.int64


@pytest.mark.parametrize("fn", [
    lambda L, x: L.kthvalue(x, 2, 1), lambda L, x: x.kthvalue(5, -1, keepdim=True),
    lambda L, x: L.median(x, 0), lambda L, x: x.median(dim=2, keepdim=True),
    lambda L, x: L.mode(L.round(x / 4), 1), lambda L, x: L.mode(L.round(x / 8)),
    lambda L, x: L.cummax(x, 1), lambda L, x: x.cummin(-1),
    lambda L, x: L.cummax(L.round(x / 4), 2), lambda L, x: L.cummin(L.round(x / 4), 0)])
def test_values_indices_and_gradients_match_torch(fn):
    _both(fn)


def test_nan_propagates_as_torch():
    x = np.array([[1.0, np.nan, 2.0, 0.5], [3.0, 1.0, 2.0, 0.0]])
    for name in ("median", "cummax", "cummin"):
        e = getattr(ember, name)(ember.tensor(x), 1)
        t = getattr(torch, name)(torch.tensor(x), 1)
        np.testing.assert_array_equal(e[0].numpy(), t[0].numpy())
        assert e[1].tolist() == t[1].tolist()
    assert np.isnan(ember.median(ember.tensor(x)).item())


@pytest.mark.parametrize("fn", [
    lambda L, x: L.median(x), lambda L, x: x.median(),
    lambda L, x: L.aminmax(x)[0] + L.aminmax(x).max * 2,
    lambda L, x: L.aminmax(x, dim=1, keepdim=True).min,
    lambda L, x: x.aminmax(dim=-1).max,
    lambda L, x: L.nansum(x * x) + x.nansum(1).sum(), lambda L, x: L.nanmean(x, (0, 2)),
    lambda L, x: L.std_mean(x, 1)[0] * L.std_mean(x, 1)[1],
    lambda L, x: L.var_mean(x, (0, 2), correction=0, keepdim=True)[0],
    lambda L, x: L.var_mean(x, False)[1] * L.var_mean(x)[0],
    lambda L, x: L.std_mean(x, keepdim=True)[1],
])
def test_reductions_match_torch(fn):
    check(fn, T3, same_grad_fn=False)
    check(fn, T3.astype(np.float32), rtol=1e-4, atol=1e-5, same_grad_fn=False)


@pytest.mark.parametrize("fn", [
    lambda L, x: L.cdist(x, x[:, :2] * 0.5), lambda L, x: L.cdist(x[0], x[1], p=1.0),
    lambda L, x: L.cdist(x, x[:, 1:3] + 1, p=3)])
def test_cdist_matches_torch(fn):
    # first order only: torch has no derivative of its cdist backward
    check(fn, T3, same_grad_fn=False, second=False)
    check(fn, T3.astype(np.float32), rtol=1e-4, atol=1e-5, same_grad_fn=False, second=False)


def test_nan_aware_reductions_skip_nan():
    x = np.array([[1.0, np.nan, 2.0], [np.nan, 3.0, np.nan]])
    check(lambda L, x: L.nansum(x, 1), x)
    check(lambda L, x: L.nanmean(x, 1), x)
    check(lambda L, x: L.nanmean(x), x)
    check(lambda L, x: L.nansum(x, (0, 1), keepdim=True), x.astype(np.float32))
    # an all-NaN row: nansum 0 and nanmean NaN, and the gradient NaN there, as torch's (it
    # multiplies by the mask; selecting would give a silent 0)
    check(lambda L, x: L.nanmean(x, 1) + L.nansum(x, 1), np.full((2, 2), np.nan), second=False)
    check(lambda L, x: L.nansum(x * float("inf"), 1), x, second=False)


def test_cdist_of_equal_rows_has_a_zero_gradient():
    check(lambda L, x: L.cdist(x, x), T3[0], same_grad_fn=False, second=False)


@pytest.mark.parametrize("call", [
    lambda L: L.kthvalue(L.ones(2, 3), 4, 1),
    lambda L: L.kthvalue(L.ones(2, 3), 0),
    lambda L: L.cdist(L.ones(3), L.ones(2, 3)),
    lambda L: L.cdist(L.ones(2, 3), L.ones(2, 4)),
    lambda L: L.median(L.tensor([True, False])),
    lambda L: L.tensor([True, False]).median(0),
    lambda L: L.kthvalue(L.tensor([True, False]), 1),
    lambda L: L.nanmean(L.tensor([1, 2])),
])
def test_errors_as_torch(call):
    same_error(call)


@pytest.mark.parametrize("seed", range(4))
def test_kthvalue_and_median_pick_torch_index_among_ties(seed):
    """Small integers tie often (and NaN ties with NaN): the index torch returns is the one its
    selection leaves at position k, not the first or last occurrence; compared over many
    random inputs, float, NaN-holding and integer."""
    rng = np.random.default_rng(seed)
    for trial in range(150):
        shape = tuple(int(n) for n in rng.integers(1, 9, int(rng.integers(1, 4))))
        x = rng.integers(0, int(rng.integers(2, 5)), shape)
        if trial % 3:
            x = x.astype(np.float32 if trial % 2 else np.float64)
            if trial % 3 == 1:
                x[rng.random(shape) < 0.2] = np.nan
        d = int(rng.integers(-len(shape), len(shape)))
        k = int(rng.integers(1, shape[d] + 1))
        for call in (lambda L, t: L.kthvalue(t, k, d), lambda L, t: t.median(d, keepdim=True)):
            e, t = call(ember, ember.tensor(x)), call(torch, torch.tensor(x))
            np.testing.assert_array_equal(e.indices.numpy(), t.indices.numpy())
            np.testing.assert_array_equal(e.values.numpy(), t.values.numpy())


def test_kthvalue_gradient_goes_to_torch_index_among_ties():
    x = np.array([[2.0, 0.0, 2.0, 2.0, 2.0], [0.0, 0.0, 1.0, 1.0, 0.0]])
    check(lambda L, t: L.kthvalue(t, 3, 1).values, x)
    check(lambda L, t: L.kthvalue(t, 1, -1).values, x)


@pytest.mark.parametrize("fn", [
    lambda L, x: L.median(x), lambda L, x: x[0, 0, 0].median(), lambda L, x: x[1, 2].median(0),
    lambda L, x: x[1, 2, 3].kthvalue(1), lambda L, x: L.cummax(x[0, 0, 1], 0).values])
def test_whole_and_scalar_selections_match_torch(fn):
    check(lambda L, x: fn(L, x)[0] if isinstance(fn(L, x), tuple) else fn(L, x), T3)


_NAN = float("nan")


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("values", [
    [1.0, 1.0, 2.0], [[1.0, 1.0], [2.0, 1.0]], [1.0, 1.0, 2.0, _NAN, 1.0],
    [_NAN, 1.0, 2.0, _NAN, 1.0], [_NAN, _NAN], 3.0])
def test_median_of_all_elements_shares_the_gradient_among_ties_as_torch(name, values):
    # torch's MedianBackward0 / NanmedianBackward0 spread the gradient evenly over the
    # elements equal to the result (ember gave it all to one of them)
    grads, names = [], []
    for lib in (ember, torch):
        x = lib.tensor(values, requires_grad=True)
        y = getattr(x, name)()
        y.backward()
        grads.append(x.grad.numpy())
        names.append(type(y.grad_fn).__name__)
    np.testing.assert_array_equal(grads[0], grads[1])
    assert names[0] == names[1]


@pytest.mark.parametrize("p", [0, 0.0, 1.0, float("inf")])
@pytest.mark.parametrize("fn", ["cdist", "pdist"])
def test_cdist_and_pdist_of_order_zero_and_inf_as_torch(fn, p):
    """(p=0 raised ZeroDivisionError; torch counts the nonzero gaps, with a zero gradient.
    p=inf shared the gradient between tied gaps; torch's cdist gives each all of it)"""
    outs = []
    for lib in (torch, ember):
        x = lib.tensor([[0.0, 1.0], [0.0, 3.0], [2.0, 1.0]], requires_grad=True)
        out = lib.cdist(x, x, p=p) if fn == "cdist" else lib.nn.functional.pdist(x, p=p)
        out.sum().backward()
        outs.append((out.tolist(), x.grad.tolist()))
    assert outs[1] == outs[0]


def test_cdist_refuses_negative_orders_as_torch():
    """(p=-inf was computed as the least gap)"""
    from oracle import same_error
    same_error(lambda L: L.cdist(L.ones(2, 2), L.ones(2, 2), p=-float("inf")))


def test_aminmax_refuses_complex_with_torchs_kernel_name():
    from oracle import same_error
    same_error(lambda L: L.aminmax(L.tensor([1 + 1j, 2 + 0j])))
@pytest.mark.parametrize("row", [
    [1.0, float("nan"), float("nan"), 2.0], [float("nan"), 1.0, 2.0],
    [float("nan"), float("nan"), 1.0, 1.0], [2.0, float("nan"), 2.0, 1.0, float("nan"), 1.0]])
def test_mode_with_nan_as_torch(row):
    # ember's np.unique counted NaNs apart and failed on them (IndexError)
    ours, theirs = ember.mode(ember.tensor(row)), torch.mode(torch.tensor(row))
    assert np.array_equal(ours.values.numpy(), theirs.values.numpy(), equal_nan=True)
    assert ours.indices.item() == theirs.indices.item()


@pytest.mark.parametrize("shape, dim", [((0,), 0), ((2, 0), 1), ((0, 2), 0), ((2, 0), -1)])
def test_mode_over_an_empty_dim_is_torchs_index_error(shape, dim):
    caught = []
    for lib in (torch, ember):
        with pytest.raises(IndexError) as info:
            lib.mode(lib.zeros(shape), dim)
        caught.append(str(info.value))
    assert caught[1] == caught[0]


@pytest.mark.parametrize("call", [
    lambda L: L.kthvalue(L.zeros(0), 1), lambda L: L.kthvalue(L.zeros(2, 0), 5, 1),
    lambda L: L.zeros(2, 0).median(1), lambda L: L.zeros(2, 0).nanmedian(-1),
    lambda L: L.amax(L.zeros(0)), lambda L: L.zeros(0).max(), lambda L: L.zeros(0).amin(())])
def test_reductions_over_empty_dims_raise_as_torch(call):
    # kthvalue raised a RuntimeError, median NumPy's IndexError text, max named itself "maxb"
    same_error(call)


@pytest.mark.parametrize("name", ["nansum", "nanmean"])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32"])
def test_nan_reductions_skip_nan_in_bfloat16(name, dtype):
    # bfloat16 (NumPy kind 'V') took the plain sum: NaN where torch skips it
    data = [[1., float("nan"), 3., -0.0, 0.0], [float("inf"), 2., float("nan"), 1., 2.]]
    out = []
    for L in (torch, ember):
        x = L.tensor(data).to(getattr(L, dtype))
        out.append([getattr(x, name)(1).float().tolist(), getattr(x, name)().float().item()])
    assert out[0] == out[1]


@pytest.mark.parametrize("name", ["std_mean", "var_mean"])
def test_std_var_mean_of_integers_name_themselves(name):
    same_error(lambda L: getattr(L, name)(L.tensor([1, 2])))


_MM = "use_mm_for_euclid_dist"


@pytest.mark.parametrize("shapes, mode", [
    (((30, 4), (5, 4)), "use_mm_for_euclid_dist_if_necessary"),   # > 25 rows: torch's mm route
    (((2, 30, 4), (1, 7, 4)), "use_mm_for_euclid_dist_if_necessary"),
    (((3, 4), (5, 4)), _MM), (((3, 4), (5, 4)), "donot_use_mm_for_euclid_dist")])
def test_cdist_takes_torchs_matrix_product_route(shapes, mode):
    """(every p=2 cdist built the (..., P, R, M) tensor of gaps: gigabytes for
    vector-quantize-pytorch's 1024 x 1024 codebook distances, and not torch's rounding)"""
    a, b = (R.standard_normal(s).astype(np.float32) for s in shapes)
    check(lambda L, a, b: L.cdist(a, b, compute_mode=mode), a, b, rtol=1e-5, atol=2e-6,
          same_grad_fn=False, second=False)
    check(lambda L, a, b: L.cdist(a, b, compute_mode=mode), a.astype(np.float64),
          b.astype(np.float64), same_grad_fn=False, second=False)


@pytest.mark.parametrize("mode", [None, "bad"])
def test_cdist_refuses_unknown_compute_modes_as_torch(mode):
    """(compute_mode was ignored)"""
    from oracle import same_error
    same_error(lambda L: L.cdist(L.ones(2, 2), L.ones(2, 2), compute_mode=mode))
