"""ember/ops/linalg_solvers.py against torch 2.13: pinv/pinverse, lstsq (every CPU driver's
fields), matrix_rank, cond, solve_triangular/triangular_solve, vecdot, diagonal, matmul and the
*_ex forms: values, gradients (and second derivatives) on well-conditioned inputs, float64 and
float32, batched; errors as torch's."""
import warnings

import numpy as np
import pytest
import torch
from oracle import check

import ember

R = np.random.default_rng(0)
SQ = R.standard_normal((3, 3)) + 3 * np.eye(3)
SQB = R.standard_normal((2, 3, 3)) + 3 * np.eye(3)
TALL = R.standard_normal((2, 5, 3))
WIDE = R.standard_normal((2, 3, 5))
RHS = R.standard_normal((2, 5, 2))
RHS3 = R.standard_normal((2, 3, 4))
V3 = R.standard_normal((2, 3))
LOW_RANK = R.standard_normal((4, 2)) @ R.standard_normal((2, 5))

CASES = {
    "pinv_tall": (lambda L, x: L.linalg.pinv(x), TALL),
    "pinv_wide": (lambda L, x: L.linalg.pinv(x, rtol=1e-3), WIDE),
    "pinv_hermitian": (lambda L, x: L.linalg.pinv(x + x.mT, hermitian=True), SQB),
    "pinverse": (lambda L, x: L.pinverse(x) + x.pinverse(rcond=1e-10), TALL),
    "cond": (lambda L, x: L.linalg.cond(x), TALL),
    "cond_neg2": (lambda L, x: L.linalg.cond(x, -2), WIDE),
    "cond_fro": (lambda L, x: L.linalg.cond(x, "fro"), SQB),
    "cond_1": (lambda L, x: L.linalg.cond(x, 1), SQB),
    "vecdot": (lambda L, x: L.linalg.vecdot(x, x[0], dim=-2), TALL),
    "diagonal": (lambda L, x: L.linalg.diagonal(x, offset=1), WIDE),
    "matmul": (lambda L, x: L.linalg.matmul(x, x.mT), WIDE),
}
TWO = {
    "lstsq": (lambda L, a, b: L.linalg.lstsq(a, b).solution, TALL, RHS),
    "lstsq_vector": (lambda L, a, b: L.linalg.lstsq(a, b).solution, TALL, RHS[..., 0]),
    "lstsq_gelsd": (lambda L, a, b: L.linalg.lstsq(a, b, driver="gelsd")[:2], TALL, RHS),
    "lstsq_gels": (lambda L, a, b: L.linalg.lstsq(a, b, driver="gels").residuals, TALL, RHS),
    "lstsq_wide": (lambda L, a, b: L.linalg.lstsq(a, b, driver="gelsd").solution, WIDE,
                   RHS3[..., :2]),
    "solve_triangular_upper": (lambda L, a, b: L.linalg.solve_triangular(a, b, upper=True),
                               SQB, RHS3),
    "solve_triangular_lower_right": (
        lambda L, a, b: L.linalg.solve_triangular(a, b.mT, upper=False, left=False), SQB, RHS3),
    "solve_triangular_unit": (lambda L, a, b: L.linalg.solve_triangular(
        a, b, upper=False, unitriangular=True), SQB, RHS3),
    "solve_triangular_batch_b": (lambda L, a, b: L.linalg.solve_triangular(
        a, b, upper=True), SQB, RHS3[0, :, :2]),
    "triangular_solve": (lambda L, a, b: L.triangular_solve(b, a), SQB, RHS3),
    "triangular_solve_t": (lambda L, a, b: b.triangular_solve(a, False, True, True)[0], SQB,
                           RHS3),
    "inv_ex": (lambda L, a, b: L.linalg.inv_ex(a).inverse @ b, SQB, RHS3),
    "solve_ex": (lambda L, a, b: L.linalg.solve_ex(a, b).result, SQB, V3),
}


VALUES_ONLY = {"cond_1", "cond_fro"}  # torch's own backward raises there (inv_ex in place)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, x = CASES[name]
    grad = name not in VALUES_ONLY
    check(fn, x, rtol=1e-6, atol=1e-8, same_grad_fn=False, grad=grad)
    check(fn, x.astype(np.float32), rtol=2e-3, atol=2e-3, same_grad_fn=False, grad=grad)


