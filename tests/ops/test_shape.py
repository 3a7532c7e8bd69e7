"""Shape ops (ember/ops/shape.py): views, cat/stack/split family; values and grads vs torch."""
import numpy as np
import pytest
import torch
from oracle import check, close, same_error

import ember

X = np.random.default_rng(0).standard_normal((2, 3, 4))
SHAPE_OPS = {
    "view": lambda L, x: x.view(6, 4), "view_infer": lambda L, x: x.view(-1, 2),
    "reshape": lambda L, x: x.reshape(4, -1), "reshape_t": lambda L, x: x.transpose(0, 2).reshape(-1),
    "flatten": lambda L, x: x.flatten(), "flatten_1": lambda L, x: x.flatten(1),
    "unflatten": lambda L, x: x.unflatten(2, (2, 2)), "squeeze": lambda L, x: x[:, :1].squeeze(),
    "squeeze_dim": lambda L, x: x[:, :1].squeeze(1), "unsqueeze": lambda L, x: x.unsqueeze(-1),
    "transpose": lambda L, x: x.transpose(0, 2), "permute": lambda L, x: x.permute(1, 2, 0),
    "t": lambda L, x: x[0].t(), "T2": lambda L, x: x[0].T, "mT": lambda L, x: x.mT,
    "expand": lambda L, x: x[:, :1].expand(2, 5, 4), "expand_new": lambda L, x: x.expand(3, 2, 3, 4),
    "expand_as": lambda L, x: x[0].expand_as(x), "repeat": lambda L, x: x.repeat(1, 2, 1),
    "repeat_more": lambda L, x: x[0].repeat(2, 1, 3), "contiguous": lambda L, x: x.transpose(0, 1).contiguous(),
    "flip": lambda L, x: x.flip(0, 2) if False else x.flip((0, 2)), "chunk": lambda L, x: x.chunk(3, 2)[1],
    "split": lambda L, x: x.split(2, 2)[1], "split_sizes": lambda L, x: x.split([1, 3], 2)[1],
    "unbind": lambda L, x: x.unbind(1)[2], "narrow": lambda L, x: x.narrow(2, 1, 2),
    "cat": lambda L, x: L.cat([x, x * 2], 1), "cat_neg": lambda L, x: L.cat([x, x[:, :1]], -2),
    "stack": lambda L, x: L.stack([x, x + 1], 2), "select": lambda L, x: x.select(1, -1),
    "swapaxes": lambda L, x: x.swapaxes(0, 1), "view_as": lambda L, x: x.view_as(L.zeros(4, 6)),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(SHAPE_OPS))
def test_shape_ops(name, dtype):
    check(SHAPE_OPS[name], X.astype(dtype))


def test_multi_output_chunks_all_get_gradients():
    res = []
    for lib in (ember, torch):
        x = lib.tensor(X, requires_grad=True)
        a, b, c = x.chunk(3, 1)
        (a * 1 + b * 2 + c * 3).sum().backward()
        res.append(x.grad)
    close(res[0], res[1])


@pytest.mark.parametrize("pieces", [lambda x: x.split(2, 1), lambda x: x.split([1, 2, 1], 2),
                                    lambda x: x.chunk(2, 2)])
def test_split_records_one_node_with_an_output_per_piece_as_torch(pieces):
    res = []
    for lib in (ember, torch):
        x = lib.tensor(X, requires_grad=True)
        parts = pieces(x)
        fn = parts[0].grad_fn
        res.append((type(fn).__name__, [p.grad_fn is fn for p in parts],
                    [p.output_nr for p in parts], len(fn.next_functions)))
    assert res[0] == res[1]


