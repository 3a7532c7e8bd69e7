"""torch.linalg's pseudo-inverse, least squares, rank, condition number, triangular solves,
vecdot/diagonal/matmul and the *_ex forms with info: composed from ember's decompositions and
ops, so their gradients are those ops' (exact where the matrices are full-rank)."""
import numpy as np

from .._dtype import of_numpy
from .._tensor import Tensor
from ..autograd.graph import Node
from . import api, matrix_ops
from . import decompositions as D
from . import linalg_extra as X

_make = Tensor._make
LstsqResult = D.returns("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
InvEx = D.returns("linalg_inv_ex", ("inverse", "info"))
SolveEx = D.returns("linalg_solve_ex", ("result", "info"))
TriangularSolve = D.returns("triangular_solve", ("solution", "cloned_coefficient"))
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _svd(A):
    return D.apply_multi(D.LinalgSvdBackward0, A, full_matrices=False)


def _inv(A):
    return X.LinalgInvExBackward0.apply(A)


def _solve(A, B, left=True):
    return X.LinalgSolveExBackward0.apply(A, B, left=left)


def _value(t):
    return None if t is None else np.asarray(t._data if isinstance(t, Tensor) else t)


def _kept(s, shape, atol, rtol):
    """Singular values above max(atol, rtol * largest) (torch's tolerance rules: rtol defaults
    to eps * max(m, n), or to 0 when only a positive atol is given)."""
    atol, rtol = _value(atol), _value(rtol)
    if rtol is None:
        rtol = 0.0 if atol is not None and np.all(atol > 0) else (
            np.finfo(s.dtype).eps * max(shape[-2:]))
    atol = 0.0 if atol is None else atol
    top = s.max(-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,), s.dtype)
    bound = np.maximum(np.asarray(atol)[..., None], np.asarray(rtol)[..., None] * top)
    return s > bound


def _check_matrix(A, name):
    x = A._data
    if x.ndim >= 2 and x.dtype.kind == "c":  # torch computes these; ember does not yet
        raise NotImplementedError(f"{name}: complex input ({of_numpy(x.dtype).scalar_name}) is "
                                  f"not supported by ember yet")
    if x.ndim < 2 or x.dtype.kind != "f" or x.dtype.itemsize == 2:  # (float16 too)
        raise RuntimeError(f"{name}({of_numpy(x.dtype).scalar_name}"
                           f"{{{list(x.shape)}}}): expected a tensor with 2 or more dimensions of "
                           "float, double, cfloat or cdouble types")


def pinv(input, rcond=None, hermitian=False, *, atol=None, rtol=None):
    """The Moore-Penrose pseudo-inverse: V diag(1/s) U^T over the singular values kept by
    atol/rtol (``rcond``: rtol's older name); ``hermitian``: from eigh of symmetric input."""
    _check_matrix(input, "linalg.pinv")
    rtol = rcond if rcond is not None else rtol
    if hermitian:
        w, v = D.apply_multi(D.LinalgEighBackward0, input)
        keep = _make(_kept(np.abs(w._data), input.shape, atol, rtol))
        inv_w = api.where(keep, 1 / api.where(keep, w, 1.0), 0.0)
        return api.matmul(v * api.unsqueeze(inv_w, -2), v.mT)
    u, s, vh = _svd(input)
    keep = _make(_kept(s._data, input.shape, atol, rtol))
    inv_s = api.where(keep, 1 / api.where(keep, s, 1.0), 0.0)
    return api.matmul(vh.mT * api.unsqueeze(inv_s, -2), u.mT)


def pinverse(input, rcond=1e-15):
    """torch.pinverse: linalg.pinv with rtol ``rcond``."""
    return pinv(input, rtol=rcond)


def _singular_values(x, hermitian):
    return np.abs(np.linalg.eigvalsh(x)) if hermitian else X.lapack_svd(x, compute_uv=False)


def matrix_rank(input, tol=None, hermitian=False, *, atol=None, rtol=None):
    """The number of singular values above max(atol, rtol * largest) (``tol``: atol's older
    name), as int64."""
    x = input._data
    if x.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least "
                           "2 dimensions.")
    X.check_float(x, "torch.linalg.matrix_rank")
    atol = tol if tol is not None else atol
    s = _singular_values(x, hermitian)
    return _make(_kept(s, x.shape, atol, rtol).sum(-1).astype(np.int64))