@pytest.mark.parametrize("name", sorted(TWO))
def test_two_inputs_match_torch(name):
    fn, a, b = TWO[name]
    check(fn, a, b, rtol=1e-6, atol=1e-8, same_grad_fn=False)
    check(fn, a.astype(np.float32), b.astype(np.float32), rtol=2e-3, atol=2e-3,
          same_grad_fn=False)


def test_fields_and_ranks():
    """lstsq's rank/singular_values per driver, matrix_rank's tolerances, info of the _ex forms
    (values only: integers and empty tensors)."""
    for driver in (None, "gelsy", "gelsd", "gelss", "gels"):
        check(lambda L, a, b: L.linalg.lstsq(a, b, driver=driver), TALL, RHS, grad=False)
    for kwargs in ({}, {"atol": 0.5}, {"rtol": 0.3}, {"atol": 0.1, "rtol": 0.01},
                   {"hermitian": True}, {"tol": 1e-3}):
        check(lambda L, a: L.linalg.matrix_rank(a[..., :4, :4] if kwargs.get("hermitian")
                                                else a, **kwargs), LOW_RANK, grad=False)
    check(lambda L, a: L.linalg.pinv(a), LOW_RANK, grad=False)
    singular = np.stack([SQ, np.zeros((3, 3))])
    check(lambda L, a: L.linalg.inv_ex(a).info, singular, grad=False)
    check(lambda L, a: L.linalg.solve_ex(a, a).info, singular, grad=False)
    e = ember.linalg.inv_ex(ember.tensor(singular)).inverse
    assert np.isnan(e[1].numpy()).all() and e.dtype == ember.float64


ERRORS = [
    lambda L: L.linalg.lstsq(L.ones(5, 3), L.ones(5, 2), driver="x"),
    lambda L: L.linalg.lstsq(L.ones(5, 3), L.ones(4, 2)),
    lambda L: L.linalg.lstsq(L.ones(5, 3, dtype=L.float64), L.ones(5, 2)),
    lambda L: L.linalg.solve_triangular(L.eye(2), L.ones(2), upper=True),
    lambda L: L.linalg.solve_triangular(L.eye(2), L.ones(3, 1), upper=True),
    lambda L: L.linalg.solve_triangular(L.eye(2), L.ones(2, 3), upper=True, left=False),
    lambda L: L.linalg.pinv(L.ones(3)),
    lambda L: L.linalg.matrix_rank(L.ones(3)),
    lambda L: L.linalg.cond(L.ones(3)),
    lambda L: L.linalg.cond(L.ones(2, 3), 1),
    lambda L: L.linalg.inv_ex(L.zeros(2, 2), check_errors=True),
    lambda L: L.linalg.solve_ex(L.zeros(2, 2), L.ones(2), check_errors=True),
]


@pytest.mark.parametrize("i", range(len(ERRORS)))
def test_errors_as_torch(i):
    with pytest.raises(Exception) as want:
        ERRORS[i](torch)
    with pytest.raises(Exception) as got:
        ERRORS[i](ember)
    assert type(got.value).__mro__[1:] == type(want.value).__mro__[1:] or isinstance(
        got.value, RuntimeError)
    assert isinstance(got.value, ember.linalg.LinAlgError) == isinstance(
        want.value, torch.linalg.LinAlgError)
    assert str(got.value) == str(want.value)


# a batch mixing an invertible, an exactly singular, a near-singular (LU's pivot is tiny, not
# zero), a NaN and an inf matrix: each matrix's result is its own, as torch's
MIXED = np.stack([np.eye(2) * 2, [[1.0, 2.0], [2.0, 4.0]], [[1e-17, 1.0], [1.0, 1.0]],
                  [[1.0, 1.0], [1.0, 1.0 + 1e-15]], [[np.nan, 1.0], [1.0, 1.0]],
                  [[np.inf, 1.0], [1.0, 1.0]]])
SINGULAR_AT = np.array([False, True, False, False, False, False])


def _same_where_defined(got, want):
    """Equal values (NaN where torch has NaN); where torch's singular result is inf, ember's
    is NaN (the inverse does not exist)."""
    got, want = got.numpy(), want.numpy()
    keep = ~SINGULAR_AT.reshape((-1,) + (1,) * (got.ndim - 1))
    keep = np.broadcast_to(keep, got.shape)
    np.testing.assert_allclose(got[keep], want[keep], rtol=1e-12, equal_nan=True)
    assert np.isnan(got[~keep]).all()


