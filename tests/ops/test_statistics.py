"""quantile / nanquantile / nanmedian, cov / corrcoef, trapezoid / cumulative_trapezoid and
unique_consecutive against torch: values, gradients, NaN handling and errors."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember

R = np.random.default_rng(4)


def _x(*shape):
    return R.standard_normal(shape)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("q,dim,keepdim", [(0.3, None, False), (0.5, 1, True),
                                           ([0.1, 0.5, 1.0], 0, False),
                                           ([0.25, 0.75], -1, True), ([0.2], None, True)])
def test_quantile(interpolation, q, dim, keepdim):
    def fn(m, x):
        qq = m.tensor(q, dtype=m.float64) if isinstance(q, list) else q
        return m.quantile(x, qq, dim, keepdim, interpolation=interpolation)
    check(fn, _x(4, 5), second=False, same_grad_fn=False)


def test_quantile_nan_and_nanquantile():
    x = _x(3, 6)
    x[0, 2] = np.nan
    x[2, :] = np.nan
    for q in (0.4, [0.0, 0.5, 1.0]):
        out = {}
        for lib in (ember, torch):
            t = lib.tensor(x)
            qq = lib.tensor(q, dtype=lib.float64) if isinstance(q, list) else q
            out[lib.__name__] = (lib.quantile(t, qq, 1).numpy(),
                                 lib.nanquantile(t, qq, 1).numpy(),
                                 lib.nanquantile(t, qq).numpy())
        for a, b in zip(out["ember"], out["torch"]):
            np.testing.assert_allclose(a, b, rtol=1e-12, equal_nan=True)


def test_nanmedian():
    x = _x(4, 7)
    x[1, [0, 3]] = np.nan
    x[3, :] = np.nan
    check(lambda m, x: m.nanmedian(x[:3]), x, second=False, same_grad_fn=False)
    check(lambda m, x: m.nanmedian(x[:3], 1)[0], x, second=False, same_grad_fn=False)
    e, t = ember.nanmedian(ember.tensor(x), 1, True), torch.nanmedian(torch.tensor(x), 1, True)
    np.testing.assert_array_equal(e.values.numpy(), t.values.numpy())
    np.testing.assert_array_equal(e.indices.numpy()[:3], t.indices.numpy()[:3])


@pytest.mark.parametrize("correction", [0, 1, 2])
def test_cov_and_corrcoef(correction):
    check(lambda m, x: m.cov(x, correction=correction), _x(3, 6), second=False,
          same_grad_fn=False)
    check(lambda m, x: m.cov(x[0]), _x(3, 6), second=False, same_grad_fn=False)
    check(lambda m, x: m.corrcoef(x), _x(3, 6), second=False, same_grad_fn=False)


def test_cov_weights():
    fw = np.array([1, 2, 1, 3, 1, 1])
    aw = R.random(6)
    check(lambda m, x, f, a: m.cov(x, fweights=f, aweights=a), _x(3, 6), fw, aw,
          grad_inputs=[True, False, True], second=False, same_grad_fn=False)
    check(lambda m, x, a: m.cov(x, correction=0, aweights=a), _x(2, 6), aw, second=False,
          same_grad_fn=False)


def test_trapezoid_family():
    y, xs = _x(3, 5), np.sort(_x(5))
    check(lambda m, y: m.trapezoid(y), y, second=False, same_grad_fn=False)
    check(lambda m, y: m.trapezoid(y, dx=0.5, dim=0), y, second=False, same_grad_fn=False)
    check(lambda m, y, x: m.trapezoid(y, x), y, xs, second=False, same_grad_fn=False)
    check(lambda m, y, x: m.trapz(y, x), y, xs, second=False, same_grad_fn=False)
    check(lambda m, y: m.cumulative_trapezoid(y), y, second=False, same_grad_fn=False)
    check(lambda m, y, x: m.cumulative_trapezoid(y, x), y, xs, second=False,
          same_grad_fn=False)


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_unique_consecutive(dim):
    data = np.array([[1, 1, 2], [1, 1, 2], [3, 1, 1], [3, 1, 1], [1, 1, 2]])
    e = ember.unique_consecutive(ember.tensor(data), True, True, dim)
    t = torch.unique_consecutive(torch.tensor(data), True, True, dim)
    for a, b in zip(e, t):
        assert a.tolist() == b.tolist()
    assert ember.tensor(data).unique_consecutive().tolist() == \
        torch.tensor(data).unique_consecutive().tolist()


@pytest.mark.parametrize("call", [
    lambda m: m.quantile(m.ones(3), 1.5),
    lambda m: m.quantile(m.ones(3, dtype=m.int64), 0.5),
    lambda m: m.quantile(m.ones(3), 0.5, interpolation="cubic"),
    lambda m: m.cov(m.ones(2, 2, 2)),
])
def test_errors(call):
    same_error(call)


@pytest.mark.parametrize("call", [
    lambda L: L.quantile(L.zeros(0, 3), 0.3), lambda L: L.nanquantile(L.zeros(0), 0.5),
    lambda L: L.nanmedian(L.tensor([True, False])), lambda L: L.cov(L.tensor([[True, False]])),
    lambda L: L.trapezoid(L.tensor([True, False])),
    lambda L: L.cumulative_trapezoid(L.tensor([True, False]))])
def test_edge_input_errors_as_torch(call):
    same_error(call)


def test_nanmedian_of_an_empty_tensor_is_nan():
    check(lambda L, x: L.nanmedian(x), np.zeros(0, np.float32), grad=False)


def test_cov_of_integers_is_the_default_float_and_warns_without_degrees_of_freedom():
    check(lambda L, x: L.cov(x), np.array([[1, 2, 3], [2, 2, 5]]), grad=False)
    check(lambda L, x: L.corrcoef(x), np.array([[1, 2, 3], [2, 2, 7]]), grad=False)
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match=r"cov\(\): degrees of freedom is <= 0"):
            lib.cov(lib.tensor([1.0, 2.0]), correction=2)


@pytest.mark.parametrize("keepdim", [False, True])
@pytest.mark.parametrize("dim", [0, -1, 1])
def test_nanmedian_of_a_0d_tensor_along_a_dim_as_torch(dim, keepdim):
    """(dims 0 and -1 leaked NumPy's AxisError)"""
    if dim == 1:
        same_error(lambda L: L.nanmedian(L.tensor(3.0), dim, keepdim))
        return
    results = []
    for lib in (torch, ember):
        x = lib.tensor(3.0, requires_grad=True)
        values, indices = lib.nanmedian(x, dim, keepdim)
        values.backward()
        results.append((values.tolist(), tuple(values.shape), indices.tolist(), x.grad.tolist()))
    assert results[1] == results[0]


@pytest.mark.parametrize("dim", [None, 0])
def test_unique_consecutive_refuses_complex_as_torch(dim):
    same_error(lambda L: L.unique_consecutive(L.tensor([1 + 1j, 2 + 0j]), dim=dim))


def test_empty_cumulative_trapezoid_and_legacy_cholesky_as_torch():
    """torch integrates an empty dim to an empty result (ember raised the slice's IndexError)
    and its deprecated torch.cholesky returns an empty 1-d input as it is."""
    import warnings
    for call in (lambda L: L.cumulative_trapezoid(L.zeros(0)),
                 lambda L: L.cumulative_trapezoid(L.zeros(0, dtype=L.int64)),
                 lambda L: L.cumulative_trapezoid(L.zeros(3, 0), dx=2.0),
                 lambda L: L.cholesky(L.zeros(0))):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e, t = call(ember), call(torch)
        assert tuple(e.shape) == tuple(t.shape) and str(e.dtype)[6:] == str(t.dtype)[6:]


def test_cov_and_corrcoef_of_one_variable_are_0d():
    for make in (lambda L: L.cov(L.arange(5.).reshape(1, 5)), lambda L: L.corrcoef(L.arange(5.)[None]),
                 lambda L: L.cov(L.arange(5.)), lambda L: L.cov(L.arange(10.).reshape(2, 5))):
        t, e = make(torch), make(ember)
        assert tuple(e.shape) == tuple(t.shape)
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_quantile_refuses_half_precision(name, dtype):
    same_error(lambda L: getattr(L, name)(L.ones(3).to(getattr(L, dtype)), 0.5))


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("interpolation", ["lower", "higher", "nearest", "linear", "midpoint"])
@pytest.mark.parametrize("q", [0.0, 0.3, 1.0])
def test_quantile_of_infinite_order_statistics_as_torch(name, interpolation, q):
    """lower/higher/nearest read an order statistic (ember's lerp with weight 0 made -inf NaN)"""
    data = [[1.0, float("nan"), 3.0, 2.0], [float("-inf"), 2.0, float("inf"), 2.0]]

    def call(L):
        return getattr(L, name)(L.tensor(data), q, dim=1, interpolation=interpolation)
    assert str(call(ember).tolist()) == str(call(torch).tolist())
