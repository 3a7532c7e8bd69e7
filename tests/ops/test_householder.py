"""Householder reflectors (ember/ops/householder.py) against torch 2.13: geqrf's compact QR
(values, no derivative), linalg.householder_product / orgqr and ormqr (values, gradients and
second derivatives, float32/float64/complex, batched), out=, Tensor methods, errors."""
import numpy as np
import pytest
import torch
from oracle import check, close, same_error

import ember

R = np.random.default_rng(0)
DTYPES = {"float64": (np.float64, 1e-10), "float32": (np.float32, 1e-5),
          "complex128": (np.complex128, 1e-10), "complex64": (np.complex64, 1e-5)}


def _draw(shape, dtype):
    x = R.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * R.standard_normal(shape)
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", sorted(DTYPES))
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (3, 5), (2, 4, 3), (2, 1, 3, 2), (0, 3),
                                   (2, 0, 3), (3, 0)])
def test_geqrf_matches_torch(shape, dtype):
    npdtype, tol = DTYPES[dtype]
    x = _draw(shape, npdtype)
    ours, theirs = ember.geqrf(ember.tensor(x)), torch.geqrf(torch.tensor(x))
    close(ours.a, theirs.a, tol * 10, tol * 10)
    close(ours.tau, theirs.tau, tol * 10, tol * 10)
    assert ember.tensor(x).geqrf().tau.shape == theirs.tau.shape


@pytest.mark.parametrize("matrix", [np.eye(3), np.zeros((3, 3)), np.eye(4, 2)])
def test_geqrf_without_reflection_has_zero_tau(matrix):
    ours, theirs = ember.geqrf(ember.tensor(matrix)), torch.geqrf(torch.tensor(matrix))
    close(ours, theirs, 0, 0)
    assert repr(ours).startswith("torch.return_types.geqrf(\na=")


def test_geqrf_has_no_derivative():
    x = ember.randn(3, 3, requires_grad=True)
    a, tau = ember.geqrf(x)
    assert a.grad_fn is tau.grad_fn and a.grad_fn.name() == "GeqrfBackward0"
    for out in (a, tau):
        with pytest.raises(NotImplementedError, match="^the derivative for 'geqrf' is not "
                                                      "implemented.$"):
            out.sum().backward(retain_graph=True)


def test_geqrf_has_no_forward_derivative():
    def call(lib):
        forward_ad = lib.autograd.forward_ad
        with forward_ad.dual_level():
            lib.geqrf(forward_ad.make_dual(lib.ones(3, 3), lib.ones(3, 3)))
    same_error(call)


def test_householder_product_forward_derivative_as_torch():
    a, tau = _compact((4, 3), np.float64)
    direction = R.standard_normal((4, 3))
    tangents = []
    for lib in (ember, torch):
        forward_ad = lib.autograd.forward_ad
        with forward_ad.dual_level():
            dual = forward_ad.make_dual(lib.tensor(a), lib.tensor(direction))
            out = lib.linalg.householder_product(dual, lib.tensor(tau))
            tangents.append(forward_ad.unpack_dual(out).tangent)
    close(*tangents, 1e-10, 1e-10)


def test_geqrf_then_householder_product_is_qr():
    x = _draw((2, 5, 3), np.float64)
    a, tau = ember.geqrf(ember.tensor(x))
    q = ember.linalg.householder_product(a, tau)
    np.testing.assert_allclose((q @ a.triu()[..., :3, :]).numpy(), x, atol=1e-12)


def _compact(shape, dtype, k=None):
    """A compact reflector matrix and tau, as geqrf makes them (k: fewer reflectors)."""
    a, tau = torch.geqrf(torch.tensor(_draw(shape, dtype)))
    return a.numpy(), tau[..., :k].numpy().copy()


def _weighted(L, out):
    w = np.linspace(-1.0, 2.0, out.shape[-2] * out.shape[-1]).reshape(out.shape[-2:])
    return out * L.tensor(w, dtype=out.dtype)


