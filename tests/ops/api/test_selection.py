"""The public functions of ember/ops/api/selection.py (gather, scatter, index_select, masked_select, nonzero, getitem, setitem),
called as ``ember.X``: values, gradients, second derivatives and grad_fn names against torch 2.13."""
import pytest
import torch
from oracle import check, same_error

import ember

from ._cases import IDX, A, B, C

INDEXING = {
    "gather": (lambda L, a: L.gather(a, 1, L.tensor(IDX)), A),
    "scatter": (lambda L, a, b: L.scatter(a, 1, L.tensor(IDX[:, :1]), b[:, :1]), A, B),
    "scatter_add": (lambda L, a, b: L.scatter_add(a, 1, L.tensor(IDX), b[:, :2]), A, B),
    "index_select": (lambda L, c: L.index_select(c, 2, L.tensor([3, 0, 3])), C),
    "masked_select": (lambda L, a: L.masked_select(a, a > 0), A),
    "nonzero": (lambda L, a: L.nonzero(a > 0), A),
    "getitem": (lambda L, c: c[1:, [0, 2], ::2], C),
    "setitem": (lambda L, a, b: _setitem(a, b), A, B),
}


CASES = {**INDEXING}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, *inputs = CASES[name]
    check(fn, *inputs)


def _setitem(a, b):
    out = a * 1
    out[1:, :2] = b[:2, 1:3]
    return out


def test_gather_index_out_of_range_raises_runtime_error_as_torch():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 1"):
            lib.gather(lib.ones(2, 3), 1, lib.tensor([[5]]))
        # a negative index is refused too (NumPy would have read from the end: silently wrong)
        with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 1"):
            lib.gather(lib.ones(2, 3), 1, lib.tensor([[0, -1]]))


@pytest.mark.parametrize("call", [
    lambda L: L.scatter(L.zeros(2, 3), 1, L.tensor([[-1]]), L.ones(2, 3)),
    lambda L: L.scatter(L.zeros(2, 3), 1, L.tensor([[3]]), L.ones(2, 3)),
    lambda L: L.scatter_add(L.zeros(2, 3), 1, L.tensor([[-1]]), L.ones(2, 3)),
    lambda L: L.index_select(L.ones(2, 3), 1, L.tensor([-1])),
    lambda L: L.index_select(L.ones(2, 3), 1, L.tensor([3])),
    lambda L: L.index_select(L.ones(2, 3), 0, L.tensor([-1])),
    lambda L: L.index_select(L.ones(3), 0, L.tensor([3])),
])
def test_indices_out_of_range_raise_as_torch(call):
    # negative indices were read from the end by NumPy: silently wrong results
    errors = []
    for lib in (torch, ember):
        with pytest.raises((RuntimeError, IndexError)) as info:
            call(lib)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("value", [5.0, 0.0])
def test_nonzero_argwhere_and_where_of_a_0d_tensor(value):
    """A 0-d input: (1 or 0) rows of no columns; as a tuple, one index per nonzero element
    (NumPy refuses nonzero on 0-d arrays)."""
    for fn in (lambda L, t: L.nonzero(t), lambda L, t: L.argwhere(t),
               lambda L, t: L.nonzero(t, as_tuple=True), lambda L, t: L.where(t != 0)):
        got, want = fn(ember, ember.tensor(value)), fn(torch, torch.tensor(value))
        got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape and g.dtype == ember.int64
            assert g.tolist() == w.tolist()


def test_where_shape_mismatch_raises_torchs_runtime_error():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match=r"size of tensor a \(6\) must match the size of "
                                               r"tensor b \(2\) at non-singleton dimension 1"):
            lib.where(lib.ones(6, dtype=lib.bool), lib.zeros(()), lib.ones(6, 2))


@pytest.mark.parametrize("call", [
    lambda L: L.zeros(2, 3).gather(1, L.tensor([[0], [0], [0]])),
    lambda L: L.zeros(2, 3).gather(0, L.tensor([[0, 0, 0, 0]])),
    lambda L: L.zeros(2, 3).scatter(1, L.tensor([[0], [0], [0]]), 1.0),
    lambda L: L.zeros(2, 3).scatter(1, L.tensor([[0, 0]]), L.ones(1, 1)),
    lambda L: L.zeros(2, 3).scatter_add(1, L.tensor([[0, 0]]), L.ones(1, 1)),
    lambda L: L.zeros(2, 3).scatter(1, L.tensor([[0]]), L.ones(2, 3, dtype=L.float64)),
    lambda L: L.zeros(2, 3).scatter_add(1, L.tensor([[0]]), L.ones(2, 3, dtype=L.float64)),
    lambda L: L.zeros(3).masked_select(L.tensor([True, False]))])
def test_gather_scatter_index_and_src_shapes_and_dtypes_checked_as_torch(call):
    # ember broadcast a smaller src (scatter_add added 1 twice from a 1x1 src), wrote a float64
    # src into float32 silently, and leaked NumPy's IndexError/ValueError
    same_error(call)


def test_masked_select_broadcasts_the_input_to_a_larger_mask_as_torch():
    mask = [[True, False, True], [True, True, False]]
    out = []
    for lib in (ember, torch):
        x = lib.arange(3.0, requires_grad=True)
        y = x.masked_select(lib.tensor(mask))
        y.sum().backward()
        out.append((y.tolist(), x.grad.tolist()))
    assert out[0] == out[1]
