"""Reductions (ember/ops/reduction.py): dim as int/tuple, keepdim, correction; grads vs torch."""
import numpy as np
import pytest
import torch
from oracle import check, close, gradient_bits, wide_inputs

import ember

DTYPES = [np.float64, np.float32]


def tol(dtype):
    return dict(rtol=1e-5, atol=1e-6) if dtype == np.float64 else dict(rtol=1e-4, atol=1e-5)


def data(shape, dtype, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


DIMS = [None, 0, -1, (0, 2), (1,)]
REDUCE = {
    "sum": lambda L, x, d, k: x.sum() if d is None else x.sum(d, keepdim=k),
    "mean": lambda L, x, d, k: x.mean() if d is None else L.mean(x, dim=d, keepdim=k),
    "amax": lambda L, x, d, k: x.amax() if d is None else x.amax(d, keepdim=k),
    "amin": lambda L, x, d, k: L.amin(x) if d is None else L.amin(x, d, keepdim=k),
    "var": lambda L, x, d, k: x.var() if d is None else x.var(d, keepdim=k),
    "std": lambda L, x, d, k: x.std() if d is None else x.std(d, keepdim=k),
    "var_c0": lambda L, x, d, k: x.var(d, keepdim=k, correction=0),
    "std_c2": lambda L, x, d, k: L.std(x, d, keepdim=k, correction=2),
    "logsumexp": lambda L, x, d, k: x.logsumexp(d if d is not None else (0, 1, 2), keepdim=k),
    "norm": lambda L, x, d, k: x.norm() if d is None else x.norm(dim=d, keepdim=k),
    "norm1": lambda L, x, d, k: x.norm(p=1, dim=d, keepdim=k),
    "norm3": lambda L, x, d, k: x.norm(p=3, dim=d, keepdim=k),
    "norm_inf": lambda L, x, d, k: x.norm(p=float("inf"), dim=d, keepdim=k),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", DIMS, ids=str)
@pytest.mark.parametrize("name", sorted(REDUCE))
def test_reductions(name, dim, keepdim, dtype):
    fn = REDUCE[name]
    check(lambda L, x: fn(L, x, dim, keepdim), data((2, 3, 4), dtype), **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim", [None, 0, 1, -1])
def test_prod(dtype, dim):
    x = data((3, 4), dtype) + 2.0
    check(lambda L, t: t.prod() if dim is None else t.prod(dim), x, **tol(dtype))
    x[1, 2] = 0.0  # a zero: the gradient comes from the other factors only
    check(lambda L, t: t.prod() if dim is None else t.prod(dim, keepdim=True), x, **tol(dtype))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["max", "min"])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_max_min_with_dim_return_values_and_indices(name, dim, dtype):
    x = data((3, 4), dtype)
    check(lambda L, t: getattr(t, name)(dim)[0], x, **tol(dtype))
    check(lambda L, t: getattr(L, name)(t, dim=dim, keepdim=True).values, x, **tol(dtype))
    e = getattr(ember.tensor(x), name)(dim)
    t = getattr(torch.tensor(x), name)(dim)
    close(e.indices, t.indices)
    close(e[1], t[1])


@pytest.mark.parametrize("name", ["max", "min", "amax", "amin"])
def test_full_max_min_ties_share_gradient(name):
    x = np.array([[1.0, 3.0, 3.0], [0.0, 3.0, -1.0]])
    check(lambda L, t: getattr(t, name)(), x)


def test_max_of_two_tensors():
    check(lambda L, a, b: L.max(a, b), data((3,), np.float64), data((3,), np.float64, 1))


@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_argmax_argmin(name):
    x = data((3, 4, 5), np.float32)
    for kwargs in ({}, {"dim": 1}, {"dim": -1, "keepdim": True}):
        close(getattr(ember.tensor(x), name)(**kwargs), getattr(torch.tensor(x), name)(**kwargs))


def test_sum_dtype_rules_and_dtype_argument():
    for values, dt in (([1, 2], "int32"), ([True, True], "bool"), ([1, 2], "uint8")):
        close(ember.tensor(values, dtype=getattr(ember, dt)).sum(),
              torch.tensor(values, dtype=getattr(torch, dt)).sum())
    close(ember.tensor([1, 2]).sum(dtype=ember.float64), torch.tensor([1, 2]).sum(dtype=torch.float64))
    close(ember.ones(2, 3).sum(dim=()), torch.ones(2, 3).sum(dim=()))


def test_mean_of_integer_tensor_error():
    msgs = []
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as err:
            lib.tensor([1, 2]).mean()
        msgs.append(str(err.value).replace("torch.", "ember."))
    assert msgs[0] == msgs[1]


def test_dim_out_of_range_error():
    msgs = []
    for lib in (torch, ember):
        with pytest.raises(IndexError) as err:
            lib.zeros(2, 3).sum(2)
        msgs.append(str(err.value))
    assert msgs[0] == msgs[1]


def test_all_any_count_nonzero():
    x = np.array([[0.0, 1.0], [2.0, 0.0]])
    for fn in (lambda L, t: t.all(), lambda L, t: t.any(), lambda L, t: L.any(t, 0),
               lambda L, t: t.all(dim=1), lambda L, t: L.count_nonzero(t),
               lambda L, t: L.count_nonzero(t, dim=0)):
        close(fn(ember, ember.tensor(x)), fn(torch, torch.tensor(x)))


def test_std_of_single_element_is_nan_like_torch():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda L, t: t.std(), np.array([1.5]), grad=False)


@pytest.mark.parametrize("shape,dim", [((0, 3), -1), ((0, 3), 0), ((0, 3), None), ((1,), None),
                                       ((2, 3), 1)])
@pytest.mark.parametrize("op", ["std", "var"])
def test_degrees_of_freedom_warning_as_torch(op, shape, dim):
    # torch warns whenever correction >= input numel / output numel, an empty input included
    import warnings
    seen = []
    for lib in (ember, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            x = lib.zeros(shape)
            getattr(x, op)(*(() if dim is None else (dim,)))
        seen.append([str(w.message).split(" (Triggered internally")[0] for w in caught])
    assert seen[0] == seen[1]


def test_unbiased_positional_flag():
    check(lambda L, t: t.var(False), data((5,), np.float64))
    check(lambda L, t: t.std(0, True, True), data((3, 2), np.float64))


@pytest.mark.parametrize("call", [
    lambda L, x: x.std(), lambda L, x: x.std(1), lambda L, x: x.std(1, keepdim=True),
    lambda L, x: x.std(0, correction=0), lambda L, x: L.std_mean(x, 1)[0]])
def test_std_gradient_is_zero_where_the_std_is_zero_as_torch(call):
    # torch masks (g / 2 std) to 0 where std == 0; ember returned NaN (0/0)
    grads = []
    for lib in (ember, torch):
        x = lib.tensor([[1.0, 1.0], [1.0, 2.0]], requires_grad=True)
        call(lib, x).sum().backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)
    assert not np.isnan(grads[0]).any()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_prod_gradient_is_g_times_result_over_input_bit_for_bit(dtype):
    """torch: grad * (result / input) without zeros (the product itself, a reduction in its own
    order, is taken from the rows where both agree)."""
    x, g = wide_inputs(dtype) * 0.01 + 1, wide_inputs(dtype, seed=1)

    def fn(lib, t):
        return t.reshape(1000, 100).prod(1)

    def rows(lib, t):
        return fn(lib, t).repeat_interleave(100)
    for create_graph in (False, True):
        ours, theirs = gradient_bits(fn, x, g, rows, create_graph, least=0.05)
        assert ours.size > 1000
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["var", "std"])
def test_var_and_std_gradients_in_torchs_order_bit_for_bit(op, dtype):
    """torch: (2 / (N - correction)) * g * (x - mean), std's g first divided by (2 std) (compared
    where the rows' means and results agree: the sums themselves add in their own orders)."""
    x, g = wide_inputs(dtype) * 0.01, wide_inputs(dtype, seed=1)

    def fn(lib, t):
        return getattr(t.reshape(2000, 50), op)(1)

    def rows(lib, t):
        rows = t.reshape(2000, 50)
        return tuple(v.unsqueeze(1).expand(2000, 50).reshape(-1)
                     for v in (rows.mean(1), getattr(rows, op)(1)))
    for create_graph in (False, True):
        ours, theirs = gradient_bits(fn, x, g, rows, create_graph, least=0.1)
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_two_norm_gradient_is_g_times_x_over_norm_bit_for_bit(dtype):
    """torch: grad * (x / norm), 0 where the norm is 0 (compared on the rows whose norms agree:
    the sums of squares add in their own orders)."""
    x, g = wide_inputs(dtype) * 0.01, wide_inputs(dtype, seed=1)
    x[:300] = 0

    def fn(lib, t):
        return t.reshape(1000, 100).norm(dim=1)

    def rows(lib, t):
        return fn(lib, t).repeat_interleave(100)
    for create_graph in (False, True):
        ours, theirs = gradient_bits(fn, x, g, rows, create_graph, least=0.3)
        np.testing.assert_array_equal(ours, theirs)


