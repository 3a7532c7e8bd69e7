"""einsum (ember/ops/einsum.py) against torch: common equations, ellipsis, implicit output,
values, gradients, second derivatives and grad_fn names."""
import numpy as np
import pytest
import torch
from oracle import check

import ember

R = np.random.default_rng(0)


def _a(*shape):
    return R.standard_normal(shape)


EQUATIONS = {
    "ij,jk->ik": (_a(3, 4), _a(4, 2)),
    "ij,jk": (_a(3, 4), _a(4, 2)),
    "bij,bjk->bik": (_a(2, 3, 4), _a(2, 4, 5)),
    "...ij,...jk->...ik": (_a(2, 3, 4), _a(2, 4, 5)),
    "...ij,jk": (_a(2, 3, 4), _a(4, 5)),
    "bhqd,bhkd->bhqk": (_a(2, 2, 3, 4), _a(2, 2, 5, 4)),
    "ii": (_a(3, 3),),
    "ii->i": (_a(3, 3),),
    "ij->ji": (_a(3, 4),),
    "ij->": (_a(3, 4),),
    "ij->j": (_a(3, 4),),
    "i,j->ij": (_a(3), _a(4)),
    "i,i->": (_a(4), _a(4)),
    "ij,ij->ij": (_a(3, 4), _a(3, 4)),
    "ij,ij->i": (_a(3, 4), _a(3, 4)),
    "ij,j->i": (_a(3, 4), _a(4)),
    "bn,anm,bm->ba": (_a(2, 3), _a(4, 3, 5), _a(2, 5)),
    "i,j,k->ijk": (_a(2), _a(3), _a(4)),
    "...i,...i->...": (_a(2, 3, 4), _a(3, 4)),
    "ij,kj->ik": (_a(3, 4), _a(5, 4)),
    "iij->j": (_a(3, 3, 2),),
    "ij,jk,kl->il": (_a(2, 3), _a(3, 4), _a(4, 2)),
    "b i d, b j d -> b i j": (_a(2, 3, 4), _a(2, 5, 4)),
}


@pytest.mark.parametrize("equation", sorted(EQUATIONS))
def test_matches_torch(equation):
    operands = EQUATIONS[equation]
    check(lambda L, *xs: L.einsum(equation, *xs), *operands)


def test_operands_as_a_list_and_float32():
    x, y = _a(3, 4).astype(np.float32), _a(4, 2).astype(np.float32)
    check(lambda L, a, b: L.einsum("ij,jk->ik", [a, b]), x, y, rtol=1e-4, atol=1e-5)


def test_broadcast_size_one_dims():
    check(lambda L, a, b: L.einsum("bij,bjk->bik", a, b), _a(1, 3, 4), _a(2, 4, 2))


@pytest.mark.parametrize("equation,shapes", [
    ("... i d, j d -> ... i j", [(0, 1, 16), (4, 16)]),   # vector-quantize-pytorch's LFQ
    ("bij,bjk->bik", [(1, 3, 4), (0, 4, 2)]), ("bi,bj->bij", [(0, 3), (1, 2)]),
    ("bi,bj->ij", [(0, 3), (0, 2)]), ("i,j->ij", [(0,), (2,)])])
def test_empty_dims_broadcast_as_torch(equation, shapes):
    """A size-1 dim broadcasts against a size-0 one: the result is empty there (or zeros)."""
    ours = ember.einsum(equation, *[ember.ones(s) for s in shapes])
    theirs = torch.einsum(equation, *[torch.ones(s) for s in shapes])
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert np.array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("equation,shapes", [("ij,jk->ik", [(3, 4), (3, 4)]),
                                             ("ij,jk->ik", [(3, 4)]), ("ijk", [(3, 4)]),
                                             ("ij->k", [(2, 2)]), ("ij->ii", [(2, 2)]),
                                             ("i1,j->ij", [(2,), (2,)])])
def test_errors(equation, shapes):
    with pytest.raises(RuntimeError) as te:
        torch.einsum(equation, *[torch.zeros(s) for s in shapes])
    with pytest.raises(RuntimeError) as ee:
        ember.einsum(equation, *[ember.zeros(s) for s in shapes])
    assert str(ee.value)[:60] == str(te.value)[:60]