def test_inv_ex_and_solve_ex_per_matrix_of_a_batch():
    t, e = torch.tensor(MIXED), ember.tensor(MIXED)
    want, got = torch.linalg.inv_ex(t), ember.linalg.inv_ex(e)
    np.testing.assert_array_equal(got.info.numpy(), want.info.numpy())
    _same_where_defined(got.inverse, want.inverse)
    for rhs in ((6, 2), (6, 2, 3)):
        want = torch.linalg.solve_ex(t, torch.ones(rhs, dtype=torch.float64))
        got = ember.linalg.solve_ex(e, ember.ones(rhs, dtype=ember.float64))
        np.testing.assert_array_equal(got.info.numpy(), want.info.numpy())
        _same_where_defined(got.result, want.result)


def test_nan_matrices_invert_and_solve_to_nan_as_torch():
    """NumPy refuses a NaN matrix as singular; torch (and ember) give NaN for it alone."""
    ok = MIXED[~SINGULAR_AT]
    check(lambda L, a: L.linalg.inv(a), ok, second=False)
    check(lambda L, a: L.linalg.solve(a, L.ones(5, 3, 2, dtype=a.dtype), left=False), ok,
          second=False)
    check(lambda L, a: L.linalg.solve(a, L.ones(5, 2, dtype=a.dtype)), ok, second=False)


@pytest.mark.parametrize("fn", [lambda L, a: L.linalg.svd(a), lambda L, a: L.linalg.svdvals(a),
                                lambda L, a: L.linalg.pinv(a), lambda L, a: L.linalg.cond(a),
                                lambda L, a: L.linalg.matrix_rank(a),
                                lambda L, a: L.linalg.matrix_norm(a, "nuc")])
def test_svd_of_nan_raises_torchs_linalg_error(fn):
    x = np.array([[1.0, np.nan], [0.5, 2.0]])
    with pytest.raises(torch.linalg.LinAlgError) as want:
        fn(torch, torch.tensor(x))
    with pytest.raises(ember.linalg.LinAlgError) as got:
        fn(ember, ember.tensor(x))
    assert str(got.value) == str(want.value)
    assert issubclass(ember.linalg.LinAlgError, RuntimeError)


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("poison", ["nan_in_B", "nan_in_A", "zero_pivot", "nan_off_triangle"])
def test_solve_triangular_spreads_nan_only_where_substitution_reads_it(poison, left, upper):
    """A NaN (or a zero pivot) reaches only the rows the substitution computes from it, as
    torch's trsm; ember solved by LU (NaN everywhere, a zero pivot raised 'singular')."""
    rng = np.random.default_rng(3)
    A = rng.standard_normal((4, 4)) + 4 * np.eye(4)
    B = rng.standard_normal((4, 3) if left else (3, 4))
    if poison == "nan_in_B":
        B[2, 1] = np.nan
    elif poison == "nan_in_A":
        A[1, 2] = A[2, 1] = np.nan
    elif poison == "zero_pivot":
        A[2, 2] = 0.0
    else:
        A[(3, 0) if upper else (0, 3)] = np.nan  # outside the triangle read: no effect
    got = []
    for lib in (torch, ember):
        got.append(lib.linalg.solve_triangular(lib.tensor(A), lib.tensor(B), upper=upper,
                                               left=left).numpy())
        if left:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # torch's deprecation of triangular_solve
                got.append(lib.triangular_solve(lib.tensor(B), lib.tensor(A),
                                                upper=upper)[0].numpy())
    half = len(got) // 2
    for e, t in zip(got[half:], got[:half]):
        np.testing.assert_allclose(e, t, rtol=1e-12, atol=1e-12, equal_nan=True)


def test_linalg_error_is_named_as_torchs_class():
    # torch.linalg.LinAlgError is torch._C._LinAlgError: a traceback prints that name
    with pytest.raises(torch.linalg.LinAlgError) as want:
        torch.linalg.inv(torch.zeros(2, 2))
    with pytest.raises(ember.linalg.LinAlgError) as got:
        ember.linalg.inv(ember.zeros(2, 2))
    assert type(got.value).__name__ == type(want.value).__name__
    import pickle  # (a DataLoader worker sends it pickled)
    assert str(pickle.loads(pickle.dumps(got.value))) == str(got.value)
