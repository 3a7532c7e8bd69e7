"""ember.linalg (ember/linalg.py) against torch.linalg: vector/matrix norms and their dispatch,
argument errors and the import path. The matrix functions' nodes (inv, solve, det, singular
values) are tested in tests/ops/test_linalg_extra.py."""
import math

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
    "norm": (lambda L, x: L.linalg.norm(x), M34),
    "norm_vector": (lambda L, x: L.linalg.norm(x[0]), M34),
    "norm_ord1_matrix": (lambda L, x: L.linalg.norm(x, ord=1), M34),
    "norm_inf_matrix": (lambda L, x: L.linalg.norm(x, math.inf), M34),
    "norm_fro": (lambda L, x: L.linalg.norm(x, "fro"), M34),
    "norm_dim": (lambda L, x: L.linalg.norm(x, dim=1, keepdim=True), B34),
    "norm_ord3_dim": (lambda L, x: L.linalg.norm(x, 3, dim=-1), M34),
    "norm_dims": (lambda L, x: L.linalg.norm(x, dim=(0, 2)), B34),
    "vector_norm": (lambda L, x: L.linalg.vector_norm(x), B34),
    "vector_norm_ord": (lambda L, x: L.linalg.vector_norm(x, ord=1.5, dim=(0, 1)), B34),
    "vector_norm_inf": (lambda L, x: L.linalg.vector_norm(x, math.inf, dim=-1), M34),
    "vector_norm_neg_inf": (lambda L, x: L.linalg.vector_norm(x, -math.inf, dim=-1), M34),
    "vector_norm_0": (lambda L, x: L.linalg.vector_norm(x * (x > 0), 0), M34),
    "vector_norm_neg2": (lambda L, x: L.linalg.vector_norm(x, -2, 1), M34),
    "matrix_norm": (lambda L, x: L.linalg.matrix_norm(x), B34),
    "matrix_norm_1": (lambda L, x: L.linalg.matrix_norm(x, 1), B34),
    "matrix_norm_neg1_keep": (lambda L, x: L.linalg.matrix_norm(x, -1, keepdim=True), B34),
    "matrix_norm_inf": (lambda L, x: L.linalg.matrix_norm(x, math.inf, dim=(2, 0)), B34),
    "matrix_norm_neg_inf": (lambda L, x: L.linalg.matrix_norm(x, -math.inf), B34),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, x = CASES[name]
    check(fn, x)
    check(fn, x.astype(np.float32), rtol=1e-4, atol=1e-4)


