"""ember/sparse/_arith.py: sums, differences and scaling of sparse tensors, against torch."""
import numpy as np
import pytest
import torch
from oracle import close
from sparse_pair import INDICES, pair, raises_like

import ember

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")


@pytest.mark.parametrize("op", [lambda a, b: a + b, lambda a, b: a - b])
def test_dense_and_sparse(op):
    e, t, ev, tv = pair(requires_grad=True)
    dense = np.arange(9, dtype=np.float32).reshape(3, 3)
    eo, to = op(ember.tensor(dense), e), op(torch.tensor(dense), t)
    assert not eo.is_sparse
    close(eo, to)
    eo.sum().backward()
    to.sum().backward()
    close(ev.grad, tv.grad)


@pytest.mark.parametrize("op", [lambda a, b: a + b, lambda a, b: a - b])
def test_sparse_and_sparse(op):
    e, t, _, _ = pair()
    e2, t2, _, _ = pair(INDICES[::-1].copy())
    eo, to = op(e, e2), op(t, t2)
    assert eo.is_sparse and eo.is_coalesced() == to.is_coalesced()  # torch's entry order too
    np.testing.assert_array_equal(eo._indices().numpy(), to._indices().numpy())
    np.testing.assert_array_equal(eo._values().numpy(), to._values().numpy())
    close(eo.to_dense(), to.to_dense())


@pytest.mark.parametrize("op", [lambda s: s * 2, lambda s: 3 * s, lambda s: s / 4,
                                lambda s: -s, lambda s: s * 0.5])
def test_scaling_keeps_sparsity(op):
    e, t, ev, tv = pair(requires_grad=True)
    eo, to = op(e), op(t)
    assert eo.is_sparse
    close(eo.to_dense(), to.to_dense())
    eo.to_dense().sum().backward()
    to.to_dense().sum().backward()
    close(ev.grad, tv.grad)


def test_errors_match_torch():
    e, t, _, _ = pair()
    raises_like(lambda: e + ember.ones(3, 3), lambda: t + torch.ones(3, 3))
    raises_like(lambda: e + 1, lambda: t + 1)
    e4, t4, _, _ = pair(size=(3, 4))
    raises_like(lambda: e + e4, lambda: t + t4)
