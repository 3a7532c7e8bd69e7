"""The two namespaces backward formulas are written over (ember/autograd/_math.py): array_math on
ndarrays and tensor_math on tensors give the same results for each shared operation (so one
formula serves backward and create_graph), torch's sign (0 at NaN), broadcast gradients summed
back to the input's shape, and gathers/scatters that read and write as torch's."""
import numpy as np
import pytest
import torch

import ember
from ember.autograd._math import array_math as am
from ember.autograd._math import sign
from ember.autograd._math import tensor_math as tm

R = np.random.default_rng(0)
X = R.standard_normal((2, 3, 4))
IDX = np.array([[0, 2], [1, 1]])


def _both(fn, *arrays):
    a = fn(am, *arrays)
    t = fn(tm, *[ember.tensor(x) for x in arrays])
    np.testing.assert_allclose(t._data, a, rtol=1e-12)
    return a


@pytest.mark.parametrize("fn", [
    lambda m, x: m.sum(x, (0, 2), keepdim=True), lambda m, x: m.expand(x[:1], (3, 3, 4)),
    lambda m, x: m.mT(x), lambda m, x: m.one_minus(x), lambda m, x: m.exp(x) * m.tanh(x),
    lambda m, x: m.conform(x, (1, 3, 4), x.dtype), lambda m, x: m.conform(x[0], (2, 3, 4), x.dtype),
    lambda m, x: m.gather(x[0], 1, np.array([[0, 3], [2, 2]])),
    lambda m, x: m.index(x, (slice(None), 1)), lambda m, x: m.where(x > 0, x, m.zeros_like(x)),
    lambda m, x: m.maximum(x, 0.1 * x), lambda m, x: m.matmul(x, m.mT(x)),
])
def test_array_and_tensor_math_agree(fn):
    _both(fn, X)


def test_conform_sums_broadcast_gradients_to_the_input_shape():
    got = am.conform(X, (3, 1), np.float32)
    np.testing.assert_allclose(got, X.sum(axis=(0, 2), keepdims=True)[0], rtol=1e-6)
    assert got.dtype == np.float32


def test_sign_is_torchs():
    x = np.array([-2.0, -0.0, 0.0, 3.0, np.nan, np.inf])
    np.testing.assert_array_equal(sign(x), torch.tensor(x).sign().numpy())
    b = np.array([True, False])
    assert sign(b).dtype == np.bool_ and sign(b).tolist() == [True, False]


def test_gather_reads_only_the_index_extent_as_torch():
    x = R.standard_normal((3, 4))
    got = am.gather(x, 1, IDX)
    np.testing.assert_array_equal(got, torch.tensor(x).gather(1, torch.tensor(IDX)).numpy())


def test_index_into_zeros_places_or_sums():
    g = np.array([1.0, 2.0, 3.0])
    index = (np.array([0, 2, 0]),)
    np.testing.assert_array_equal(am.index_into_zeros(g, (3,), index, True), [4.0, 0.0, 2.0])
    t = tm.index_into_zeros(ember.tensor(g), (3,), index, True)
    np.testing.assert_array_equal(t._data, [4.0, 0.0, 2.0])


def test_scatter_add_zeros_is_torchs_scatter_add():
    g = R.standard_normal((2, 2))
    expected = torch.zeros(2, 3, dtype=torch.float64).scatter_add(
        1, torch.tensor(IDX), torch.tensor(g)).numpy()
    np.testing.assert_allclose(am.scatter_add_zeros(g, (2, 3), 1, IDX), expected)
    np.testing.assert_allclose(tm.scatter_add_zeros(ember.tensor(g), (2, 3), 1, IDX)._data,
                               expected)


def test_tensor_math_records_a_graph():
    x = ember.tensor(X, requires_grad=True)
    y = tm.sum(tm.exp(x), None)
    assert tm.is_graph and not am.is_graph and y.requires_grad


_SPECIALS = [1.0, -1.0, 0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-40, 3.0]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shapes", [((4, 10), (4, 10), (4, 10)), ((4, 1), (4, 10), (1, 10)),
                                    ((4, 10), (1, 10), ()), ((4, 10), (), (4, 10)),
                                    ((), (4, 10), (4, 10))])
def test_branch_free_where_and_keep_give_np_wheres_bits(dtype, shapes):
    # array_math.where / keep select by bit arithmetic on float arrays: the same bits as
    # np.where (NaN payloads, -0.0, infinities), the same shape and dtype, broadcasting included
    rng = np.random.default_rng(0)
    mask_shape, x_shape, y_shape = shapes
    mask = rng.random(mask_shape) > 0.5
    x = rng.choice(np.array(_SPECIALS, dtype), x_shape)
    y = rng.choice(np.array(_SPECIALS, dtype), y_shape)
    for got, expected in ((am.where(mask, x, y), np.where(mask, x, y)),
                          (am.keep(mask, x), np.where(mask, x, np.zeros((), dtype)))):
        assert got.shape == expected.shape and got.dtype == expected.dtype
        assert np.asarray(got).tobytes() == np.asarray(expected).tobytes()
    out = np.full(np.broadcast_shapes(mask_shape, x_shape), 7, dtype)
    am.keep(mask, x, out=out)  # (into a strided view in max-pool's backward)
    assert out.tobytes() == np.where(mask, x, np.zeros((), dtype)).tobytes()