# ---------------------------------------------------------------- integer dtypes asked for (fuzz finds)
@pytest.mark.parametrize("op", ["sum", "prod", "cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint8"])
def test_integer_dtype_argument_is_the_result_dtype(op, dtype):
    # torch sums/multiplies/scans in the dtype asked for (wrapping); NumPy widened small ints
    # to int64, so ember returned int64 with unwrapped values
    values = [100, 100, 100, -7]
    out = []
    for L in (torch, ember):
        x = L.tensor(values, dtype=L.int8)
        dt = getattr(L, dtype)
        r = getattr(x, op)(0, dtype=dt) if op.startswith("cum") else getattr(x, op)(dtype=dt)
        out.append((str(r.dtype).split(".")[-1], r.tolist()))
    assert out[0] == out[1]


@pytest.mark.parametrize("name", ["any", "all"])
@pytest.mark.parametrize("dim", [None, 0, 1])
def test_any_all_of_uint8_stay_uint8(name, dim):
    data = [[1, 0, 3], [0, 0, 2]]
    out = []
    for L in (torch, ember):
        x = L.tensor(data, dtype=L.uint8)
        r = getattr(x, name)() if dim is None else getattr(L, name)(x, dim=dim)
        out.append((str(r.dtype).split(".")[-1], r.tolist()))
    assert out[0] == out[1]
    assert ember.tensor(data).any().dtype == ember.bool  # other dtypes: bool, as torch


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("op", ["var", "std"])
def test_var_and_std_of_float32_and_narrower_accumulate_in_double_as_torch(op, dtype):
    """torch accumulates in double and rounds once (std's root taken in double too): a policy
    gradient's normalized returns divide by a std that NumPy's float32 var put an ulp off."""
    returns = torch.tensor([sum(0.99 ** k for k in range(n)) for n in range(20, 0, -1)])
    x = torch.cat([returns, torch.randn(7 * 33, generator=torch.Generator().manual_seed(0))
                   .mul(3).add(5)]).to(getattr(torch, dtype))
    y = ember.tensor(x.float().numpy()).to(getattr(ember, dtype))
    for part in (slice(0, 20), slice(20, None)):
        for kwargs in ({}, {"correction": 0}):
            theirs = getattr(x[part], op)(**kwargs).double().numpy()
            assert getattr(y[part], op)(**kwargs).double().numpy() == theirs
    rows = (x[20:].reshape(7, 33), y[20:].reshape(7, 33))
    for dim in (0, 1):
        theirs = getattr(rows[0], op)(dim).double().numpy()
        np.testing.assert_array_equal(getattr(rows[1], op)(dim).double().numpy(), theirs)
