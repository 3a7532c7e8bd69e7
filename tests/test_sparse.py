"""ember.sparse (torch.sparse): sparse_coo_tensor, Tensor.to_sparse and sparse x dense products,
against torch."""
import numpy as np
import pytest
import torch
from oracle import close
from sparse.sparse_pair import INDICES, VALUES, pair, raises_like

import ember

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")


def test_sparse_coo_tensor_matches_torch():
    e, t, _, _ = pair()
    assert e.is_sparse and e.layout is ember.sparse_coo and not e.is_coalesced()
    assert e.shape == tuple(t.shape) and e._nnz() == t._nnz() == 5
    assert (e.sparse_dim(), e.dense_dim()) == (t.sparse_dim(), t.dense_dim())
    close(e._indices(), t._indices())
    close(e._values(), t._values())
    close(e.to_dense(), t.to_dense())


def test_size_inferred_and_hybrid_values():
    values = np.arange(10, dtype=np.float32).reshape(5, 2)
    e = ember.sparse_coo_tensor(INDICES, values)
    t = torch.sparse_coo_tensor(torch.tensor(INDICES), torch.tensor(values))
    assert e.shape == tuple(t.shape) == (3, 3, 2)
    close(e.to_dense(), t.to_dense())


def test_numpy_int32_indices_and_dtype_cast():
    # pytorch/examples gat: indices from NumPy int32, float values cast to int64
    idx = np.array([[0, 1, 1], [1, 0, 0]], dtype=np.int32)
    e = ember.sparse_coo_tensor(idx, ember.ones(3), (2, 2), dtype=ember.int64)
    t = torch.sparse_coo_tensor(idx, torch.ones(3), (2, 2), dtype=torch.int64)
    assert e.dtype is ember.int64
    close(e.to_dense(), t.to_dense())
    close(ember.eye(2) + e, torch.eye(2) + t)


@pytest.mark.parametrize("indices,values,size", [
    (INDICES, VALUES[:4], (3, 3)),            # nnz differs
    (INDICES[0], VALUES, (3, 3)),             # indices not 2-D
    (INDICES, VALUES, (3, 3, 4)),             # len(size) != sparse_dim + dense_dim
])
def test_construction_errors_match_torch(indices, values, size):
    raises_like(lambda: ember.sparse_coo_tensor(indices, values, size),
                lambda: torch.sparse_coo_tensor(torch.tensor(indices), torch.tensor(values),
                                                size))


@pytest.mark.parametrize("indices", [INDICES - 1, INDICES + 1])
def test_out_of_range_indices_are_refused(indices):
    # torch checks these only with check_invariants=True; ember always (no silent wrap-around)
    message = raises_like(
        lambda: ember.sparse_coo_tensor(indices, VALUES, (3, 3)),
        lambda: torch.sparse_coo_tensor(torch.tensor(indices), torch.tensor(VALUES), (3, 3),
                                        check_invariants=True))
    assert "size is inconsistent with indices" in message


@pytest.mark.parametrize("shape,sparse_dim", [((3, 4), None), ((2, 3, 2), None), ((2, 3, 2), 1),
                                              ((2, 3, 2), 2), ((), None), ((5,), None)])
def test_to_sparse_and_back(shape, sparse_dim):
    data = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    data[data < 0.3] = 0
    if shape == ():
        data = np.float32(2.5)
    args = () if sparse_dim is None else (sparse_dim,)
    e = ember.tensor(data).to_sparse(*args)
    t = torch.tensor(data).to_sparse(*args)
    assert e.is_coalesced() and e._nnz() == t._nnz()
    close(e.indices(), t.indices())
    close(e.values(), t.values())
    close(e.to_dense(), t.to_dense())


def test_to_sparse_errors():
    x = np.ones((2, 2), dtype=np.float32)
    raises_like(lambda: ember.tensor(x).to_sparse(3), lambda: torch.tensor(x).to_sparse(3))
    raises_like(lambda: ember.tensor(x).to_sparse(0), lambda: torch.tensor(x).to_sparse(0))


def test_dense_layout_and_to_dense():
    x = ember.ones(2)
    assert x.layout is ember.strided and not x.is_sparse and x.to_dense() is x
    assert repr(ember.strided) == "ember.strided"


@pytest.mark.parametrize("product", ["sparse.mm", "mm", "spmm", "matmul", "@"])
def test_sparse_dense_product_and_gradients(product):
    e, t, ev, tv = pair(requires_grad=True)
    dense = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    ed, td = ember.tensor(dense, requires_grad=True), torch.tensor(dense, requires_grad=True)
    run = {"sparse.mm": lambda lib, s, d: lib.sparse.mm(s, d),
           "mm": lambda lib, s, d: lib.mm(s, d), "spmm": lambda lib, s, d: lib.spmm(s, d),
           "matmul": lambda lib, s, d: lib.matmul(s, d),
           "@": lambda lib, s, d: s @ d}[product]
    eo, to = run(ember, e, ed), run(torch, t, td)
    close(eo, to)
    assert type(eo.grad_fn).__name__ == type(to.grad_fn).__name__
    weights = np.random.default_rng(2).standard_normal((3, 4)).astype(np.float32)
    (eo * ember.tensor(weights)).sum().backward()
    (to * torch.tensor(weights)).sum().backward()
    close(ed.grad, td.grad, what="dense grad")
    close(ev.grad, tv.grad, what="values grad")


def test_dense_times_sparse_and_vectors():
    e, t, _, _ = pair()
    m = np.arange(6, dtype=np.float32).reshape(3, 2)  # spmm of dense matrices is mm
    close(ember.spmm(ember.tensor(m.T), ember.tensor(m)), torch.spmm(torch.tensor(m.T),
                                                                    torch.tensor(m)))
    m = np.arange(6, dtype=np.float32).reshape(2, 3)
    close(ember.tensor(m) @ e, torch.tensor(m) @ t)
    close(e @ ember.ones(3), t @ torch.ones(3))
    close(ember.ones(3) @ e, torch.ones(3) @ t)


def test_product_errors_match_torch():
    e, t, _, _ = pair()
    raises_like(lambda: ember.spmm(e, ember.ones(4, 2)), lambda: torch.spmm(t, torch.ones(4, 2)))
    raises_like(lambda: ember.spmm(ember.ones(3), ember.ones(3, 2)),
                lambda: torch.spmm(torch.ones(3), torch.ones(3, 2)))
    raises_like(lambda: e @ ember.ones(4, 2), lambda: t @ torch.ones(4, 2))
    raises_like(lambda: ember.sparse.mm(e, ember.ones(4, 2)),
                lambda: torch.sparse.mm(t, torch.ones(4, 2)))
    raises_like(lambda: e @ ember.ones(3, 2, dtype=ember.float64),
                lambda: t @ torch.ones(3, 2, dtype=torch.float64))


def test_sparse_leaf_gradient_is_sparse_per_position():
    e, t, _, _ = pair()
    e.requires_grad_()
    t.requires_grad_()
    dense = np.random.default_rng(3).standard_normal((3, 2)).astype(np.float32)
    ember.sparse.mm(e, ember.tensor(dense)).sum().backward()
    torch.sparse.mm(t, torch.tensor(dense)).sum().backward()
    assert e.grad.is_sparse
    close(e.grad.to_dense(), t.grad.to_dense())


def test_mm_of_a_sparse_leaf_is_refused_not_wrong():
    # torch gives such a leaf a dense gradient; ember refuses rather than differ
    e, _, _, _ = pair()
    e.requires_grad_()
    with pytest.raises(NotImplementedError, match="sparse.mm"):
        ember.mm(e, ember.ones(3, 2))
