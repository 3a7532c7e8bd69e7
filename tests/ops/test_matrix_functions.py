"""torch.dist, torch.matrix_exp and torch.linalg.eigvalsh against torch: values, gradients, second
derivatives where ember implements them, node names and errors."""
import math

import numpy as np
import pytest
import torch

import ember
from tests.oracle import check, same_error

rng = np.random.default_rng(0)


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, math.inf])
def test_dist_matches_torch(p):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((4,))
    check(lambda lib, x, y: lib.dist(x, y, p), a, b)


def test_dist_orders_zero_and_minus_inf():
    a, b = rng.standard_normal((2, 5)), rng.standard_normal((2, 5))
    b[0, :2] = a[0, :2]  # two equal entries: order 0 counts the others
    check(lambda lib, x, y: lib.dist(x, y, 0), a, b, grad=False)  # (torch's backward fails)
    check(lambda lib, x, y: lib.dist(x, y, -math.inf), a, b + 0.5, second=False,
          same_grad_fn=False)


def test_dist_is_a_tensor_method_with_torch_node_name():
    x = ember.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
    y = ember.tensor([[1.0, 0.0], [0.0, 1.0]])
    out = x.dist(y)
    assert type(out.grad_fn).__name__ == "DistBackward0"
    assert math.isclose(out.item(), math.sqrt(4 + 9 + 16), rel_tol=1e-6)


def test_dist_errors_match_torch():
    same_error(lambda lib: lib.dist(lib.ones(2), 1.0))
    same_error(lambda lib: lib.dist(lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.int64)))


def test_dist_promotes_dtypes_as_torch():
    a, b = rng.standard_normal((3,)).astype(np.float32), rng.standard_normal((3,))
    check(lambda lib, x, y: lib.dist(x, y), a, b, second=False)


@pytest.mark.parametrize("shape,scale", [((3, 3), 0.3), ((2, 4, 4), 1.0), ((3, 3), 6.0)])
def test_matrix_exp_matches_torch(shape, scale):
    a = rng.standard_normal(shape) * scale
    check(lambda lib, x: lib.matrix_exp(x), a, rtol=1e-7, atol=1e-9)
    check(lambda lib, x: lib.linalg.matrix_exp(x), a.astype(np.float32), rtol=2e-5, atol=1e-5,
          second=False)


@pytest.mark.parametrize("dtype,tol", [(np.complex128, 1e-12), (np.complex64, 2e-5)])
def test_matrix_exp_of_complex_matrices_as_torch(dtype, tol):
    """Values, gradients and second derivatives (torch's conjugate convention)."""
    x, seed = (rng.standard_normal((2, 2, 3, 3, 2)) @ np.array([1, 1j])).astype(dtype)
    got = []
    for lib in (ember, torch):
        a = lib.tensor(x, requires_grad=True)
        out = lib.matrix_exp(a)
        g, = lib.autograd.grad(out, a, lib.tensor(seed), create_graph=True)
        gg, = lib.autograd.grad((g * lib.tensor(seed)).abs().sum(), a)
        got.append([t.detach().resolve_conj().numpy() for t in (out, g, gg)])
    for ours, theirs in zip(*got):
        np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol)


def test_matrix_exp_of_a_skew_matrix_is_orthogonal_as_torch():
    x = rng.standard_normal((4, 4)).astype(np.float32)
    skew = x - x.T
    e = ember.tensor(skew).matrix_exp()
    t = torch.tensor(skew).matrix_exp()
    np.testing.assert_allclose(e._data, t.numpy(), rtol=1e-5, atol=1e-6)
    assert e.dtype == ember.float32


def test_matrix_exp_rejects_what_torch_rejects():
    same_error(lambda lib: lib.matrix_exp(lib.ones(2, 3)))
    same_error(lambda lib: lib.matrix_exp(lib.ones(3)))


def _sym(n, batch=()):
    x = rng.standard_normal(batch + (n, n))
    return x + np.swapaxes(x, -1, -2)


@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigvalsh_matches_torch(uplo):
    check(lambda lib, x: lib.linalg.eigvalsh(x, UPLO=uplo), _sym(4, (2,)), second=False)


def test_eigvalsh_reads_only_one_triangle_as_torch():
    a = rng.standard_normal((3, 3))  # not symmetric: the UPLO triangle alone counts
    for uplo in ("L", "U"):
        check(lambda lib, x: lib.linalg.eigvalsh(x, UPLO=uplo), a, grad=False)


def test_eigvalsh_second_derivative_matches_torch():
    check(lambda lib, x: lib.linalg.eigvalsh(x), _sym(3, ()), second=True, same_grad_fn=False)


def test_eigvalsh_errors_match_torch():
    same_error(lambda lib: lib.linalg.eigvalsh(lib.ones(2, 2), UPLO="X"))
    same_error(lambda lib: lib.linalg.eigvalsh(lib.ones(2, 3)))


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_matrix_exp_of_a_non_finite_matrix_is_nan_as_torch(value):
    a = np.eye(2, dtype=np.float32)
    a[0, 1] = value
    e, t = ember.matrix_exp(ember.tensor(a)), torch.matrix_exp(torch.tensor(a))
    np.testing.assert_array_equal(np.isnan(e._data), np.isnan(t.numpy()))
