"""index_add, index_copy, index_fill, take, take_along_dim and t_ (ember/ops/index_ops.py) against torch: values,
gradients, second derivatives, grad_fn names, version counters and torch's errors."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember

RNG = np.random.default_rng(0)
X = RNG.standard_normal((4, 3, 5))
S1 = RNG.standard_normal((4, 6, 5))  # source for dim=1 (6 indices)


def _idx(lib, values):
    return lib.tensor(values)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("dim, index, alpha", [
    (1, [0, 2, 2, 1, 0, 2], 1), (-2, [2, 2, 2, 2, 2, 2], -0.5), (0, [3, 0, 3, 1], 2.0)])
def test_index_add_matches_torch(dtype, dim, index, alpha):
    source = S1 if dim != 0 else RNG.standard_normal((4, 3, 5))
    check(lambda L, x, s: L.index_add(x, dim, _idx(L, index), s, alpha=alpha),
          X.astype(dtype), source.astype(dtype))
    check(lambda L, x, s: x.index_add(dim, _idx(L, index), s, alpha=alpha),
          X.astype(dtype), source.astype(dtype))


def test_index_add_in_place_bumps_the_version():
    for lib in (torch, ember):
        x = lib.zeros(3, 2, dtype=lib.float64)
        s = lib.ones(4, 2, dtype=lib.float64, requires_grad=True)
        y = x.clone()
        out = y.index_add_(0, lib.tensor([0, 0, 2, 0]), s, alpha=3)
        assert out is y and y._version == 1
        assert type(y.grad_fn).__name__ == "IndexAddBackward0"
        y.sum().backward()
        np.testing.assert_array_equal(np.asarray(y.detach().tolist()),
                                      [[9, 9], [0, 0], [3, 3]])
        np.testing.assert_array_equal(np.asarray(s.grad.tolist()), np.full((4, 2), 3.0))




@pytest.mark.parametrize("call", [
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([3]), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([-1]), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([0]), L.ones(2, 4)),
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([0.0]), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([[0]]), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([0]), L.ones(1, 4, dtype=L.float64)),
    lambda L: L.zeros(3, 4).index_add(0, L.tensor([0, 1]), L.ones(2, 5)),
    lambda L: L.zeros(3, 4).index_add(2, L.tensor([0]), L.ones(1, 4)),
])
def test_index_add_errors_as_torch(call):
    same_error(call)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("index", [[0, 59, -1, -60, 7, 7], [[1, 2], [-3, 2]], 5])
def test_take_matches_torch(dtype, index):
    check(lambda L, x: L.take(x, _idx(L, index)), X.astype(dtype))
    check(lambda L, x: x.take(_idx(L, index)), X.astype(dtype))


@pytest.mark.parametrize("call", [
    lambda L: L.take(L.zeros(3, 4), L.tensor([12])),
    lambda L: L.take(L.zeros(3, 4), L.tensor([0, -13])),
    lambda L: L.take(L.zeros(3, 4), L.tensor([1.0])),
    lambda L: L.take(L.zeros(3, 4), L.tensor([1], dtype=L.int32)),
])
def test_take_errors_as_torch(call):
    same_error(call)


@pytest.mark.parametrize("dim, index", [
    (1, RNG.integers(0, 3, (4, 2, 5))), (-1, RNG.integers(0, 5, (1, 3, 7))),
    (0, RNG.integers(0, 4, (2, 1, 5))), (None, RNG.integers(0, 60, (9,))),
    (None, RNG.integers(0, 60, (2, 3)))])
def test_take_along_dim_matches_torch(dim, index):
    check(lambda L, x: L.take_along_dim(x, L.tensor(index), dim), X)
    check(lambda L, x: x.take_along_dim(L.tensor(index), dim=dim), X.astype(np.float32))


@pytest.mark.parametrize("call", [
    lambda L: L.take_along_dim(L.zeros(3, 4), L.tensor([0]), 0),
    lambda L: L.take_along_dim(L.zeros(3, 4), L.tensor([[[0]]]), 1),
    lambda L: L.take_along_dim(L.zeros(3, 4), L.tensor([[0.0]]), 1),
])
def test_take_along_dim_errors_as_torch(call):
    same_error(call)


@pytest.mark.parametrize("shape", [(3, 4), (5,), ()])
def test_t_in_place_matches_torch(shape):
    data = RNG.standard_normal(shape)
    seed = RNG.standard_normal(shape[::-1])
    results = []
    for lib in (torch, ember):
        x = lib.tensor(data, requires_grad=True)
        y = x * 2
        before = y._version
        assert y.t_() is y and y._version == before + 1
        assert tuple(y.shape) == shape[::-1]
        name = type(y.grad_fn).__name__
        (y * lib.tensor(seed)).sum().backward()
        results.append((name, y.detach().numpy().tolist(), x.grad.numpy().tolist()))
    assert results[1] == results[0]


def test_t_in_place_keeps_memory_and_other_views():
    x = ember.arange(6.0).reshape(2, 3)
    view = x.view(2, 3)
    x.t_()
    x[0, 1] = 100.0  # x's (0, 1) is the view's (1, 0): one memory
    assert view.tolist() == [[0.0, 1.0, 2.0], [100.0, 4.0, 5.0]]
    assert x.shape == (3, 2)


@pytest.mark.parametrize("shape, dims", [((2, 3, 4), (0, 2)), ((2, 3, 4), (-1, 1)),
                                         ((5,), (0, -1)), ((3, 2), (1, 1))])
def test_transpose_in_place_matches_torch(shape, dims):
    data = RNG.standard_normal(shape)
    results = []
    for lib in (torch, ember):
        x = lib.tensor(data, requires_grad=True)
        y = x * 2
        assert y.transpose_(*dims) is y and y._version == 1
        seed = lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)))
        (y * seed).sum().backward()
        results.append((type(y.grad_fn).__name__, tuple(y.shape), y.detach().numpy().tolist(),
                        x.grad.numpy().tolist()))
    assert results[1] == results[0]


def test_in_place_transpose_of_a_saved_output_fails_backward_as_torch():
    for lib in (torch, ember):
        y = lib.ones(2, 3, requires_grad=True).exp()
        y.transpose_(0, 1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


@pytest.mark.parametrize("call", [
    lambda L: L.zeros(2, 3).transpose_(0, 2),
    lambda L: L.zeros(2, 3, requires_grad=True).transpose_(0, 1),
    lambda L: L.zeros(2, 3, 4).t_(),
    lambda L: L.zeros(2, 3, requires_grad=True).t_(),
])
def test_t_in_place_errors_as_torch(call):
    same_error(call)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("args", [(0, 2, 1), (1, 2, 2), (-1, 5, 3), (2, 1, 1), (1, 3, 5)])
def test_tensor_unfold_matches_torch(dtype, args):
    check(lambda L, x: (x * 1).unfold(*args), X.astype(dtype))


def test_tensor_unfold_is_a_view():
    for lib in (torch, ember):
        x = lib.arange(6.0)
        windows = x.unfold(0, 3, 2)
        x[2] = 100.0  # shared by both windows
        assert windows.tolist() == [[0.0, 1.0, 100.0], [100.0, 3.0, 4.0]]


@pytest.mark.parametrize("call", [
    lambda L: L.zeros(2, 3).unfold(1, 4, 1),
    lambda L: L.zeros(2, 3).unfold(1, 2, 0),
    lambda L: L.zeros(2, 3).unfold(2, 1, 1),
])
def test_tensor_unfold_errors_as_torch(call):
    same_error(call)


# ------------------------------------------------------------------ index_copy, index_fill
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("dim, index, source_shape", [
    (1, [0, 2, 1], (4, 3, 5)), (-1, [4, 0], (4, 3, 2)), (0, [3], (1, 3, 5)),
    (-3, [2, 2, 0, 2], (4, 3, 5)),  # repeated: the last copy wins, as torch's CPU kernel
    (1, 1, (4, 1, 5)), (2, np.array([], np.int64), (4, 3, 0))])
def test_index_copy_matches_torch(dtype, dim, index, source_shape):
    source = RNG.standard_normal(source_shape).astype(dtype)
    check(lambda L, x, s: L.index_copy(x, dim, _idx(L, index), s), X.astype(dtype), source)
    check(lambda L, x, s: x.index_copy(dim, _idx(L, index), s), X.astype(dtype), source)


@pytest.mark.parametrize("shape, index, source", [((), [0], ()), ((3,), 1, ()), ((1,), 0, ())])
def test_index_copy_scalars_match_torch(shape, index, source):
    check(lambda L, x, s: x.index_copy(0, _idx(L, index), s), RNG.standard_normal(shape),
          RNG.standard_normal(source))


@pytest.mark.parametrize("value", [2.5, -1, "tensor"])
@pytest.mark.parametrize("dim, index", [
    (1, [0, 2, 2]), (-1, [-1, 0]), (0, 3), (2, np.array([], np.int64)), (-3, [1, -4, 1])])
def test_index_fill_matches_torch(value, dim, index):
    if value == "tensor":  # a 0-dim tensor value gets the gradient of the filled slices
        # (torch's backward fails on negative indices there: they are counted from the end)
        index = np.asarray(index) % X.shape[dim]
        check(lambda L, x, v: L.index_fill(x, dim, _idx(L, index), v), X, np.array(0.75))
        check(lambda L, x, v: x.index_fill(dim, _idx(L, index), v), X.astype(np.float32),
              np.array(0.75, np.float32))
        return
    check(lambda L, x: L.index_fill(x, dim, _idx(L, index), value), X)
    check(lambda L, x: x.index_fill(dim, _idx(L, index), value), X.astype(np.float32))


def test_index_fill_value_gradient_counts_each_slice_once():
    grads = []
    for lib in (torch, ember):
        v = lib.tensor(2.0, requires_grad=True)
        out = lib.zeros(3, 4).index_fill(1, lib.tensor([1, 1, 3]), v)
        assert type(out.grad_fn).__name__ == "IndexFillBackward1"
        out.sum().backward()
        grads.append(v.grad.item())
    assert grads[1] == grads[0] == 6.0


@pytest.mark.parametrize("op", ["index_copy_", "index_fill_"])
def test_index_copy_fill_in_place_match_torch(op):
    data, seed = RNG.standard_normal((3, 4)), RNG.standard_normal((3, 4))
    results = []
    for lib in (torch, ember):
        x = lib.tensor(data, requires_grad=True)
        y = x * 2
        arg = lib.ones(3, 2, dtype=lib.float64) if op == "index_copy_" else -3.0
        assert getattr(y, op)(1, lib.tensor([3, 0]), arg) is y and y._version == 1
        name = type(y.grad_fn).__name__
        (y * lib.tensor(seed)).sum().backward()
        results.append((name, y.detach().numpy().tolist(), x.grad.numpy().tolist()))
    assert results[1] == results[0]


def test_index_copy_out_and_integer_fill():
    out = ember.empty(3, 5, dtype=ember.float64)
    res = ember.index_copy(ember.tensor(X[0]), 0, ember.tensor([2]),
                           ember.ones(1, 5, dtype=ember.float64), out=out)
    expected = torch.index_copy(torch.tensor(X[0]), 0, torch.tensor([2]),
                                torch.ones(1, 5, dtype=torch.float64))
    assert res is out
    np.testing.assert_array_equal(out.numpy(), expected.numpy())
    for value in (2.7, ember.tensor(2.7)):
        filled = ember.zeros(2, 3, dtype=ember.int64).index_fill(1, ember.tensor([1]), value)
        t_value = value if isinstance(value, float) else torch.tensor(2.7)
        assert filled.tolist() == torch.zeros(2, 3, dtype=torch.int64).index_fill(
            1, torch.tensor([1]), t_value).tolist()


@pytest.mark.parametrize("call", [
    lambda L: L.zeros(3, 4).index_copy(0, L.tensor([0.0]), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_copy(0, L.tensor([0], dtype=L.int32), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_copy(0, L.tensor([[0]]), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_copy(0, L.tensor([3]), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_copy(0, L.tensor([-1]), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_copy(0, L.tensor([0]), L.ones(2, 4)),
    lambda L: L.zeros(3, 4).index_copy(0, L.tensor([0]), L.ones(1, 5)),
    lambda L: L.zeros(2, 3, 4).index_copy(1, L.tensor([0]), L.ones(3, 1, 5)),
    lambda L: L.zeros(3, 4).index_copy(0, L.tensor([0]), L.ones(1, 4, dtype=L.float64)),
    lambda L: L.zeros(3, 4).index_copy(2, L.tensor([0]), L.ones(1, 4)),
    lambda L: L.zeros(3, 4).index_copy(0, L.tensor(0), L.ones(4)),
    lambda L: L.zeros(()).index_copy(0, L.tensor([1]), L.ones(())),
    lambda L: L.zeros(3, 4).index_fill(0, L.tensor([0.0]), 1),
    lambda L: L.zeros(3, 4).index_fill(0, L.tensor([0], dtype=L.int32), 1),
    lambda L: L.zeros(3, 4).index_fill(0, L.tensor([[0]]), 1),
    lambda L: L.zeros(3, 4).index_fill(0, L.tensor([3]), 1),
    lambda L: L.zeros(3, 4).index_fill(0, L.tensor([-4]), 1),
    lambda L: L.zeros(3, 4).index_fill(2, L.tensor([0]), 1),
    lambda L: L.zeros(3, 4).index_fill(0, L.tensor([0]), L.ones(2)),
    lambda L: L.zeros(3, dtype=L.int64).index_fill(0, L.tensor([1]), 1e30),
    lambda L: L.zeros(2, 3, requires_grad=True).index_fill_(0, L.tensor([1]), 1),
    lambda L: L.zeros(2, 3, requires_grad=True).index_copy_(0, L.tensor([1]), L.ones(1, 3)),
])
def test_index_copy_fill_errors_as_torch(call):
    same_error(call)


def test_index_copy_fill_errors_leave_the_tensor_unchanged():
    x = ember.arange(6.0).reshape(2, 3)
    for call in (lambda: x.index_copy_(0, ember.tensor([5]), ember.ones(1, 3)),
                 lambda: x.index_fill_(1, ember.tensor([0, 7]), 9.0)):
        with pytest.raises(IndexError):
            call()
        assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and x._version == 0


def test_take_along_dim_with_shapes_that_do_not_broadcast_raises_as_torch():
    """(NumPy's broadcast ValueError leaked)"""
    same_error(lambda L: L.take_along_dim(L.ones(2, 3), L.zeros(0, 1, dtype=L.long), 1))
