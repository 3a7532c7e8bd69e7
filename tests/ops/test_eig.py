"""torch.linalg.eig / eigvals (ember/ops/eig.py) against torch: eigenvalues (as sets, their
order being LAPACK's), eigenvectors up to phase, dtypes, gradients of phase-invariant losses
(torch's and finite differences), torch's phase check, its refusals, and the removed torch.eig."""
import numpy as np
import pytest
import torch

import ember

rng = np.random.default_rng(0)


def _matrix(shape, dtype):
    x = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def _sorted(values):
    v = np.asarray(values)
    if not v.size:
        return v
    return np.sort_complex(np.round(v, 6).reshape(-1, v.shape[-1])).reshape(v.shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("shape", [(4, 4), (2, 3, 5, 5), (1, 1), (0, 3, 3), (2, 0, 0)])
def test_eig_values_vectors_and_dtypes_as_torch(dtype, shape):
    x = _matrix(shape, dtype)
    L, V = ember.linalg.eig(ember.tensor(x))
    tL, tV = torch.linalg.eig(torch.tensor(x))
    values = ember.linalg.eigvals(ember.tensor(x))
    for ours in (L, V, values):
        assert str(ours.dtype).split(".")[1] == str(tL.dtype).split(".")[1]
    assert tuple(L.shape) == tuple(tL.shape) and tuple(V.shape) == tuple(tV.shape)
    tol = 1e-4 if dtype in (np.float32, np.complex64) else 1e-10
    np.testing.assert_allclose(_sorted(L.numpy()), _sorted(tL.numpy()), atol=tol)
    np.testing.assert_allclose(_sorted(values.numpy()), _sorted(tL.numpy()), atol=tol)
    a, w, v = x.astype(V.numpy().dtype), L.numpy(), V.numpy()
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tol * 10)  # A V = V diag(L)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1, atol=tol)


def test_eig_names_its_fields_and_grad_fn_as_torch():
    x = _matrix((3, 3), np.float64)
    out = ember.linalg.eig(ember.tensor(x, requires_grad=True))
    theirs = torch.linalg.eig(torch.tensor(x, requires_grad=True))
    assert type(out).__name__ == "linalg_eig"
    assert out.eigenvalues is out[0] and out.eigenvectors is out[1]
    assert type(out[0].grad_fn).__name__ == type(theirs[0].grad_fn).__name__
    values = ember.linalg.eigvals(ember.tensor(x, requires_grad=True))
    assert type(values.grad_fn).__name__ == "LinalgEigBackward0"


def _loss(lib, A, which):
    """Losses that depend on neither the order of the eigenpairs nor the eigenvectors' phase."""
    L, V = lib.linalg.eig(A)
    weights = lib.arange(1, A.shape[-1] + 1, dtype=V.real.dtype).unsqueeze(-1)
    value_part = (L.abs() ** 1.5).sum() + (L.real * L.imag).sum() + L.real.sum()
    vector_part = (V.abs() ** 2 * weights).sum() + (V.abs() * weights ** 2).sum()
    if which == "values":
        return value_part
    if which == "eigvals":
        L = lib.linalg.eigvals(A)
        return (L.abs() ** 1.5).sum() + (L.real * L.imag).sum()
    return vector_part if which == "vectors" else value_part + vector_part


def _grads(lib, x, which, create_graph=False):
    A = lib.tensor(x, requires_grad=True)
    (g,) = lib.autograd.grad(_loss(lib, A, which), A, create_graph=create_graph)
    return A, g


@pytest.mark.parametrize("dtype", [np.float64, np.complex128, np.float32])
@pytest.mark.parametrize("which", ["values", "vectors", "both", "eigvals"])
def test_eig_gradients_match_torch(dtype, which):
    x = _matrix((2, 4, 4), dtype)
    ours, theirs = _grads(ember, x, which)[1], _grads(torch, x, which)[1]
    assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
    tol = 2e-3 if dtype == np.float32 else 1e-8
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("which", ["values", "both"])
def test_eig_gradient_matches_finite_differences(which):
    x = _matrix((4, 4), np.float64)
    _, g = _grads(ember, x, which)
    step, numeric = 1e-6, np.empty_like(x)
    for index in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[index] += step
        down[index] -= step
        numeric[index] = (_loss(ember, ember.tensor(up), which).item()
                          - _loss(ember, ember.tensor(down), which).item()) / (2 * step)
    np.testing.assert_allclose(g.numpy(), numeric, rtol=1e-5, atol=1e-6)


