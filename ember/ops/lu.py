"""LU with partial pivoting as torch.linalg's (LAPACK getrf's pivots: the first largest |entry|
of each column): linalg.lu (P, L, U) with its gradient (square, wide and tall), lu_factor
(packed LU, 1-based int32 pivots), lu_unpack and lu_solve (A rebuilt as P L U, then solve)."""
import numpy as np

from .._tensor import Tensor
from .._warn import warn_once
from . import api, matrix_ops
from . import decompositions as D
from .linalg_extra import LinalgSolveExBackward0, _solve, check_float, factor, is_vector_rhs

_make = Tensor._make
PLU = D.returns("linalg_lu", ("P", "L", "U"))
LUFactor = D.returns("linalg_lu_factor", ("LU", "pivots"))
LUFactorEx = D.returns("linalg_lu_factor_ex", ("LU", "pivots", "info"))
LUUnpack = D.returns("lu_unpack", ("P", "L", "U"))


def permutation(piv, m, dtype):
    """P (m x m) with A = P L U from 1-based pivots (row j swapped with row piv[j] - 1)."""
    flat = piv.reshape((-1, piv.shape[-1])) - 1
    perm = np.tile(np.arange(m), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for j in range(flat.shape[1]):
        top = perm[:, j].copy()
        perm[:, j] = perm[rows, flat[:, j]]
        perm[rows, flat[:, j]] = top
    p = np.zeros((flat.shape[0], m, m), dtype)
    p[rows[:, None], perm, np.arange(m)] = 1
    return p.reshape(piv.shape[:-1] + (m, m))


def unpack(lu, k):
    """(unit lower L: m x k, upper U: k x n) of a packed LU array."""
    m, n = lu.shape[-2:]
    lower = np.tril(lu[..., :, :k], -1) + np.eye(m, k, dtype=lu.dtype)
    return lower, np.triu(lu[..., :k, :])


def _square_grad(m, lower, upper, gl, gu):
    """P^T gA of a square block A = P L U: L^-T (tril(L^T gL, -1) + triu(gU U^T)) U^-T."""
    inner = D._tril(m, m.matmul(m.mT(lower), gl), -1) + m.mT(
        D._tril(m, m.mT(m.matmul(gu, m.mT(upper)))))
    left = _solve(m, m.mT(lower), inner)  # L^-T inner
    return m.mT(_solve(m, upper, m.mT(left)))


class LinalgLuBackward0(D._Decomposition):
    """A = P L U.  Square: the square block's formula (_square_grad). Wide (m < n, U = [U1 U2]):
    U2 = L^-1 (P^T A)_2 gives (P^T gA)_2 = L^-T gU2 and gL -= L^-T gU2 U2^T, then the square
    block (L, U1). Tall (m > n, L = [L1; L2]): L2 = (P^T A)_2 U^-1 - L2 dU U^-1 gives
    (P^T gA)_2 = gL2 U^-T and gU -= L2^T gL2 U^-T, then the square block (L1, U)."""

    differentiable = (1, 2)

    def forward(self, a, pivot=True):
        x = a._data
        check_float(x, "linalg.lu")
        if x.ndim < 2:
            raise RuntimeError("linalg.lu: Expected tensor with 2 or more dimensions. Got size: "
                               f"{list(x.shape)} instead")
        if not pivot:
            raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the "
                               "CPU")
        lu, piv = factor(x)
        lower, upper = unpack(lu, min(x.shape[-2:]))
        return self._keep(a, {}, (permutation(piv, x.shape[-2], x.dtype), lower, upper, piv))

    def backward(self, m, grads, a):
        p, lower, upper, _ = D._outputs(self, m, a)
        _, gl, gu = D._grads(m, grads[:3], (p, lower, upper))
        rows, cols = a.shape[-2:]
        k = min(rows, cols)
        if rows == cols:
            inner = _square_grad(m, lower, upper, gl, gu)
        elif rows < cols:
            head, tail = (..., slice(None), slice(None, k)), (..., slice(None), slice(k, None))
            g2 = _solve(m, m.mT(lower), m.index(gu, tail))  # L^-T gU2
            gl = gl - m.matmul(g2, m.mT(m.index(upper, tail)))
            inner = m.cat([_square_grad(m, lower, m.index(upper, head), gl,
                                        m.index(gu, head)), g2], -1)
        else:
            head, tail = (..., slice(None, k), slice(None)), (..., slice(k, None), slice(None))
            g2 = m.mT(_solve(m, upper, m.mT(m.index(gl, tail))))  # gL2 U^-T
            gu = gu - m.matmul(m.mT(m.index(lower, tail)), g2)
            inner = m.cat([_square_grad(m, m.index(lower, head), upper,
                                        m.index(gl, head), gu), g2], -2)
        return (m.matmul(p, inner),)