def cond(input, p=None):
    """The condition number ||A|| ||A^-1|| in norm ``p`` (None or 2: s_max / s_min; -2: its
    inverse; 'fro', 'nuc', 1, -1, inf, -inf: through the inverse, square matrices only)."""
    if input._data.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p in (None, 2, -2):
        s = _svd(input)[1]  # (svdvals has no second derivative)
        big, small = s[..., 0], s[..., -1]
        return big / small if p != -2 else small / big
    X.check_square(input._data, f"linalg.cond(ord={p})")
    if p == "nuc":  # (torch: from the singular values, sum(s) sum(1 / s))
        s = _svd(input)[1]
        return api.sum(s, -1) * api.sum(1 / s, -1)
    from ..linalg import matrix_norm  # binding upwards: the norms are ember.linalg's
    inverse, info = inv_ex(input)
    value = matrix_norm(input, p) * matrix_norm(inverse, p)
    if not info._data.any():
        return value
    return api.where(info != 0, float("inf"), value)  # a singular matrix: inf, as torch


class LinalgSolveTriangularBackward0(Node):
    """X = T^-1 B (left) or B T^-1, T the upper or lower triangle of A (unit diagonal when
    ``unitriangular``; A's other entries are not read), by substitution as LAPACK's trsm, so a
    NaN or a zero pivot spreads only to the rows (columns) that read it;
    left: dB = T^-H g, dA = -tri(dB X^H); right: dB = g T^-H, dA = -tri(X^H dB)."""

    saves_output = True

    def forward(self, a, b, upper, left=True, unitriangular=False):
        self.save(a)
        self.upper, self.left, self.unit = upper, left, unitriangular
        return _substitute(a._data, b._data, upper, left, unitriangular)

    def backward(self, m, g, a, out):
        def h(t):
            return m.conj(m.mT(t)) if m.data(t).dtype.kind == "c" else m.mT(t)
        gb = _solve_triangular(m, h(a), g, not self.upper, self.left, self.unit)
        ga = -(m.matmul(gb, h(out)) if self.left else m.matmul(h(out), gb))
        n = m.data(a).shape[-1]
        kept = np.triu(np.ones((n, n), bool), 1 if self.unit else 0)
        return m.keep(kept if self.upper else kept.T, ga), gb


def _solve_triangular(m, t, b, upper, left, unit):
    if m.is_graph:
        return LinalgSolveTriangularBackward0.apply(t, b, upper, left, unit)
    return _substitute(t, b, upper, left, unit)


def _substitute(t, b, upper, left, unit):
    """Back (upper) or forward (lower) substitution over T's triangle, column by column."""
    if not left:  # X T = B  <=>  T^T X^T = B^T
        return np.swapaxes(_substitute(np.swapaxes(t, -1, -2), np.swapaxes(b, -1, -2),
                                       not upper, True, unit), -1, -2)
    batch = np.broadcast_shapes(t.shape[:-2], b.shape[:-2])
    x = np.array(np.broadcast_to(b, batch + b.shape[-2:]), dtype=np.result_type(t, b))
    t = np.broadcast_to(t, batch + t.shape[-2:])
    n = t.shape[-1]
    with np.errstate(all="ignore"):  # a zero pivot gives inf / NaN, as torch, silently
        for k in (range(n - 1, -1, -1) if upper else range(n)):
            if not unit:
                x[..., k, :] /= t[..., k, k, None]
            rest = slice(0, k) if upper else slice(k + 1, n)
            x[..., rest, :] -= t[..., rest, k, None] * x[..., k, None, :]
    return x


def _as_matrix_rhs(A, B):
    """B as solve takes a matrix right-hand side (never read as a batch of vectors)."""
    return api.unsqueeze(B, 0) if X.is_vector_rhs(A._data, B._data) else B


def solve_triangular(input, B, *, upper, left=True, unitriangular=False):
    """X with T X = B (or X T = B when not ``left``), T the upper or lower triangle of A (its
    diagonal taken as ones when ``unitriangular``); A's other entries are not read."""
    name = "linalg.solve_triangular"
    X.check_square(input._data, name)
    if B._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    n, (r, c) = input.shape[-1], B.shape[-2:]
    if (r if left else c) != n:
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {r}x{c})")
    return LinalgSolveTriangularBackward0.apply(input, _as_matrix_rhs(input, B), upper, left,
                                                unitriangular)


def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False):
    """torch.triangular_solve (older API): (X with T X = input, or T^T X = input when
    ``transpose``, and a copy of A)."""
    X.check_square(A._data, "triangular_solve")
    T, upper = (A.mT, not upper) if transpose else (A, upper)
    solution = LinalgSolveTriangularBackward0.apply(T, _as_matrix_rhs(A, input), upper, True,
                                                    unitriangular)
    return TriangularSolve((solution, api.clone(A)))