def test_split_backward_fills_missing_pieces_and_keeps_negative_zeros_as_torch():
    """One buffer: a piece without a gradient reads zeros; -0.0 in a piece's gradient stays
    (torch's cat of the pieces), where adding each piece's zero-filled gradient gave +0.0."""
    res = []
    for lib in (ember, torch):
        x = lib.tensor(X, requires_grad=True)
        a, b, c = x.split([1, 1, 2], 2)
        seen = []
        b.register_hook(lambda g: seen.append(g.clone()))
        (a * -0.0 + b * 2).sum().backward()
        res.append((x.grad.numpy().copy(), seen[0].numpy().copy()))
    for got, want in zip(*res):
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape, size, dim", [((4, 6), 10, 1), ((4, 6), 4, 0), ((0, 3), 2, 0)])
def test_split_into_one_piece_gets_the_whole_gradient_as_torch(shape, size, dim):
    res = []
    for lib in (ember, torch):
        x = lib.arange(float(np.prod(shape))).reshape(shape).requires_grad_()
        piece = x.split(size, dim)[0]
        (piece * (piece + 1)).sum().backward()
        res.append(x.grad)
    close(res[0], res[1])


def test_split_pieces_double_backward_as_torch():
    res = []
    for lib in (ember, torch):
        x = lib.tensor(X, requires_grad=True)
        a, b = x.split(2, 1)[:2]
        g, = lib.autograd.grad((a ** 3 + b ** 2).sum(), x, create_graph=True)
        res.append(lib.autograd.grad(g.sum(), x)[0])
    close(res[0], res[1])


def test_views_share_memory_and_version():
    x = ember.zeros(2, 3)
    for v in (x.view(6), x.transpose(0, 1), x[0], x.unsqueeze(0), x.expand(2, 2, 3)):
        assert np.shares_memory(v.numpy(), x.numpy())
    v = x.view(6)
    v.add_(1)
    assert x._version == v._version == 1 and x.sum().item() == 6


@pytest.mark.parametrize("call", [
    lambda L: L.zeros(2, 3).view(4, 2),
    lambda L: L.zeros(2, 3).transpose(0, 1).view(6),
    lambda L: L.zeros(2, 3).view(-1, -1),
    lambda L: L.cat([L.zeros(2, 3), L.zeros(2, 4)]),
    lambda L: L.stack([L.zeros(2), L.zeros(3)]),
    lambda L: L.zeros(2, 3).expand(4, 3),
    lambda L: L.zeros(2, 3).split([1, 3], 0),
])
def test_shape_errors_match_torch(call):
    with pytest.raises(RuntimeError) as te:
        call(torch)
    with pytest.raises(RuntimeError) as ee:
        call(ember)
    assert str(ee.value) == str(te.value)


def test_cat_of_nothing():
    for lib in (torch, ember):
        with pytest.raises(ValueError, match="expected a non-empty list of Tensors"):
            lib.cat([])


def test_dim_errors():
    for lib in (torch, ember):
        with pytest.raises(IndexError, match="Dimension out of range"):
            lib.zeros(2, 3).transpose(0, 2)


@pytest.mark.parametrize("name", ["cat", "stack", "hstack", "vstack", "dstack", "column_stack",
                                  "row_stack", "concat", "concatenate"])
@pytest.mark.parametrize("make", [
    lambda L: L.ones(2, 2), lambda L: (t for t in [L.ones(2)]), lambda L: iter([L.ones(2)]),
    lambda L: None, lambda L: [L.ones(2), 1], lambda L: (L.ones(2), np.ones(2))])
def test_joins_refuse_what_is_not_a_list_of_tensors_as_torch(name, make):
    """(a lone tensor was iterated: torch.cat(x) joined x's rows; generators were taken;
    non-tensor elements leaked AttributeError)"""
    same_error(lambda L: getattr(L, name)(make(L)))
@pytest.mark.parametrize("call", [
    lambda L: L.zeros(0, 3).chunk(2), lambda L: L.zeros(3, 0).chunk(3, dim=1),
    lambda L: L.zeros(0, 3).split(2), lambda L: L.zeros(3, 0).split(2, dim=1),
    lambda L: L.tensor(5.0).flip(0), lambda L: L.flip(L.tensor(5.0), [-1]),
    lambda L: L.movedim(L.tensor(5.0), 0, 0), lambda L: L.moveaxis(L.tensor(5.0), -1, -1),
    lambda L: L.narrow(L.arange(5), 0, -5, 2), lambda L: L.arange(5).narrow_copy(0, 1, 3)])
