"""tile, movedim, broadcast_*, atleast_*d, the stack/split families, tensordot/inner/vdot/
chain_matmul, trace, diag_embed/diagflat, the *_scatter functions, index_put/put, isin, msort,
argwhere, unravel_index, dist, renorm: values, gradients and errors against torch."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember

R = np.random.default_rng(3)


def _x(*shape):
    return R.standard_normal(shape)


X = _x(2, 3, 4)


@pytest.mark.parametrize("fn", [
    lambda m, x: m.tile(x, (2,)),
    lambda m, x: x.tile(2, 1, 1, 2),
    lambda m, x: m.movedim(x, 0, -1),
    lambda m, x: x.movedim((0, 2), (2, 0)),
    lambda m, x: m.moveaxis(x, [1], [0]),
    lambda m, x: m.broadcast_tensors(x, x[0, :, :1])[1] * 2,
    lambda m, x: m.atleast_3d(x[0]) * 1,
    lambda m, x: m.stack(m.atleast_2d(x[0, 0], x[0])[0:1]) * 1,
    lambda m, x: m.atleast_1d(x.sum()) * 1,
    lambda m, x: m.column_stack([x[0, 0], x[1].t()]),
    lambda m, x: m.row_stack([x[0, 0], x[1]]),
    lambda m, x: m.dstack([x[0], x[1]]),
    lambda m, x: m.hsplit(x, 3)[1] * 1,
    lambda m, x: m.vsplit(x, [1])[1] * 1,
    lambda m, x: m.dsplit(x, 2)[0] * 1,
    lambda m, x: m.tensordot(x, x[0], dims=([1, 2], [0, 1])),
    lambda m, x: m.tensordot(x, x.transpose(0, 2), dims=1),
    lambda m, x: m.inner(x, x[0]),
    lambda m, x: m.vdot(x[0, 0], x[1, 0]),
    lambda m, x: m.chain_matmul(x[0], x[1].t(), x[0]),
    lambda m, x: m.trace(x[0]),
    lambda m, x: m.diag_embed(x),
    lambda m, x: m.diag_embed(x[0], offset=-1, dim1=0, dim2=2),
    lambda m, x: m.diagflat(x[0], 1),
    lambda m, x: m.select_scatter(x, x[:, 0] * 3, 1, 0),
    lambda m, x: m.slice_scatter(x, x[..., ::2] * 3, 2, 0, None, 2),
    lambda m, x: m.diagonal_scatter(x[0], x[1, 0, :3] * 2, 1),
    lambda m, x: m.msort(x),
    lambda m, x: m.dist(x, x[0], 3),
    lambda m, x: m.renorm(x, 2, 1, 2.0),
    lambda m, x: x.renorm(1, 0, 5.0),
])
def test_values_and_gradients(fn):
    check(fn, X, second=False, same_grad_fn=False)


@pytest.mark.parametrize("accumulate", [False, True])
def test_index_put(accumulate):
    idx = np.array([0, 2, 0])
    check(lambda m, x, v, i: m.index_put(x, (i,), v, accumulate), _x(3, 4), _x(3, 4),
          idx, second=False, same_grad_fn=False)
    check(lambda m, x, v, i: x.index_put((i, i), v, accumulate), _x(3, 4), _x(3), idx,
          second=False, same_grad_fn=False)


def test_index_put_in_place_and_put():
    out = {}
    for lib in (ember, torch):
        x = lib.zeros(3, 4)
        r = x.index_put_((lib.tensor([1, 1]), lib.tensor([0, 0])), lib.tensor([2.0, 3.0]),
                         accumulate=True)
        assert r is x
        y = lib.arange(6.0).reshape(2, 3)
        y.put_(lib.tensor([0, -1, 0]), lib.tensor([9.0, 8.0, 7.0]), accumulate=True)
        out[lib.__name__] = (x.numpy(), y.numpy(),
                             lib.arange(4.0).put(lib.tensor([1]), lib.tensor([5.0])).numpy())
    for a, b in zip(out["ember"], out["torch"]):
        np.testing.assert_array_equal(a, b)


def test_broadcast_shapes_isin_argwhere_unravel():
    assert tuple(ember.broadcast_shapes((2, 1), (3,), 1)) == tuple(
        torch.broadcast_shapes((2, 1), (3,), 1))
    e, t = ember.tensor([[1, 5], [3, 0]]), torch.tensor([[1, 5], [3, 0]])
    assert ember.isin(e, ember.tensor([0, 5])).tolist() == torch.isin(
        t, torch.tensor([0, 5])).tolist()
    assert ember.isin(e, [3], invert=True).tolist() == torch.isin(
        t, torch.tensor([3]), invert=True).tolist()
    assert ember.argwhere(e).tolist() == torch.argwhere(t).tolist()
    assert [c.tolist() for c in ember.unravel_index(ember.tensor([5, -1, 0, 7, -8]), (2, 3))] == \
        [c.tolist() for c in torch.unravel_index(torch.tensor([5, -1, 0, 7, -8]), (2, 3))]


def test_views_where_torch_gives_views():
    x = ember.zeros(2, 3, 4)
    assert x.movedim(0, 2)._base is x or x.movedim(0, 2).data_ptr() == x.data_ptr()
    parts = ember.hsplit(x, 3)
    parts[0][...] = 1
    assert float(x[:, 0].sum()) == 8.0


@pytest.mark.parametrize("call", [
    lambda m: m.movedim(m.ones(2, 3), (0, 1), (0,)),
    lambda m: m.movedim(m.ones(2, 3), (0, 0), (1, 0)),
    lambda m: m.broadcast_shapes((2, 3), (4,)),
    lambda m: m.broadcast_tensors(m.ones(2, 3), m.ones(4)),
    lambda m: m.hsplit(m.ones(2, 5), 2),
    lambda m: m.vsplit(m.ones(5), 1),
    lambda m: m.trace(m.ones(2, 2, 2)),
    lambda m: m.tensordot(m.ones(2, 3), m.ones(4, 3), dims=1),
    lambda m: m.inner(m.ones(2, 3), m.ones(2)),
    lambda m: m.vdot(m.ones(2, 2), m.ones(4)),
    lambda m: m.chain_matmul(m.ones(2, 3, 3)),
    lambda m: m.put(m.ones(4), m.tensor([0, 1]), m.ones(3)),
    lambda m: m.unravel_index(m.tensor([1.0]), (2, 3)),
])
def test_errors_as_torch(call):
    try:
        same_error(call)
    except AssertionError:  # same exception type, message wording may differ
        types = []
        for lib in (torch, ember):
            with pytest.raises(Exception) as info:
                call(lib)
            types.append(info.type)
        assert types[0] == types[1] or issubclass(types[1], types[0])


def test_trace_of_bool_raises_as_torch():
    same_error(lambda L: L.trace(L.ones(2, 2, dtype=L.bool)))


@pytest.mark.parametrize("call", [
    lambda L: L.isin(L.tensor([1 + 1j, 2 + 0j]), L.tensor([1 + 1j, 2 + 0j])), lambda L: L.isin(L.tensor([1.0, 2.0]), L.tensor([1 + 1j, 2 + 0j])),
    lambda L: L.isin(1 + 1j, L.tensor([1.0, 2.0])), lambda L: L.isin(L.tensor([1 + 1j, 2 + 0j]), 1.0),
    lambda L: L.broadcast_shapes(L.tensor([1, 2])), lambda L: L.broadcast_shapes(L.ones(2, 1), (3,)),
    lambda L: L.broadcast_shapes(2.0), lambda L: L.broadcast_shapes((-1,))])
def test_isin_of_complex_and_broadcast_shapes_of_non_shapes_raise_as_torch(call):
    """(isin compared complex values; broadcast_shapes read a tensor's values as sizes)"""
    same_error(call)


@pytest.mark.parametrize("shapes, dims", [
    (((2, 0), (0, 4)), 1), (((2, 0), (0, 4)), ([1], [0])), (((0, 3), (3, 0)), 1),
    (((2, 0, 3), (3, 0)), 1), (((2, 0), (2, 0)), 2), (((0, 2), (3,)), 0)])
def test_tensordot_of_empty_tensors_as_torch(shapes, dims):
    """(a zero among the kept sizes left reshape's -1 open: RuntimeError)"""
    results = []
    for lib in (torch, ember):
        a, b = (lib.ones(*s, requires_grad=True) for s in shapes)
        out = lib.tensordot(a, b, dims=dims)
        out.sum().backward()
        results.append((tuple(out.shape), out.tolist(), tuple(a.grad.shape), tuple(b.grad.shape)))
    assert results[1] == results[0]


@pytest.mark.parametrize("p, maxnorm", [(0, 1.0), (-1, 1.0), (-float("inf"), 1.0), (2, -1.0),
                                        (2, -1.5)])
def test_renorm_refuses_non_positive_orders_and_negative_maxnorm_as_torch(p, maxnorm):
    """(they computed)"""
    same_error(lambda L: L.renorm(L.ones(2, 2), p, 0, maxnorm))


@pytest.mark.parametrize("call", [
    lambda L: L.isin(L.tensor([True, False]), L.tensor([1.0, 2.0])), lambda L: L.isin(L.tensor([1.0, 2.0]), L.tensor([True, False])), lambda L: L.isin(True, L.tensor([True, False]))])
def test_isin_refuses_bool_as_torch(call):
    """(bool elements were compared)"""
    same_error(call)
_M = lambda L: L.tensor([True, False, True])  # noqa: E731
_I = lambda L: L.tensor([0])  # noqa: E731


@pytest.mark.parametrize("call", [
    lambda L: L.zeros(3, dtype=L.int64).index_put_((_I(L),), L.tensor([1.5])),
    lambda L: L.zeros(3).index_put_((_I(L),), L.tensor(1.5, dtype=L.float64)),
    lambda L: L.zeros(3).index_put((_I(L),), L.tensor([1], dtype=L.int64)),
    lambda L: L.index_put(L.zeros(3), [_I(L)], L.tensor([1.5], dtype=L.float64)),
    lambda L: L.zeros(3).index_put_((_I(L),), L.tensor([1.5], dtype=L.float64), True),
    lambda L: L.zeros(3).index_put_((_I(L),), L.tensor([1.5, 2.5], dtype=L.float64)),
    lambda L: L.zeros(3).index_put_((_I(L),), L.tensor([1.5, 2.5], dtype=L.float64), True),
    lambda L: L.zeros(3).index_put_((L.tensor([], dtype=L.int64),),
                                    L.tensor([], dtype=L.float64)),
    lambda L: L.zeros(3, dtype=L.int64).index_put_((_M(L),), L.tensor([2.5]), True),
    lambda L: L.zeros(3).index_put_((_M(L),), L.tensor([1 + 2j])),
    lambda L: L.zeros(3).index_put_((_I(L),), 1.5), lambda L: L.zeros(3).index_put_(_I(L), 1.5),
    lambda L: L.zeros(3).index_put_((None,), L.tensor(1.5)),
    lambda L: L.zeros(3, dtype=L.int64).put_(_I(L), L.tensor([1.5])),
    lambda L: L.zeros(3).put(_I(L), L.tensor(1.5, dtype=L.float64), accumulate=True),
    lambda L: L.put(L.zeros(3), _I(L), L.tensor([1.5], dtype=L.float64)),
    lambda L: L.zeros(3).put_(_I(L), 1.5), lambda L: L.zeros(3).put_([0], L.tensor([1.5])),
    lambda L: L.zeros(3).put_(L.tensor([0.0]), L.tensor([1.5])),
    lambda L: L.zeros(3).put_(L.tensor([0], dtype=L.int32), L.tensor([1.5], dtype=L.float64)),
    lambda L: L.zeros(3).masked_scatter_(_M(L), L.tensor([1.5, 2], dtype=L.float64))])
def test_index_put_and_put_refusals_as_torch(call):
    # ember cast values of another dtype, took Python numbers and int32 put_ indices
    same_error(call)


@pytest.mark.parametrize("call", [
    lambda L: L.zeros(3, dtype=L.int64).index_put_((_M(L),), L.tensor(2.5)),
    lambda L: L.zeros(3).index_put_((_M(L),), L.tensor([2.5], dtype=L.float64)),
    lambda L: L.zeros(3, dtype=L.int64).index_put_((L.tensor(True),), L.tensor(2.5)),
    lambda L: L.zeros(3).index_put_((_M(L),), L.tensor([2.5, 3.0]), accumulate=True),
    lambda L: L.zeros(3, 2).index_put_((_M(L), L.tensor([1])), L.tensor([2.5]), True)])
def test_index_put_casts_a_one_element_value_through_a_mask_as_torch(call):
    # (torch fills through masked_fill_ there); ember refused bool masks with accumulate=True
    ours, theirs = call(ember), call(torch)
    assert str(ours.dtype) == str(theirs.dtype).replace("torch", "ember")
    assert ours.tolist() == theirs.tolist()


def test_broadcast_tensors_returns_a_tensor_of_the_shape_itself_as_torch():
    for lib in (ember, torch):
        a = lib.randn(3, requires_grad=True)
        same, grown = lib.broadcast_tensors(a, lib.ones(3)), lib.broadcast_tensors(a, lib.ones(2, 1))
        assert same[0] is a and same[0].grad_fn is None
        assert type(grown[0].grad_fn).__name__ == "ExpandBackward0"
        assert lib.broadcast_tensors(a)[0] is a


def test_vdot_conjugates_its_first_complex_vector():
    # ember's vdot did not conjugate (a silent wrong result for complex vectors)
    a = np.array([1 + 2j, -3 + 0.5j, 2j], np.complex64)
    b = np.array([0j, 2 - 1j, 1 + 1j], np.complex64)
    out = []
    for L in (torch, ember):
        x = L.tensor(a, requires_grad=True)
        y = L.tensor(b, requires_grad=True)
        r = L.vdot(x, y)
        r.real.backward()
        out.append((r.item(), x.grad.numpy(), y.grad.numpy()))
    assert out[1][0] == pytest.approx(out[0][0])
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-6)
    np.testing.assert_allclose(out[1][2], out[0][2], rtol=1e-6)
    names = [type(L.vdot(L.ones(2, requires_grad=True), L.ones(2)).grad_fn).__name__
             for L in (torch, ember)]
    assert names[1] == names[0]  # (real vectors: torch's VdotBackward0)
