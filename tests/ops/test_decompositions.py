"""The decomposition nodes (ember/ops/decompositions.py) through torch.linalg's functions:
cholesky, qr, eigh/eigvalsh, svd, slogdet/logdet, matrix_power and multi_dot against torch 2.13:
values (where unique) and first and second derivatives of gauge-invariant losses, float64 and
float32, batched; errors as torch's."""
import numpy as np
import pytest
import torch
from oracle import check

import ember

R = np.random.default_rng(0)
SQ = R.standard_normal((3, 3)) + 3 * np.eye(3)
SQB = R.standard_normal((2, 3, 3)) + 3 * np.eye(3)
TALL = R.standard_normal((2, 4, 3))
WIDE = R.standard_normal((2, 3, 5))
_G = R.standard_normal((2, 3, 3))
SPD = _G @ np.swapaxes(_G, -1, -2) + 3 * np.eye(3)
WEIGHT = R.standard_normal((4, 5))


def _sym(L, x):
    return x + x.mT


def _w(L, out):
    """A fixed linear weighting of an output (so every entry's gradient is tested)."""
    w = L.tensor(WEIGHT[:out.shape[-2], :out.shape[-1]], dtype=out.dtype)
    return out * w


CASES = {
    "cholesky": (lambda L, x: _w(L, L.linalg.cholesky(_sym(L, x))), SPD),
    "cholesky_upper": (lambda L, x: _w(L, L.linalg.cholesky(_sym(L, x), upper=True)), SPD),
    "cholesky_ex": (lambda L, x: _w(L, L.linalg.cholesky_ex(_sym(L, x)).L), SPD),
    "cholesky_torch": (lambda L, x: _w(L, L.cholesky(_sym(L, x[0])) + x[1].cholesky()), SPD),
    "qr_tall": (lambda L, x: _both(L, L.linalg.qr(x)), TALL),
    "qr_square": (lambda L, x: _w(L, L.linalg.qr(x).Q) + _w(L, L.linalg.qr(x).R), SQB),
    "qr_wide": (lambda L, x: _both(L, L.linalg.qr(x)), WIDE),
    "qr_complete_square": (lambda L, x: _w(L, L.linalg.qr(x, "complete")[0]), SQB),
    "torch_qr": (lambda L, x: _w(L, L.qr(x)[0]) + _w(L, x.qr()[1]), SQ),
    "eigh_recompose": (lambda L, x: _eigh_recompose(L, _sym(L, x)), SQB),
    "eigh_values": (lambda L, x: L.linalg.eigh(_sym(L, x))[0], SQB),
    "eigh_abs_vectors": (lambda L, x: _w(L, L.linalg.eigh(_sym(L, x))[1].abs()), SQB),
    "eigh_upper": (lambda L, x: L.linalg.eigh(_sym(L, x), UPLO="U").eigenvalues, SQB),
    "eigvalsh": (lambda L, x: L.linalg.eigvalsh(_sym(L, x)), SQB),
    "svd_recompose": (lambda L, x: _svd_recompose(L, x, False), TALL),
    "svd_recompose_wide": (lambda L, x: _svd_recompose(L, x, False), WIDE),
    "svd_full": (lambda L, x: _svd_recompose(L, x, True), WIDE),
    "svd_values": (lambda L, x: L.linalg.svd(x)[1], WIDE),
    "svd_abs": (lambda L, x: _both(L, [t.abs() for t in L.linalg.svd(x, False)[::2]]), TALL),
    "torch_svd": (lambda L, x: _both(L, [t.abs() for t in L.svd(x)[::2]]) + L.svd(x)[1].sum(-1)
                  + _both(L, [x.svd()[2].abs()]), TALL),
    "slogdet": (lambda L, x: L.linalg.slogdet(x)[1] * L.linalg.slogdet(x).sign, SQB),
    "torch_slogdet": (lambda L, x: L.slogdet(x)[1] + x.slogdet().logabsdet, SQB),
    "logdet": (lambda L, x: L.logdet(x @ x.mT) + (x @ x.mT).logdet(), SQB),
    "matrix_power": (lambda L, x: L.linalg.matrix_power(x / 3, 5), SQB),
    "matrix_power_neg": (lambda L, x: L.linalg.matrix_power(x, -3), SQB),
    "matrix_power_torch": (lambda L, x: L.matrix_power(x, 2) + x.matrix_power(1), SQ),
}


def _both(L, outs):
    """Weighted sums of several outputs of different shapes, one number per batch element."""
    return sum(_w(L, t).sum((-2, -1)) for t in outs)


def _eigh_recompose(L, x):
    w, v = L.linalg.eigh(x)
    return _w(L, v @ L.diag_embed(w * w) @ v.mT)


def _svd_recompose(L, x, full):
    u, s, vh = L.linalg.svd(x, full_matrices=full)
    k = s.shape[-1]
    return _w(L, u[..., :k] @ L.diag_embed(s.exp()) @ vh[..., :k, :])


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, x = CASES[name]
    check(fn, x, rtol=1e-6, atol=1e-8, same_grad_fn=False)
    check(fn, x.astype(np.float32), rtol=2e-3, atol=2e-3, same_grad_fn=False)


def test_values_where_unique():
    """The factors themselves (LAPACK's sign conventions, as torch's CPU ones)."""
    for fn, x in ((lambda L, x: L.linalg.qr(x), TALL), (lambda L, x: L.linalg.qr(x, "r")[1], TALL),
                  (lambda L, x: L.linalg.svd(x)[1], WIDE),
                  (lambda L, x: L.linalg.cholesky_ex(_sym(L, x)), SPD),
                  (lambda L, x: L.linalg.slogdet(-x), SQB),
                  (lambda L, x: L.linalg.eigvalsh(x, UPLO="U"), SQB)):
        check(fn, x, grad=False)