def lu(A, *, pivot=True):
    """(P, L, U) with A = P L U: P a permutation, L unit lower (m x k), U upper (k x n)."""
    return PLU(D.apply_multi(LinalgLuBackward0, A, pivot=pivot)[:3])


def lu_factor(A, *, pivot=True):
    """(LU, pivots): L below the diagonal and U on and above it; 1-based int32 row swaps."""
    packed, piv, info = _packed(A, pivot)
    _raise_singular(info, A.ndim, "ember.linalg.lu_factor")
    return LUFactor((packed, piv))


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """(LU, pivots, info): lu_factor's, with info (int32, per matrix) the 1-based index of the
    first zero on U's diagonal (0 where there is none); raises only with ``check_errors``."""
    packed, piv, info = _packed(A, pivot)
    if check_errors:
        _raise_singular(info, A.ndim, "ember.linalg.lu_factor_ex")
    return LUFactorEx((packed, piv, _make(info)))


def torch_lu(*args, **kwargs):
    """torch.lu(A, pivot=True, get_infos=False) (deprecated): lu_factor_ex's (LU, pivots), with
    the infos if asked; it never raises for a singular matrix."""
    return _torch_lu(*args, **kwargs)


def _torch_lu(A, pivot=True, get_infos=False):
    warn_once("torch.lu is deprecated in favor of torch.linalg.lu_factor / "
              "torch.linalg.lu_factor_ex and will be removed in a future PyTorch release.\n"
              "LU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\n"
              "LU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
              "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\n"
              "should be replaced with\n"
              "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)")
    packed, piv, info = lu_factor_ex(A, pivot=pivot)
    return (packed, piv, info) if get_infos else (packed, piv)


def _packed(A, pivot):
    """(L and U packed in one matrix, pivots, info array) of A."""
    _, lower, upper, piv = D.apply_multi(LinalgLuBackward0, A, pivot=pivot)
    m, n = A.shape[-2:]
    strict = matrix_ops.tril(lower, -1)
    if m > n:
        upper = api.cat([upper, _make(np.zeros(A.shape[:-2] + (m - n, n), A._data.dtype))], -2)
    elif n > m:
        strict = api.cat([strict, _make(np.zeros(A.shape[:-2] + (m, n - m), A._data.dtype))],
                         -1)
    zero = np.diagonal(upper._data, 0, -2, -1) == 0
    first = np.where(zero.any(-1), zero.argmax(-1) + 1, 0).astype(np.int32)
    return strict + upper, piv, first


def _raise_singular(info, ndim, name):
    if info.any():
        flat = info.reshape(-1)
        b = int(np.flatnonzero(flat)[0])
        j = int(flat[b])
        batch = f"(Batch element {b}): " if ndim > 2 else ""
        raise RuntimeError(f"{name}: {batch}U[{j},{j}] is zero and using it on lu_solve would "
                           "result in a division by zero. If you still want to perform the "
                           "factorization, consider calling linalg.lu(A, pivot) or "
                           "linalg.lu_factor_ex(A, pivot)")


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """(P, L, U) from lu_factor's packed LU and pivots (L and U differentiable in LU)."""
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    lower = matrix_ops.tril(LU_data[..., :, :k], -1) + _make(np.eye(m, k,
                                                                    dtype=LU_data._data.dtype))
    upper = matrix_ops.triu(LU_data[..., :k, :])
    p = _make(permutation(LU_pivots._data, m, LU_data._data.dtype))
    return LUUnpack((p, lower, upper))


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """X with A X = B (A^T X = B when ``adjoint``; X A = B when not ``left``), A = P L U given
    by lu_factor."""
    p, lower, upper = lu_unpack(LU, pivots)
    a = api.matmul(p, api.matmul(lower, upper))
    a = a.mT if adjoint else a
    return LinalgSolveExBackward0.apply(a, api.unsqueeze(B, 0) if is_vector_rhs(
        a._data, B._data) else B, left=left)


def torch_lu_solve(input, LU_data, LU_pivots):
    """torch.lu_solve (older API): linalg.lu_solve(LU_data, LU_pivots, input)."""
    return lu_solve(LU_data, LU_pivots, input)