def test_eig_second_derivative_matches_torch():
    x = _matrix((3, 3), np.float64)
    results = []
    for lib in (ember, torch):
        A, g = _grads(lib, x, "both", create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), A)
        results.append(gg.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6, atol=1e-8)


def test_phase_dependent_loss_raises_as_torch():
    x = np.random.default_rng(5).standard_normal((3, 3))  # a complex pair of eigenvalues
    messages = []
    for lib in (torch, ember):
        A = lib.tensor(x, requires_grad=True)
        V = lib.linalg.eig(A)[1]
        with pytest.raises(RuntimeError) as info:
            V.sum().abs().backward()
        messages.append(str(info.value))
        assert A.grad is None
    assert messages[0] == messages[1]
    assert "e^{i phi}" in messages[1]


@pytest.mark.parametrize("fn", ["eig", "eigvals"])
@pytest.mark.parametrize("make", [
    lambda lib: lib.ones(3, 3, dtype=lib.int64),
    lambda lib: lib.ones(2, 3, dtype=lib.int32),
    lambda lib: lib.ones(3),
    lambda lib: lib.ones(2, 3),
    lambda lib: lib.ones(3, 3, dtype=lib.float16),
    lambda lib: lib.tensor([[float("inf"), 1.0], [0.0, 1.0]]),
    lambda lib: lib.tensor([[1.0, 2.0], [3.0, float("nan")]], dtype=lib.float64),
])
def test_eig_refusals_as_torch(fn, make):
    caught = []
    for lib in (torch, ember):
        A = make(lib)
        if fn == "eigvals" and A.dtype.is_floating_point and A.dtype != lib.float16:
            A.requires_grad_()  # torch's eigvals refuses non-finite input only on this path
        with pytest.raises((RuntimeError, NotImplementedError)) as info:
            getattr(lib.linalg, fn)(A)
        caught.append((info.type, str(info.value)))
    assert caught[1] == caught[0]


def test_eigvals_refuses_non_finite_input_without_grad():
    # torch's eigvals without a gradient hands NaN to LAPACK (NaN results, or a crash);
    # ember refuses as torch's eig path does
    with pytest.raises(RuntimeError, match="should not contain infs or NaNs"):
        ember.linalg.eigvals(ember.tensor([[1.0, float("nan")], [0.0, 1.0]]))


def test_removed_torch_eig_raises_as_torch():
    caught = []
    for lib in (torch, ember):
        A = lib.randn(3, 3)
        for call in (lambda: lib.eig(A), lambda: A.eig(), lambda: A.eig(eigenvectors=True)):
            with pytest.raises(RuntimeError) as info:
                call()
            caught.append(str(info.value))
    assert caught[:3] == caught[3:]
    assert "torch.linalg.eig" in caught[3]


def test_eig_out_as_torch():
    x = _matrix((3, 3), np.float64)
    L, V = ember.empty(3, dtype=ember.complex128), ember.empty(3, 3, dtype=ember.complex128)
    result = ember.linalg.eig(ember.tensor(x), out=(L, V))
    assert result[0] is L and result[1] is V
    np.testing.assert_allclose(_sorted(L.numpy()), _sorted(np.linalg.eigvals(x)), atol=1e-10)


def test_complex_solve_matches_torch_and_refuses_mixed_dtypes():
    a, b = _matrix((3, 3), np.complex128), _matrix((3, 2), np.complex128)
    results = []
    for lib in (ember, torch):
        A, B = lib.tensor(a, requires_grad=True), lib.tensor(b, requires_grad=True)
        X = lib.linalg.solve(A, B)
        (X.abs() ** 2).sum().backward()
        results.append([X.detach().numpy(), A.grad.numpy(), B.grad.numpy()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
    caught = []
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as info:
            lib.linalg.solve(lib.tensor(a), lib.tensor(b.real))
        caught.append(str(info.value))
    assert caught[0] == caught[1]


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_eig_forward_mode_tangents_match_torch(dtype):
    x, d = _matrix((2, 3, 3), dtype), _matrix((2, 3, 3), dtype)
    results = []
    for lib in (ember, torch):
        fwAD = lib.autograd.forward_ad
        with fwAD.dual_level():
            L, V = lib.linalg.eig(fwAD.make_dual(lib.tensor(x), lib.tensor(d)))
            results.append([fwAD.unpack_dual(L).tangent.numpy(),
                            fwAD.unpack_dual(V).tangent.numpy()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-10)
