"""torch's alias functions with their own argument names (ember/ops/aliases.py): dot, mv,
swapaxes, true_divide, concatenate, det and inverse against torch, including keyword calls under
torch's names and the 1-D/2-D checks' errors."""
import numpy as np
import pytest
import torch
from oracle import check

import ember

R = np.random.default_rng(0)
V, W = R.standard_normal(4), R.standard_normal(4)
M = R.standard_normal((3, 4))
SQ = R.standard_normal((3, 3)) + 3 * np.eye(3)

CASES = {
    "dot": (lambda L, a, b: L.dot(a, tensor=b), V, W),
    "mv": (lambda L, m, v: L.mv(m, vec=v), M, V),
    "swapaxes": (lambda L, m: L.swapaxes(m, axis0=0, axis1=1), M),
    "true_divide": (lambda L, m, v: L.true_divide(m, other=v + 3), M, V),
    "concatenate": (lambda L, m: L.concatenate([m, m * 2], dim=1), M),
    "concatenate_axis": (lambda L, m: L.concatenate((m, m), axis=0), M),
    "det": (lambda L, a: L.det(a), SQ),
    "inverse": (lambda L, a: L.inverse(a), SQ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, *inputs = CASES[name]
    check(fn, *inputs)


@pytest.mark.parametrize("call", [
    lambda L: L.dot(L.ones(2, 2), L.ones(2)),
    lambda L: L.mv(L.ones(2), L.ones(2)),
])
def test_dimension_errors_match_torch(call):
    errors = []
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as info:
            call(lib)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