def test_multi_dot():
    shapes = [(5,), (5, 2), (2, 30), (30, 3), (3,)]
    xs = [R.standard_normal(s) for s in shapes]
    check(lambda L, *t: L.linalg.multi_dot(list(t)), *xs, same_grad_fn=False)
    check(lambda L, *t: L.linalg.multi_dot(t), *xs[1:4], same_grad_fn=False)
    check(lambda L, *t: L.linalg.multi_dot(t), xs[0], xs[1], same_grad_fn=False)


def test_logdet_signs_and_singular():
    for x in (np.diag([1.0, -2.0]), np.zeros((2, 2)), np.diag([2.0, 3.0])):
        check(lambda L, a: (L.logdet(a), *L.linalg.slogdet(a)), x, grad=False)
    check(lambda L, a: L.linalg.matrix_power(a, 0), SQB, grad=False)


def test_cholesky_ex_info():
    bad = np.stack([SPD[0], np.array([[1.0, 2, 0], [2, 1, 0], [0, 0, 1]])])
    e = ember.linalg.cholesky_ex(ember.tensor(bad))
    t = torch.linalg.cholesky_ex(torch.tensor(bad))
    np.testing.assert_array_equal(e.info.numpy(), t.info.numpy())
    assert e.info.dtype == ember.int32
    np.testing.assert_allclose(e.L[0].numpy(), t.L[0].numpy())


ERRORS = [
    lambda L: L.linalg.cholesky(L.tensor([[1.0, 2], [2, 1]])),
    lambda L: L.linalg.cholesky(L.tensor([[[1.0, 2], [2, 1]]] * 2)),
    lambda L: L.linalg.cholesky(L.zeros(2, 3)),
    lambda L: L.linalg.cholesky_ex(L.tensor([[1.0, 2], [2, 1]]), check_errors=True),
    lambda L: L.linalg.eigh(L.zeros(2, 3)),
    lambda L: L.linalg.eigh(L.eye(2), UPLO="X"),
    lambda L: L.linalg.qr(L.zeros(3)),
    lambda L: L.linalg.qr(L.zeros(3, 3), mode="x"),
    lambda L: L.linalg.svd(L.zeros(3)),
    lambda L: L.linalg.slogdet(L.zeros(2, 3)),
    lambda L: L.linalg.matrix_power(L.zeros(2, 3), 2),
    lambda L: L.linalg.matrix_power(L.zeros(2, 2), -1),
    lambda L: L.linalg.multi_dot([L.zeros(2, 3)]),
    lambda L: L.linalg.multi_dot([L.zeros(2, 3), L.zeros(4, 5)]),
    lambda L: L.linalg.multi_dot([L.zeros(2, 2, 3), L.zeros(4, 5)]),
    lambda L: L.linalg.multi_dot([L.zeros(2, 3), L.zeros(3, 3, 5)]),
    lambda L: L.linalg.multi_dot([L.zeros(2, 3), L.zeros(3, 5, dtype=L.float64)]),
    lambda L: L.linalg.qr(L.randn(3, 3, requires_grad=True), "r")[1].sum().backward(),
    lambda L: L.linalg.qr(L.randn(4, 3, requires_grad=True), "complete")[1].sum().backward(),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_as_torch(i):
    with pytest.raises(Exception) as want:
        ERRORS[i](torch)
    with pytest.raises(Exception) as got:
        ERRORS[i](ember)
    assert isinstance(got.value, RuntimeError)
    assert isinstance(got.value, ember.linalg.LinAlgError) == isinstance(
        want.value, torch.linalg.LinAlgError)
    assert str(got.value) == str(want.value)


def test_torch_svd_forms():
    """torch.svd: V (not Vh), complete factors without ``some``, zero-filled U and V without
    ``compute_uv``; torch.qr(some=False) complete. (The complete factors' extra columns span a
    null space in no unique basis: their shapes are compared.)"""
    for x in (TALL, WIDE):
        check(lambda L, a: [t.abs()[..., :3] for t in L.svd(a, some=False)], x, grad=False)
        assert [tuple(t.shape) for t in ember.svd(ember.tensor(x), some=False)] == [
            tuple(t.shape) for t in torch.svd(torch.tensor(x), some=False)]
        check(lambda L, a: L.svd(a, compute_uv=False), x, grad=False)
        check(lambda L, a: L.svd(a, some=False, compute_uv=False), x, grad=False)
        check(lambda L, a: L.qr(a, some=False), x, grad=False)


def test_eigh_gradient_on_an_unsymmetrised_input_projects_as_torch():
    """The input itself (not x + x^T) requires grad, so the gradient's asymmetric part shows:
    torch keeps only the skew part of V^T gV (the loss reads V's squares: sign-free)."""
    a = SPD[0]
    check(lambda L, x: (L.linalg.eigh(x)[1] ** 2 * L.tensor(WEIGHT[:3, :3])).sum()
          + L.linalg.eigh(x)[0].pow(2).sum(), a, second=True, same_grad_fn=False)


def test_slogdet_sign_shares_the_node_as_torch():
    """sign and logabsdet come from one node (sign requires grad, its gradient is zero)."""
    for lib in (torch, ember):
        a = lib.tensor(SQB, requires_grad=True)
        sign, logabs = lib.linalg.slogdet(a)
        assert sign.requires_grad and sign.grad_fn is logabs.grad_fn
        assert sign.grad_fn.name() == "LinalgSlogdetBackward0"
        assert not lib.linalg.slogdet(a.detach()).sign.requires_grad
    check(lambda L, x: L.linalg.slogdet(x).sign * 2 + L.linalg.slogdet(x)[1], SQB)