@pytest.mark.parametrize("k", [None, 1, 0])
@pytest.mark.parametrize("shape", [(4, 3), (3, 3), (2, 5, 2)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_householder_product_matches_torch(shape, k, dtype):
    a, tau = _compact(shape, dtype, k)
    tol = 1e-5 if dtype == np.float32 else 1e-10
    check(lambda L, x, t: _weighted(L, L.linalg.householder_product(x, t)), a, tau,
          rtol=tol, atol=tol, same_grad_fn=False)
    check(lambda L, x, t: _weighted(L, L.orgqr(x, t) + x.orgqr(t)), a, tau, rtol=tol, atol=tol,
          second=False, same_grad_fn=False)


def test_node_names_as_torch():
    a, tau = _compact((4, 3), np.float64)
    for lib in (ember, torch):
        x, t = lib.tensor(a, requires_grad=True), lib.tensor(tau)
        names = (lib.linalg.householder_product(x, t).grad_fn.name(),
                 lib.orgqr(x, t).grad_fn.name(), lib.ormqr(x, t, lib.ones(4, 2,
                                                                       dtype=x.dtype)).grad_fn.name())
        assert names == ("LinalgHouseholderProductBackward0",) * 2 + ("OrmqrBackward0",)


def test_householder_product_of_random_reflectors():
    a, tau = R.standard_normal((2, 4, 3)), R.standard_normal((2, 3))
    check(lambda L, x, t: _weighted(L, L.linalg.householder_product(x, t)), a, tau,
          rtol=1e-10, atol=1e-10, same_grad_fn=False)


def _complex_grads(fn, inputs, tol):
    """Values and vector-Jacobian products (complex seed) of fn(lib, *inputs) against torch's."""
    results, seed = [], None
    for lib in (ember, torch):
        xs = [lib.tensor(x, requires_grad=True) for x in inputs]
        out = fn(lib, *xs)
        seed = _draw(tuple(out.shape), inputs[0].dtype) if seed is None else seed
        results.append((out, lib.autograd.grad(out, xs, lib.tensor(seed))))
    close(results[0][0], results[1][0], tol, tol, "forward")
    close(results[0][1], results[1][1], tol, tol, "gradient")


@pytest.mark.parametrize("dtype", [np.complex128, np.complex64])
def test_householder_product_complex(dtype):
    a, tau = _compact((2, 4, 3), dtype)
    tol = 1e-4 if dtype == np.complex64 else 1e-10
    _complex_grads(lambda L, x, t: L.linalg.householder_product(x, t), (a, tau), tol)


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_gradcheck(dtype):
    a, tau = _compact((4, 3), dtype)
    other = _draw((4, 2), dtype)
    inputs = [ember.tensor(v, requires_grad=True) for v in (a, tau, other)]
    assert ember.autograd.gradcheck(ember.linalg.householder_product, inputs[:2])
    for left, transpose in ((True, False), (True, True)):
        assert ember.autograd.gradcheck(
            lambda x, t, c: ember.ormqr(x, t, c, left, transpose), inputs)


ORMQR = [(True, False), (True, True), (False, False), (False, True)]


@pytest.mark.parametrize("left,transpose", ORMQR)
@pytest.mark.parametrize("shape,k", [((4, 3), 3), ((2, 4, 4), 4), ((3, 5), 3), ((4, 2), 2)])
def test_ormqr_matches_torch(shape, k, left, transpose):
    a, tau = _compact(shape, np.float64, k)
    other = _draw(shape[:-2] + ((shape[-2], 2) if left else (2, shape[-2])), np.float64)
    check(lambda L, x, t, c: _weighted(L, L.ormqr(x, t, c, left=left, transpose=transpose)),
          a, tau, other, rtol=1e-10, atol=1e-10, same_grad_fn=False)


@pytest.mark.parametrize("left,transpose", ORMQR)
def test_ormqr_float32_complex_and_method(left, transpose):
    a, tau = _compact((2, 4, 3), np.float32)
    other = _draw((2, 4, 3) if left else (2, 3, 4), np.float32)
    check(lambda L, x, t, c: _weighted(L, x.ormqr(t, c, left, transpose)), a, tau, other,
          rtol=1e-5, atol=1e-5, second=False, same_grad_fn=False)
    a, tau = _compact((2, 4, 3), np.complex128)
    other = _draw((2, 4, 2) if left else (2, 2, 4), np.complex128)
    _complex_grads(lambda L, x, t, c: L.ormqr(x, t, c, left=left, transpose=transpose),
                   (a, tau, other), 1e-10)


def test_ormqr_without_reflectors_is_a_copy():
    other = ember.randn(0, 2)
    out = ember.ormqr(ember.randn(0, 0), ember.randn(0), other)
    assert out is not other and out.shape == (0, 2)


def test_out():
    x = _draw((4, 3), np.float64)
    a, tau = ember.empty(0, dtype=ember.float64), ember.empty(0, dtype=ember.float64)
    got = ember.geqrf(ember.tensor(x), out=(a, tau))
    assert got[0] is a and got[1] is tau
    close(a, torch.geqrf(torch.tensor(x)).a, 1e-12, 1e-12)
    q = ember.empty(0, dtype=ember.float64)
    assert ember.linalg.householder_product(a, tau, out=q) is q
    close(q, torch.linalg.householder_product(*torch.geqrf(torch.tensor(x))), 1e-12, 1e-12)
    same_error(lambda L: L.geqrf(L.randn(3, 3, requires_grad=True),
                                 out=(L.empty(0), L.empty(0))))


def _r(*shape, dtype="float32"):
    return lambda L: L.ones(shape, dtype=getattr(L, dtype))


G, HP, OM = "geqrf", "hp", "ormqr"
ERRORS = [
    (G, _r(3)), (G, _r(3, 3, dtype="int64")), (G, _r(3, 3, dtype="float16")),
    (G, _r(3, 3, dtype="bfloat16")), (G, _r(3, 3, dtype="bool")),
    (HP, _r(4), _r(3)), (HP, _r(3, 4), _r(3)), (HP, _r(3, 4), _r()), (HP, _r(4, 3), _r(4)),
    (HP, _r(4, 3), _r()), (HP, _r(4, 3), _r(1, 3)), (HP, _r(2, 4, 3), _r(3)),
    (HP, _r(2, 4, 3), _r(3, 3)), (HP, _r(2, 4, 3), _r(2, 5)), (HP, _r(0, 3), _r(0)),
    (HP, _r(4, 3), _r(3, dtype="float64")), (HP, _r(4, 3, dtype="int64"), _r(3)),
    (HP, _r(4, 3, dtype="complex64"), _r(3)), (HP, _r(4, 3, dtype="int64"), _r(3, dtype="int64")),
    (HP, _r(4, 3, dtype="float16"), _r(3, dtype="float16")),
    (HP, _r(4, 3, dtype="bfloat16"), _r(3, dtype="bfloat16")),
    (OM, _r(4), _r(3), _r(4, 2)), (OM, _r(4, 3), _r(3), _r(4)), (OM, _r(4), _r(), _r(4)),
    (OM, _r(4, 3), _r(3), _r(3, 2)), (OM, _r(4, 3), _r(3), _r(2, 3), False),
    (OM, _r(4, 3), _r(4), _r(5, 2)), (OM, _r(4, 3), _r(2), _r(4, 2)),
    (OM, _r(4, 6), _r(6), _r(4, 2)), (OM, _r(4, 3), _r(4), _r(2, 4), False),
    (OM, _r(4, 3), _r(3, 1), _r(4, 2)), (OM, _r(4, 3), _r(), _r(4, 2)),
    (OM, _r(2, 4, 3), _r(3), _r(4, 2)), (OM, _r(4, 3), _r(2, 3), _r(2, 4, 2)),
    (OM, _r(2, 4, 3), _r(2, 3), _r(4, 2)), (OM, _r(4, 3), _r(3), _r(2, 3, 4, 2)),
    (OM, _r(2, 4, 3), _r(3, 3), _r(3, 4, 2)), (OM, _r(2, 4, 3), _r(2, 3), _r(3, 4, 2)),
    (OM, _r(4, 3, dtype="float64"), _r(3), _r(4, 2)),
    (OM, _r(4, 3), _r(3, dtype="float64"), _r(4, 2, dtype="float64")),
    (OM, _r(4, 3), _r(3), _r(4, 2, dtype="complex64")),
    (OM, _r(4, 3, dtype="int64"), _r(3, dtype="int64"), _r(4, 2, dtype="int64")),
    (OM, _r(4, 3, dtype="float16"), _r(3, dtype="float16"), _r(4, 2, dtype="float16")),
]


@pytest.mark.parametrize("case", ERRORS, ids=range(len(ERRORS)))
def test_errors_as_torch(case):
    name, *makers = case
    extra = [m for m in makers if not callable(m)]
    makers = [m for m in makers if callable(m)]
    functions = {G: lambda L: L.geqrf, HP: lambda L: L.linalg.householder_product,
                 OM: lambda L: L.ormqr}
    same_error(lambda L: functions[name](L)(*(m(L) for m in makers), *extra))