def test_empty_dims_and_0d_tensors_as_torch(call):
    # ember gave one piece for chunks of an empty dim and none for split, let NumPy's
    # AxisError out of flip and an IndexError out of movedim on 0-d tensors
    ours, theirs = call(ember), call(torch)
    if isinstance(theirs, tuple):
        assert [tuple(o.shape) for o in ours] == [tuple(t.shape) for t in theirs]
    else:
        assert tuple(ours.shape) == tuple(theirs.shape) and ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("call", [
    lambda L: L.narrow(L.arange(5), 0, 2, -1), lambda L: L.narrow(L.arange(5), 0, 6, 0),
    lambda L: L.narrow(L.arange(5), 0, -6, 1), lambda L: L.narrow(L.tensor(5), 0, 0, 1),
    lambda L: L.narrow(L.arange(5), 0, L.tensor([1]), 2),
    lambda L: L.narrow(L.arange(5), 0, L.tensor(1.0), 2), lambda L: L.narrow(L.arange(5), 0, 3, 3),
    lambda L: L.arange(5).narrow_copy(0, 2, -1), lambda L: L.arange(5).narrow_copy(0, 6, 0),
    lambda L: L.renorm(L.tensor([1.0, 2.0]), 2, 0, 1.0), lambda L: L.renorm(L.tensor(3.0), 2, 0, 1.0),
    lambda L: L.renorm(L.ones(2, 3), -1, 0, 1.0), lambda L: L.renorm(L.ones(2, 3), 0, 0, 1.0),
    lambda L: L.renorm(L.ones(2, 3), 2, 0, -1.0)])
def test_narrow_and_renorm_refusals_as_torch(call):
    # ember wrapped a start below -size, took negative lengths, renormed 1-d tensors and
    # negative maxnorms, divided by zero for p = 0
    same_error(call)


def test_narrow_start_and_length_must_be_ints_as_torch():
    for call in (lambda L: L.narrow(L.arange(5), 0, 1.0, 2),
                 lambda L: L.narrow(L.arange(5), 0, 1, 2.0)):
        for lib in (torch, ember):
            with pytest.raises(TypeError, match="narrow\\(\\) received an invalid combination"):
                call(lib)


@pytest.mark.parametrize("sizes", [(2, 1, 3), (2, 3), (0, 1), ((2,), (2, 1)), ((2,), ())])
def test_stack_of_unequal_rows_refused_as_torch(sizes):
    # stack's rows are joined by one concatenate: rows of equal total length (2 + 1 + 3 = 3 * 2)
    # must still be refused with torch's message
    shapes = [s if isinstance(s, tuple) else (s,) for s in sizes]
    same_error(lambda L: L.stack([L.ones(s) for s in shapes]))


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("shape", [(5,), (0,), (2, 3)])
def test_stack_of_many_values_layout_and_grads_as_torch(shape, dim):
    rows = [np.random.default_rng(i).standard_normal(shape).astype(np.float32) for i in range(6)]
    ours = [ember.tensor(r, requires_grad=True) for r in rows]
    theirs = [torch.tensor(r, requires_grad=True) for r in rows]
    a, b = ember.stack(ours, dim), torch.stack(theirs, dim)
    assert a.shape == b.shape
    if b.numel():  # (an empty result's strides differ from torch's before this change too)
        assert a.stride() == b.stride()
    np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())
    (a * ember.arange(a.numel()).reshape(a.shape)).sum().backward()
    (b * torch.arange(b.numel()).reshape(b.shape)).sum().backward()
    for x, y in zip(ours, theirs):
        np.testing.assert_array_equal(x.grad.numpy(), y.grad.numpy())


@pytest.mark.parametrize("dims", [(0, 0), (0, 1, 2), (0,), (0, 5), (1, -1)], ids=str)
def test_permute_errors_as_torch(dims):
    same_error(lambda lib: lib.ones(2, 3).permute(*dims))


@pytest.mark.parametrize("sizes", [(4, 2), (4, -1), (0, -1), (2, 4)], ids=str)
def test_unflatten_sizes_that_do_not_multiply_up_as_torch(sizes):
    same_error(lambda lib: lib.ones(6).unflatten(0, sizes))
