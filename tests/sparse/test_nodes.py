"""ember/sparse/_nodes.py: the sparse x dense product's backward, including under
create_graph (gradients of gradients), against torch."""
import numpy as np
import pytest
import torch
from oracle import close
from sparse_pair import INDICES, VALUES, pair

import ember

pytestmark = pytest.mark.filterwarnings("ignore:Sparse invariant checks")


def test_first_derivatives_match_torch():
    e, t, ev, tv = pair(requires_grad=True)
    dense = np.random.default_rng(4).standard_normal((3, 2)).astype(np.float32)
    ed, td = ember.tensor(dense, requires_grad=True), torch.tensor(dense, requires_grad=True)
    close(ember.autograd.grad((e @ ed).pow(2).sum(), (ed, ev)),
          torch.autograd.grad((t @ td).pow(2).sum(), (td, tv)), rtol=1e-5)


def _product(values, dense):
    return ember.sparse.mm(ember.sparse_coo_tensor(INDICES, values, (3, 3)), dense).pow(2)


def test_gradients_and_second_derivatives_against_finite_differences():
    # torch 2.13's double backward through sparse.mm drops the values-dense cross term
    # (checked by hand with central differences), so the oracle here is finite differences
    rng = np.random.default_rng(5)
    values = ember.tensor(VALUES.astype(np.float64), requires_grad=True)
    dense = ember.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    assert ember.autograd.gradcheck(_product, (values, dense))
    assert ember.autograd.gradgradcheck(_product, (values, dense))


def test_only_needed_gradients_are_computed():
    e, _, ev, _ = pair(requires_grad=True)
    out = ember.sparse.mm(e, ember.ones(3, 2))
    assert out.grad_fn.next_functions[1][0] is None
    out.sum().backward()
    assert ev.grad is not None