def vecdot(x, y, *, dim=-1):
    """The dot product of x and y (broadcast) along ``dim``: sum(conj(x) * y)."""
    if x._data.dtype.kind not in "fVc":
        raise RuntimeError(f"linalg.vecdot: Expected a floating point or complex tensor as "
                           f"input. Got {x.dtype.scalar_name}")
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {x.dtype.scalar_name} and y of type "
                           f"{y.dtype.scalar_name} instead")
    return api.sum((x.conj() if x._data.dtype.kind == "c" else x) * y, dim)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals of A over dims (dim1, dim2), as a view."""
    return matrix_ops.diagonal(A, offset, dim1, dim2)


def matmul(input, other):
    """torch.linalg.matmul: torch.matmul."""
    return api.matmul(input, other)


def _masked(A, info, compute):
    """``compute`` on A with each singular matrix (info != 0) replaced by the identity, and NaN
    in the results of those matrices (the other matrices of the batch are untouched)."""
    bad = info != 0
    eye = np.eye(A.shape[-1], dtype=A._data.dtype)
    safe = api.where(_make(bad[..., None, None]), _make(eye), A)
    out = compute(safe)
    mask = bad.reshape(bad.shape + (1,) * (out.ndim - bad.ndim))
    return api.where(_make(mask), _make(np.asarray(np.nan, A._data.dtype)), out)


def inv_ex(A, *, check_errors=False):
    """(inverse, info): info 0, or the first zero pivot where a matrix is singular (its
    inverse is then NaN); raises LinAlgError only with ``check_errors``."""
    X.check_square(A._data, "linalg.inv_ex")
    info = X.zero_pivots(A._data)
    if not info.any():
        return InvEx((_inv(A), _make(info)))
    if check_errors:
        error = X._singular_inverse(A._data)
        raise type(error)(str(error).replace("linalg.inv:", "linalg.inv_ex:", 1))
    return InvEx((_masked(A, info, _inv), _make(info)))


def solve_ex(A, B, *, left=True, check_errors=False):
    """(result, info) of linalg.solve: info nonzero (and that matrix's result NaN) where A is
    singular; raises LinAlgError only with ``check_errors``."""
    X.check_square(A._data, "linalg.solve_ex")
    info = X.zero_pivots(A._data)
    if not info.any():
        return SolveEx((_solve(A, B, left=left), _make(info)))
    if check_errors:
        raise X.LinAlgError("torch.linalg.solve_ex: The solver failed because the input matrix "
                            "is singular.")
    out = _masked(A, info, lambda a: _solve(a, B, left=left))
    return SolveEx((out, _make(info)))


def _check_lstsq(A, B, driver):
    name = "torch.linalg.lstsq"
    if driver is not None and driver not in _DRIVERS:
        raise RuntimeError(f"{name}: parameter `driver` should be one of "
                           f"({', '.join(_DRIVERS)})")
    X.check_float(A._data, name)
    if A._data.dtype != B._data.dtype:
        names = [_scalar_name(t) for t in (A, B)]
        raise RuntimeError(f"{name}: Expected input and other to have the same dtype, but got "
                           f"input's dtype {names[0]} and other's dtype {names[1]}")
    if A._data.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    vector = B._data.ndim == A._data.ndim - 1
    if (B.shape[-1] if vector else B.shape[-2]) != A.shape[-2]:
        raise RuntimeError(f"{name}: input.size(-2) should match other.size(-2)")
    return vector


def _scalar_name(t):
    return of_numpy(t._data.dtype).scalar_name


def lstsq(input, b, rcond=None, *, driver=None):
    """The least-squares solution of A X = B (minimum norm where A is rank-deficient), with
    what torch's CPU driver returns: 'gelsy' (default) the rank, 'gelsd'/'gelss' the rank and
    singular values, 'gels' neither; residuals (squared, per column) for 'gelsd', 'gelss' and
    'gels' where A is tall and of full rank, else empty."""
    vector = _check_lstsq(input, b, driver)
    driver = driver or "gelsy"
    m, n = input.shape[-2:]
    rtol = np.finfo(input._data.dtype).eps * max(m, n) if rcond is None or rcond < 0 else rcond
    B = api.unsqueeze(b, -1) if vector else b
    solution = api.matmul(pinv(input, rtol=rtol), B)
    dtype = input._data.dtype
    s = X.lapack_svd(input._data, compute_uv=False)
    rank = _kept(s, input.shape, None, rtol).sum(-1).astype(np.int64)
    residuals = _make(np.zeros((0,), dtype))
    if driver != "gelsy" and m > n and np.all(rank == n):
        residuals = api.sum((api.matmul(input, solution) - B) ** 2, -2)
        residuals = api.squeeze(residuals, -1) if vector else residuals
    if vector:
        solution = api.squeeze(solution, -1)
    rank = _make(rank) if driver != "gels" else _make(np.zeros((0,), np.int64))
    values = _make(s) if driver in ("gelsd", "gelss") else _make(np.zeros((0,), dtype))
    return LstsqResult((solution, residuals, rank, values))
