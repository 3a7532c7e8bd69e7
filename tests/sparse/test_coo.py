"""ember/sparse/_coo.py: the SparseTensor's metadata, coalesce, conversions and its refusal of
every dense operation, against torch."""
import numpy as np
import pytest
import torch
from oracle import close
from sparse_pair import pair, raises_like

import ember

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")


def test_metadata_matches_torch():
    e, t, _, _ = pair()
    assert (e.dtype, e.ndim, e.dim(), e.numel(), len(e)) == (
        ember.float32, t.ndim, t.dim(), t.numel(), len(t))
    assert e.size() == tuple(t.size()) and e.size(-1) == t.size(-1)
    assert not e.is_contiguous() and e.is_floating_point()
    assert e.type() == t.type().replace("torch", "ember")


def test_coalesce_sums_duplicates_with_gradient():
    e, t, ev, tv = pair(requires_grad=True)
    ec, tc = e.coalesce(), t.coalesce()
    assert ec.is_coalesced() and ec.coalesce() is ec
    close(ec.indices(), tc.indices())
    close(ec.values(), tc.values())
    weights = np.arange(4, dtype=np.float32)
    (ec.values() * ember.tensor(weights)).sum().backward()
    (tc.values() * torch.tensor(weights)).sum().backward()
    close(ev.grad, tv.grad)


def test_uncoalesced_indices_and_values_are_refused():
    e, t, _, _ = pair()
    assert "coalesce" in raises_like(e.indices, t.indices)
    raises_like(e.values, t.values)


def test_to_dense_gradient_and_grad_fn():
    e, t, ev, tv = pair(requires_grad=True)
    assert e.grad_fn.name() == t.grad_fn.name() and not e.is_leaf
    ed, td = e.to_dense(), t.to_dense()
    assert ed.grad_fn.name() == td.grad_fn.name()
    weights = np.arange(9, dtype=np.float32).reshape(3, 3)
    (ed * ember.tensor(weights)).sum().backward()
    (td * torch.tensor(weights)).sum().backward()
    close(ev.grad, tv.grad)


def test_transpose_cast_detach_clone():
    e, t, _, _ = pair()
    close(e.t().to_dense(), t.t().to_dense())
    close(e.T.to_dense(), t.T.to_dense())
    for ec, tc in ((e.double(), t.double()), (e.to(ember.float64), t.to(torch.float64)),
                   (e.long(), t.long()), (e.detach(), t.detach()), (e.clone(), t.clone())):
        assert ec.is_sparse and str(ec.dtype)[6:] == str(tc.dtype)[6:]
        close(ec.to_dense(), tc.to_dense())


def test_requires_grad_leaves_the_callers_values_alone_and_deepcopy_keeps_a_leaf():
    import copy
    values = ember.tensor([1.0, 2.0])
    s = ember.sparse_coo_tensor([[0, 1]], values, (2,), requires_grad=True)
    assert s.requires_grad and s.is_leaf and not values.requires_grad
    c = copy.deepcopy(s)
    assert c.is_sparse and c.requires_grad and c.is_leaf
    close(c.to_dense(), torch.tensor([1.0, 2.0]))


def test_repr_shows_indices_values_and_size():
    e, _, _, _ = pair()
    text = repr(e)
    assert text.startswith("tensor(indices=tensor([[0, 1, 1, 0, 2],")
    assert "size=(3, 3), nnz=5, layout=ember.sparse_coo)" in text


@pytest.mark.parametrize("op", [
    lambda s: s.exp(), lambda s: s.view(9), lambda s: s == s])
def test_dense_operations_raise_not_implemented(op):
    e, t, _, _ = pair()
    message = raises_like(lambda: op(e), lambda: op(t))
    assert "sparse" in message


@pytest.mark.parametrize("op", [
    lambda s: s.sum(), lambda s: s.reshape(9), lambda s: s[0], lambda s: s.tolist(),
    lambda s: s.abs(), lambda s: s.unsqueeze(0), lambda s: s.relu(),
    lambda s: ember.exp(s) if isinstance(s, ember.Tensor) else torch.exp(s)])
def test_operations_torch_supports_are_refused_never_wrong(op):
    e, _, _, _ = pair()
    with pytest.raises(NotImplementedError, match="to_dense"):
        op(e)


def test_strides_and_numpy_raise_like_torch():
    e, t, _, _ = pair()
    raises_like(e.numpy, t.numpy)
    with pytest.raises(RuntimeError, match="strides"):
        e.stride()
