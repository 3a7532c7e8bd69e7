"""The linear-algebra nodes (ember/ops/linalg_extra.py) through torch.linalg's functions: inv,
solve, det and singular values (values, gradients, second derivatives, grad_fn names), the
cofactor gradient of det at singular matrices, and LinAlgError for singular inputs."""
import numpy as np
import pytest
import torch
from oracle import check, close

import ember

R = np.random.default_rng(0)
A = R.standard_normal((3, 3)) + 3 * np.eye(3)
AB = R.standard_normal((2, 3, 3)) + 3 * np.eye(3)
M34 = R.standard_normal((3, 4))
B34 = R.standard_normal((2, 3, 4))
SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])

CASES = {
    "inv": (lambda L, x: L.linalg.inv(x), A),
    "inv_batched": (lambda L, x: L.linalg.inv(x), AB),
    "inverse": (lambda L, x: L.inverse(x) + x.inverse(), A),
    "det": (lambda L, x: L.linalg.det(x), A),
    "det_batched": (lambda L, x: L.det(x) * x.det(), AB),
}
SVD_CASES = {  # singular values: first derivatives only in ember
    "matrix_norm_nuc": (lambda L, x: L.linalg.matrix_norm(x, "nuc"), B34),
    "matrix_norm_2": (lambda L, x: L.linalg.matrix_norm(x, 2), M34),
    "matrix_norm_neg2": (lambda L, x: L.linalg.norm(x, -2), M34),
    "svdvals": (lambda L, x: L.linalg.svdvals(x), B34),
}
SOLVE = {
    "solve_matrix": (A, R.standard_normal((3, 2)), {}),
    "solve_vector": (A, R.standard_normal(3), {}),
    "solve_batched_vector": (AB, R.standard_normal((2, 3)), {}),
    "solve_broadcast": (A, R.standard_normal((2, 3, 4)), {}),
    "solve_right": (A, R.standard_normal((2, 3)), {"left": False}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, x = CASES[name]
    check(fn, x)
    check(fn, x.astype(np.float32), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", sorted(SVD_CASES))
def test_singular_value_norms_match_torch(name):
    fn, x = SVD_CASES[name]
    check(fn, x, second=False)
    e = ember.tensor(x, requires_grad=True)
    (g,) = ember.autograd.grad(fn(ember, e).sum(), e, create_graph=True)
    with pytest.raises(NotImplementedError, match="second derivative"):
        ember.autograd.grad(g.sum(), e)


@pytest.mark.parametrize("name", sorted(SOLVE))
def test_solve_matches_torch(name):
    a, b, kw = SOLVE[name]
    check(lambda L, x, y: L.linalg.solve(x, y, **kw), a, b)


def test_det_gradient_at_a_singular_matrix_is_the_cofactor_matrix():
    """det is a polynomial: its gradient at a singular matrix is the cofactor matrix, nonzero at
    rank n-1. (torch 2.13 returns zeros there; ember follows the mathematics, checked by finite
    differences.)"""
    from ember.autograd import gradcheck
    for a in (SINGULAR, np.array([[1.0, 2.0], [2.0, 4.0]]), np.zeros((3, 3))):
        assert gradcheck(ember.linalg.det, (ember.tensor(a, requires_grad=True),))
    x = ember.tensor([[1.0, 2.0], [2.0, 4.0]], requires_grad=True)
    ember.linalg.det(x).backward()
    close(x.grad, torch.tensor([[4.0, -2.0], [-2.0, 1.0]]))


ERRORS = [
    (lambda L: L.linalg.inv(L.tensor(SINGULAR)), "LinAlgError"),
    (lambda L: L.linalg.inv(L.zeros(2, 2)), "LinAlgError"),
    (lambda L: L.linalg.solve(L.zeros(3, 3), L.zeros(3)), "LinAlgError"),
]


@pytest.mark.parametrize("index", range(len(ERRORS)))
def test_errors_match_torch(index):
    call, kind = ERRORS[index]
    with pytest.raises(RuntimeError) as te:
        call(torch)
    with pytest.raises(RuntimeError) as ee:
        call(ember)
    assert str(ee.value) == str(te.value)
    if kind == "LinAlgError":
        assert isinstance(te.value, torch.linalg.LinAlgError)
        assert isinstance(ee.value, ember.linalg.LinAlgError)
