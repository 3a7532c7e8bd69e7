"""The public functions of ember/ops/api/copies.py (contiguous, clone, to, zero_, fill_, copy_),
called as ``ember.X``: values, gradients, second derivatives and grad_fn names against torch 2.13."""
import pytest
import torch
from oracle import check, close

import ember

from ._cases import A, B

COPIES = {
    "contiguous": (lambda L, a: a.t().contiguous(), A),
    "clone": (lambda L, a: L.clone(a), A),
    "to_dtype": (lambda L, a: a.to(L.float32), A),
}


CASES = {**COPIES}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, *inputs = CASES[name]
    check(fn, *inputs)


def test_in_place_fills_and_copies_match_torch():
    results = []
    for lib in (ember, torch):
        a = lib.tensor(A)
        a[0].zero_()
        a[:, 1].fill_(2.5)
        a[2].copy_(lib.tensor(B[0]))
        results.append(a)
    close(results[0], results[1])