ERRORS = [
    (lambda L: L.linalg.inv(L.zeros(2, 3)), RuntimeError),
    (lambda L: L.linalg.det(L.zeros(2, 3)), RuntimeError),
    (lambda L: L.linalg.inv(L.eye(2, dtype=L.long)), RuntimeError),
    (lambda L: L.linalg.vector_norm(L.zeros(3, dtype=L.long)), RuntimeError),
    (lambda L: L.linalg.matrix_norm(L.zeros(3)), RuntimeError),
    (lambda L: L.linalg.solve(L.eye(3), L.zeros(2)), RuntimeError),
    (lambda L: L.linalg.norm(L.zeros(2, 2, 2), ord=1), RuntimeError),
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


def test_import_path_mirrors_torch():
    import ember.linalg as linalg
    from ember.linalg import vector_norm
    assert linalg is ember.linalg and vector_norm is ember.linalg.vector_norm
    x = M34.astype(np.float32)
    close(ember.linalg.norm(ember.tensor(x), dtype=ember.float64),
          torch.linalg.norm(torch.tensor(x), dtype=torch.float64))
    with pytest.raises(RuntimeError) as te:
        torch.linalg.vector_norm(torch.tensor(M34), dtype=torch.float32)
    with pytest.raises(RuntimeError) as ee:
        ember.linalg.vector_norm(ember.tensor(M34), dtype=ember.float32)
    assert str(ee.value) == str(te.value)


def test_deprecated_cholesky_and_cross_without_dim_warn_once_per_process_as_torch():
    """torch.cholesky / Tensor.cholesky and torch.cross without dim: torch's UserWarning the
    first time in a process, again on each call under set_warn_always(True)."""
    import subprocess
    import sys
    code = ("import warnings, {lib} as torch; warnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    a = torch.eye(3); torch.cholesky(a); a.cholesky(); torch.cholesky(a)\n"
            "    b = torch.ones(3, 3); torch.cross(b, b); b.cross(b); torch.linalg.cross(b, b)\n"
            "    torch.cross(b, b, dim=0)\n"
            "    torch.set_warn_always(True); torch.cholesky(a); torch.cross(b, b)\n"
            "print([(x.category.__name__, str(x.message).split(' (Triggered')[0]) for x in w])")
    outs = [subprocess.run([sys.executable, "-c", code.format(lib=lib)], capture_output=True,
                           text=True, check=True).stdout for lib in ("torch", "ember")]
    assert outs[1] == outs[0]
    assert outs[0].count("UserWarning") == 4


@pytest.mark.parametrize("call", [
    lambda L, t: L.linalg.matrix_norm(t), lambda L, t: L.linalg.matrix_norm(t, 1),
    lambda L, t: L.linalg.matrix_norm(t, float("inf")), lambda L, t: L.dist(t, t * 0.5),
    lambda L, t: L.dist(t, t * 0.5, 1), lambda L, t: L.linalg.matrix_power(t, 3),
    lambda L, t: L.linalg.matrix_power(t, 2), lambda L, t: L.histc(t, 5),
    lambda L, t: L.histc(t, 4, -1, 1)])
def test_bfloat16_norms_powers_and_histc_as_torch(call):
    """(ember refused bfloat16 in these; torch computes them: values and gradients, bits)"""
    x = np.random.RandomState(0).randn(4, 4).astype(np.float32)
    outs = []
    for lib in (torch, ember):
        t = lib.tensor(x).bfloat16().requires_grad_()
        y = call(lib, t)
        g = lib.autograd.grad(y.float().sum(), t)[0].float().tolist() if y.requires_grad else None
        outs.append((str(y.dtype).split(".")[1], y.float().tolist(), g))
    assert outs[1] == outs[0]


@pytest.mark.parametrize("name", ["slogdet", "svdvals", "qr", "eigh", "cholesky", "pinv",
                                  "matrix_rank"])
def test_complex_input_not_yet_supported_says_so(name):
    """torch computes these for complex input; ember refuses clearly (it said "Expected a
    floating point or complex tensor ... Got ComplexDouble", a contradiction)."""
    a = ember.tensor(np.eye(3) * (1 + 1j))
    with pytest.raises(NotImplementedError, match=f"{name}: complex input \\(ComplexDouble\\) is "
                                                  "not supported by ember yet"):
        getattr(ember.linalg, name)(a)


def test_pinv_low_precision_message_as_torch():
    msgs = []
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as err:
            lib.linalg.pinv(lib.ones(3, 3).bfloat16())
        msgs.append(str(err.value))
    assert msgs[1] == msgs[0]


@pytest.mark.parametrize("name", ["det", "inv", "inverse"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_det_and_inv_with_two_derivatives_as_torch(name, dtype):
    """(ember refused complex input; torch computes values and gradients, holomorphically)"""
    a = np.random.RandomState(0).randn(2, 3, 3) + 1j * np.random.RandomState(1).randn(2, 3, 3)
    out = []
    for lib in (torch, ember):
        A = lib.tensor(a.astype(dtype), requires_grad=True)
        x = (lib.inverse if name == "inverse" else getattr(lib.linalg, name))(A)
        loss = (x * x.conj()).real.sum() + x.real.sum() * 0.3 + x.imag.sum() * 0.7
        ga, = lib.autograd.grad(loss, (A,), create_graph=True)
        gg, = lib.autograd.grad((ga * ga.conj()).real.sum(), (A,))
        out.append((str(x.dtype).split(".")[1], x.detach().numpy(), ga.detach().numpy(),
                    gg.numpy()))
    assert out[1][0] == out[0][0]
    tol = 1e-4 if dtype == "complex64" else 1e-10
    for e, t in zip(out[1][1:], out[0][1:]):
        np.testing.assert_allclose(e, t, rtol=tol, atol=tol)


@pytest.mark.parametrize("n", [1, 2, 3, 5, -1, -2])
def test_complex_matrix_power_as_torch(n):
    a = np.random.RandomState(0).randn(2, 3, 3) + 1j * np.random.RandomState(1).randn(2, 3, 3)
    out = []
    for lib in (torch, ember):
        A = lib.tensor(a, requires_grad=True)
        x = lib.linalg.matrix_power(A, n)
        ga, = lib.autograd.grad((x * x.conj()).real.sum() + x.imag.sum() * 0.7, (A,))
        out.append((x.detach().numpy(), ga.numpy()))
    for e, t in zip(*out[::-1]):
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-10)


def test_matrix_power_zero_stays_in_the_graph_as_torch():
    """(ember's identity did not require grad; torch's does, with a zero gradient)"""
    out = []
    for lib in (torch, ember):
        a = lib.tensor([[float("inf"), 1.0], [2.0, 3.0]], requires_grad=True)
        x = lib.linalg.matrix_power(a, 0)
        x.sum().backward()
        out.append((x.requires_grad, x.tolist(), a.grad.tolist()))
    assert out[1] == out[0]


_LOW_PRECISION_CALLS = {
    "det": lambda L, a: L.linalg.det(a), "inv": lambda L, a: L.linalg.inv(a),
    "inverse": lambda L, a: L.inverse(a), "solve": lambda L, a: L.linalg.solve(a, a),
    "cholesky": lambda L, a: L.linalg.cholesky(a), "svdvals": lambda L, a: L.linalg.svdvals(a),
    "svd": lambda L, a: L.linalg.svd(a), "qr": lambda L, a: L.linalg.qr(a),
    "eigh": lambda L, a: L.linalg.eigh(a), "slogdet": lambda L, a: L.linalg.slogdet(a),
    "logdet": lambda L, a: L.logdet(a), "cdist": lambda L, a: L.cdist(a, a),
    "pdist": lambda L, a: L.pdist(a), "pinv": lambda L, a: L.linalg.pinv(a),
    "matrix_rank": lambda L, a: L.linalg.matrix_rank(a), "lstsq": lambda L, a: L.linalg.lstsq(a, a),
    "lu": lambda L, a: L.linalg.lu(a), "lu_factor": lambda L, a: L.linalg.lu_factor(a),
    "cholesky_inverse": lambda L, a: L.cholesky_inverse(a),
    "solve_triangular": lambda L, a: L.linalg.solve_triangular(a, a, upper=True),
    "matrix_norm_nuc": lambda L, a: L.linalg.matrix_norm(a, "nuc"),
    "matrix_norm_2": lambda L, a: L.linalg.matrix_norm(a, 2),
    "cond": lambda L, a: L.linalg.cond(a), "tensorinv": lambda L, a: L.linalg.tensorinv(a, 1),
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(_LOW_PRECISION_CALLS))
def test_low_precision_linalg_refused_as_torch(dtype, name):
    """torch has no float16 / bfloat16 LAPACK kernels: each op refuses them in its own words
    (ember computed most of them, or leaked NumPy's 'array type float16 is unsupported')."""
    from oracle import same_error
    x = np.array([[2.0, 1, 0], [1, 3, 1], [0, 1, 4]], np.float32)
    call = _LOW_PRECISION_CALLS[name]
    same_error(lambda L: call(L, L.tensor(x).to(getattr(L, dtype))))


def test_tensorinv_and_tensorsolve_as_torch():
    out = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        a = lib.randn(4, 6, 8, 3, dtype=lib.float64, requires_grad=True)
        inverse = lib.linalg.tensorinv(a, ind=2)
        inverse.sum().backward()
        b = lib.randn(6, 4, 4, 3, 2, dtype=lib.float64)
        x = lib.linalg.tensorsolve(b, lib.randn(4, 3, 2, dtype=lib.float64), dims=(0, 2))
        out.append([inverse.detach().numpy(), a.grad.numpy(), x.numpy()])
    for e, t in zip(out[1], out[0]):
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-12)
    from oracle import same_error
    same_error(lambda L: L.linalg.tensorinv(L.randn(4, 6, 8, 2), ind=2))
    same_error(lambda L: L.linalg.tensorinv(L.randn(4, 6), ind=0))
    same_error(lambda L: L.linalg.tensorsolve(L.randn(2, 3, 5), L.randn(2, 3)))



def test_vecdot_conjugates_its_first_argument_as_torch():
    """ember summed x * y without conjugating x: (1+1j) for torch's (3+1j)"""
    check(lambda L, x, y: L.linalg.vecdot(x, y), np.array([[1 + 1j, 2], [3j, 1 - 1j]]),
          np.array([1j, 1 + 2j]))


@pytest.mark.parametrize("matrix", [[[math.nan, 0.0], [0.0, 1.0]], [[1.0, 0.0], [math.nan, 1.0]],
                                    [[1.0, 0.0], [0.0, math.nan]]])
def test_cholesky_of_nan_is_not_positive_definite_as_torch(matrix):
    """LAPACK stops at a NaN pivot; NumPy factors NaN silently (ember returned a NaN factor)"""
    messages = []
    for L in (torch, ember):
        with pytest.raises(L.linalg.LinAlgError) as info:
            L.linalg.cholesky(L.tensor(matrix))
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert ember.linalg.cholesky_ex(ember.tensor(matrix)).info.tolist() == \
        torch.linalg.cholesky_ex(torch.tensor(matrix)).info.tolist()


@pytest.mark.parametrize("dtype, n", [("int64", 0), ("int64", 2), ("int8", 3), ("bool", 0),
                                      ("float16", 2), ("bfloat16", 5), ("int64", 1)])
def test_matrix_power_of_any_dtype_as_torch(dtype, n):
    """torch multiplies any dtype (ember refused integers, bool and float16)"""
    def call(L):
        return L.linalg.matrix_power(L.tensor([[1, 2], [3, 4]]).to(getattr(L, dtype)), n)
    e, t = call(ember), call(torch)
    assert e.tolist() == t.tolist() and str(e.dtype)[6:] == str(t.dtype)[6:]


def test_matrix_power_one_is_a_copy_as_torch():
    x = ember.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = ember.linalg.matrix_power(x, 1)
    assert y is not x and type(y.grad_fn).__name__ == "CloneBackward0"


@pytest.mark.parametrize("call", [
    lambda L: L.linalg.vector_norm(L.zeros(0), math.inf),
    lambda L: L.linalg.vector_norm(L.zeros(0), -math.inf),
    lambda L: L.linalg.vector_norm(L.zeros(2, 0), math.inf, dim=(0, 1)),
    lambda L: L.linalg.vector_norm(L.zeros(2, 0), math.inf, dim=-1),
    lambda L: L.norm(L.zeros(0), math.inf)])
def test_inf_norm_of_nothing_is_torchs_error(call):
    """ember let NumPy's 'zero-size array to reduction operation maximum' ValueError out"""
    from oracle import same_error
    same_error(call)


def test_cdist_inf_between_empty_vectors_is_zero_as_torch():
    for L in (ember, torch):
        assert L.cdist(L.zeros(1, 0), L.zeros(2, 0), p=math.inf).tolist() == [[0.0, 0.0]]


@pytest.mark.parametrize("p", ["fro", math.inf, -math.inf, 1, -1])
def test_cond_of_a_singular_matrix_is_inf_as_torch(p):
    """ember raised inv's LinAlgError"""
    s = [[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]]]
    assert ember.linalg.cond(ember.tensor(s), p).tolist() == \
        torch.linalg.cond(torch.tensor(s), p).tolist()
