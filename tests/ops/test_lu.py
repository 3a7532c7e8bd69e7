"""LU (ember/ops/lu.py) against torch 2.13: linalg.lu, lu_factor (LAPACK's pivots), lu_unpack,
linalg.lu_solve (left, adjoint) and torch.lu_solve: values, gradients and second derivatives
(square, tall and wide), float64 and float32, batched; errors."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember

R = np.random.default_rng(0)
SQB = R.standard_normal((2, 4, 4))
TALL = R.standard_normal((2, 5, 3))
WIDE = R.standard_normal((2, 3, 5))
RHS = R.standard_normal((2, 4, 3))
W = R.standard_normal((5, 5))


def _w(L, t):
    return (t * L.tensor(W[:t.shape[-2], :t.shape[-1]], dtype=t.dtype)).sum((-2, -1))


CASES = {
    "lu": (lambda L, a: _w(L, L.linalg.lu(a).L) + _w(L, L.linalg.lu(a).U), SQB),
    "lu_factor": (lambda L, a: _w(L, L.linalg.lu_factor(a).LU), SQB),
    "lu_unpack": (lambda L, a: _w(L, L.lu_unpack(*L.linalg.lu_factor(a))[2]), SQB),
}
SOLVE = {
    "lu_solve": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b)),
    "lu_solve_adjoint": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b,
                                                          adjoint=True)),
    "lu_solve_right": (lambda L, a, b: L.linalg.lu_solve(*L.linalg.lu_factor(a), b.mT,
                                                        left=False)),
    "torch_lu_solve": (lambda L, a, b: L.lu_solve(b, *L.linalg.lu_factor(a))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, x = CASES[name]
    check(fn, x, rtol=1e-6, atol=1e-8, same_grad_fn=False)
    check(fn, x.astype(np.float32), rtol=2e-3, atol=2e-3, same_grad_fn=False)


@pytest.mark.parametrize("name", sorted(SOLVE))
def test_solve_matches_torch(name):
    check(SOLVE[name], SQB, RHS, rtol=1e-6, atol=1e-8, same_grad_fn=False)
    check(SOLVE[name], SQB.astype(np.float32), RHS.astype(np.float32), rtol=2e-3, atol=2e-3,
          same_grad_fn=False)


SINGULAR = [np.zeros((3, 3)), np.array([[0.0, 1], [0, 2]]),
            np.stack([np.eye(3), np.diag([1.0, 2, 0])])]


@pytest.mark.parametrize("x", [SQB, TALL, WIDE] + SINGULAR)
def test_factors_and_pivots(x):
    """The factors and pivots themselves, rectangular and singular included (LAPACK's choice);
    lu_factor refuses a zero on U's diagonal with torch's message."""
    check(lambda L, a: L.linalg.lu(a), x, grad=False)
    if any(x is s for s in SINGULAR):
        with pytest.raises(RuntimeError) as want:
            torch.linalg.lu_factor(torch.tensor(x))
        with pytest.raises(RuntimeError) as got:
            ember.linalg.lu_factor(ember.tensor(x))
        assert str(got.value) == str(want.value).replace("torch.", "ember.")
        return
    check(lambda L, a: L.linalg.lu_factor(a), x, grad=False)
    check(lambda L, a: L.lu_unpack(*L.linalg.lu_factor(a)), x, grad=False)


@pytest.mark.parametrize("x", [TALL, WIDE], ids=["tall", "wide"])
def test_rectangular_derivatives(x):
    """Wide and tall A: first and second derivatives through L and U, and through lu_factor."""
    for name in ("lu", "lu_factor"):
        check(CASES[name][0], x, rtol=1e-6, atol=1e-8, same_grad_fn=False)
        check(CASES[name][0], x.astype(np.float32), rtol=2e-3, atol=2e-3, same_grad_fn=False)


def test_errors():
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="linalg.lu: Expected tensor with 2 or more"):
            lib.linalg.lu(lib.ones(3))


SINGULAR_BATCH = np.array([[[2.0, 1, 0], [4, 3, 1], [0, 0, 0]], [[1.0, 2, 3], [4, 5, 6], [7, 8, 10]]])


def test_lu_factor_ex_as_torch():
    t = torch.linalg.lu_factor_ex(torch.tensor(SINGULAR_BATCH))
    e = ember.linalg.lu_factor_ex(ember.tensor(SINGULAR_BATCH))
    assert type(e).__name__ == type(t).__name__ == "linalg_lu_factor_ex"
    np.testing.assert_allclose(e.LU.numpy(), t.LU.numpy(), rtol=1e-12, atol=1e-15)
    assert e.pivots.tolist() == t.pivots.tolist() and e.info.tolist() == t.info.tolist() == [3, 0]
    assert e.info.dtype == ember.int32
    # (ember builds LU as a composite: its last node is an add, not LinalgLuFactorExBackward0)
    check(lambda L, a: L.linalg.lu_factor_ex(a)[0], SINGULAR_BATCH[1], same_grad_fn=False)


@pytest.mark.parametrize("call", [
    lambda L: L.linalg.lu_factor_ex(L.tensor(SINGULAR_BATCH), check_errors=True),
    lambda L: L.linalg.lu_factor(L.tensor(SINGULAR_BATCH)),
    lambda L: L.linalg.lu_factor(L.tensor(SINGULAR_BATCH[0]))])
def test_singular_errors_as_torch(call):
    same_error(call)


def test_deprecated_torch_lu_as_torch():
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match="torch.lu is deprecated in favor of"):
            lib.lu(lib.eye(2))
    t = torch.lu(torch.tensor(SINGULAR_BATCH), get_infos=True)
    e = ember.lu(ember.tensor(SINGULAR_BATCH), get_infos=True)
    assert len(e) == 3 and e[2].tolist() == t[2].tolist()
    e2, t2 = ember.tensor(SINGULAR_BATCH[1]).lu(), torch.tensor(SINGULAR_BATCH[1]).lu()
    assert len(e2) == len(t2) == 2
    np.testing.assert_allclose(e2[0].numpy(), t2[0].numpy(), rtol=1e-12)
    assert e2[1].tolist() == t2[1].tolist()
