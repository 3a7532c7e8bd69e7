"""Linear-algebra primitives beyond products: inverse, solve, determinant, singular values, and
the vector norms of order 0 and -inf."""
import numpy as np

from .. import _dtype
from ..autograd._math import array_math
from ..autograd.graph import Node
from .reduction import (
    LinalgVectorNormBackward0,
    _expand_back,
    _prod_others,
    refuse_empty_extreme,
)


class LinAlgError(RuntimeError):
    """A matrix the operation cannot handle (singular), as torch.linalg.LinAlgError (its class
    is named _LinAlgError, as torch's: a printed traceback names it so)."""


LinAlgError.__name__ = LinAlgError.__qualname__ = "_LinAlgError"
_LinAlgError = LinAlgError  # (pickle finds the class by that name)


def lapack_svd(x, **kwargs):
    """np.linalg.svd, refusing NaN input with torch's LinAlgError (NumPy's own error, "SVD did
    not converge", would leak otherwise)."""
    if np.isnan(x).any():
        raise LinAlgError("linalg.svd: The algorithm failed to converge because the input matrix "
                          "contained non-finite values.")
    return np.linalg.svd(x, **kwargs)


# torch's refusals of float16 and bfloat16 input, by the op's name: its LAPACK kernel is not
# built for them ("kernel"), or the op checks the precision first ("low"), or ("types")
_LOW_PRECISION = {
    **dict.fromkeys(("linalg.det", "linalg.solve", "linalg.solve_ex", "linalg.lu",
                     "linalg.lu_factor", "linalg.lu_factor_ex"), ("kernel", "lu_cpu")),
    **dict.fromkeys(("linalg.inv", "linalg.inv_ex", "linalg.slogdet", "logdet"), ("low",)),
    **dict.fromkeys(("linalg.svd", "linalg.svdvals"), ("kernel", "linalg_svd_cpu")),
    **dict.fromkeys(("linalg.eigh", "linalg.eigvalsh"), ("kernel", "linalg_eigh_cpu")),
    **dict.fromkeys(("linalg.cholesky", "linalg.cholesky_ex", "cholesky"),
                    ("kernel", "cholesky_cpu")),
    "linalg.qr": ("kernel", "geqrf_cpu"),
    "linalg.solve_triangular": ("kernel", "triangular_solve_cpu"),
    "triangular_solve": ("kernel", "triangular_solve_cpu"),
    "cholesky_solve": ("kernel", "cholesky_solve_cpu"),
    "cholesky_inverse": ("kernel", "cholesky_inverse_out_cpu"),
    "cdist": ("kernel", "cdist"), "pdist": ("kernel", "pdist"),
    "torch.linalg.matrix_rank": ("types",), "torch.linalg.lstsq": ("types",),
}


def refuse_low_precision(x, name, rule=None):
    """torch's error for float16 / bfloat16 input to ``name`` (its ``rule`` there, else
    _LOW_PRECISION's), if any."""
    rule = rule or _LOW_PRECISION.get(name.split("(")[0])
    if rule is None or not (x.dtype.kind == "V" or x.dtype == np.float16):
        return
    scalar = _dtype.of_numpy(x.dtype).scalar_name
    if rule[0] == "kernel":
        raise NotImplementedError(f'"{rule[1]}" not implemented for \'{scalar}\'')
    if rule[0] == "types":
        raise RuntimeError("This function doesn't handle types other than float and double")
    raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {scalar}")


def check_float(x, name, kinds="f"):
    """torch's refusal of integer input (``kinds``: the NumPy kinds the op computes; complex
    ("c") only where its formulas are written for complex numbers), and of float16 / bfloat16
    where torch refuses them."""
    refuse_low_precision(x, name)
    if x.dtype.kind == "c" and "c" not in kinds:  # torch computes these; ember does not yet
        raise NotImplementedError(f"{name}: complex input ({_dtype.of_numpy(x.dtype).scalar_name})"
                                  f" is not supported by ember yet")
    if x.dtype.kind not in kinds:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype.of_numpy(x.dtype).scalar_name}")


def check_square(x, name, kinds="f"):
    check_float(x, name, kinds)
    check_square_shape(x, name)


def check_square_shape(x, name):
    if x.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if x.shape[-1] != x.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{x.shape[-2]} by {x.shape[-1]} matrices")


def factor(x):
    """(packed LU, 1-based pivots) of every matrix of x, eliminated on the whole batch at once."""
    m, n = x.shape[-2:]
    k = min(m, n)
    a = x.reshape((-1, m, n)).copy()
    piv = np.zeros((a.shape[0], k), np.int32)
    rows = np.arange(a.shape[0])
    for j in range(k):
        r = j + np.argmax(np.abs(a[:, j:, j]), axis=1)
        piv[:, j] = r + 1
        top = a[rows, j].copy()
        a[rows, j] = a[rows, r]
        a[rows, r] = top
        pivot = a[:, j, j]
        a[:, j + 1:, j] /= np.where(pivot == 0, 1, pivot)[:, None]
        a[:, j + 1:, j + 1:] -= a[:, j + 1:, j, None] * a[:, j, None, j + 1:]
    return a.reshape(x.shape), piv.reshape(x.shape[:-2] + (k,))


def zero_pivots(x):
    """int32 info per matrix as LAPACK's getrf: 0, or the 1-based index of U's first exactly
    zero pivot (a singular matrix; NaN and near-singular matrices factor with info 0)."""
    packed, _ = factor(x)
    zero = np.diagonal(packed, 0, -2, -1) == 0
    return np.where(zero.any(-1), zero.argmax(-1) + 1, 0).astype(np.int32)


def _singular_inverse(x):
    info = zero_pivots(x).reshape(-1)
    i = int(np.flatnonzero(info)[0]) if info.any() else 0
    batch = f"(Batch element {i}): " if x.ndim > 2 else ""
    return LinAlgError(f"linalg.inv: {batch}The diagonal element {info[i]} is zero, the "
                       "inversion could not be completed because the input matrix is singular.")


def nan_safe(lapack, x, error):
    """lapack(x) (NumPy's inv or solve), where the matrices holding NaN give NaN as torch's
    (NumPy refuses them as singular); ``error()``: what a singular matrix raises."""
    try:
        return lapack(x)
    except np.linalg.LinAlgError:
        nan = np.isnan(x).any((-2, -1))
        if not nan.any():
            raise error() from None
    out = nan_safe(lapack, np.where(nan[..., None, None], np.eye(x.shape[-1], dtype=x.dtype), x),
                   error)
    return np.where(nan[..., None, None], np.nan, out)


def _inverse(x):
    return nan_safe(np.linalg.inv, x, lambda: _singular_inverse(x))


class LinalgInvExBackward0(Node):
    """out = A^-1;  dA = -out^T g out^T."""

    saves_output = True

    def forward(self, a):
        x = a._data
        check_square(x, "linalg.inv", kinds="fc")  # holomorphic: the real formula serves
        return _inverse(x)

    def backward(self, m, g, out):
        inv_t = m.mT(out)
        return (-m.matmul(m.matmul(inv_t, g), inv_t),)


def _inv(m, x):
    return LinalgInvExBackward0.apply(x) if m.is_graph else _inverse(x)


def _singular_solve():
    return LinAlgError("torch.linalg.solve: The solver failed because the input matrix is "
                       "singular.")


def is_vector_rhs(a, b):
    """torch.linalg.solve treats B as a vector when it is 1-D or A's batch of vectors."""
    return b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])


class LinalgSolveExBackward0(Node):
    """X = A^-1 B (left) or B A^-1;  left: dB = A^-T g, dA = -dB X^T;
    right: dB = g A^-T, dA = -X^T dB."""

    saves_output = True

    def forward(self, a, b, left=True):
        x, y = a._data, b._data
        check_square(x, "linalg.solve", kinds="fc")  # holomorphic: the real formula serves
        if x.dtype != y.dtype:
            raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but "
                               f"found A of type {_dtype.of_numpy(x.dtype).scalar_name} and B "
                               f"of type {_dtype.of_numpy(y.dtype).scalar_name} instead")
        self.vector, self.left = is_vector_rhs(x, y), left
        y = y[..., None] if self.vector else y
        if (y.shape[-2] if left else y.shape[-1]) != x.shape[-1]:
            raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                               f"{'AX = B' if left else 'XA = B'} ({x.shape[-2]}x{x.shape[-1]} "
                               f"and {y.shape[-2]}x{y.shape[-1]})")
        self.save(a)
        if left:
            out = _solve(array_math, x, y)
        else:
            out = np.swapaxes(_solve(array_math, np.swapaxes(x, -1, -2), np.swapaxes(y, -1, -2)),
                              -1, -2)
        return out[..., 0] if self.vector else out

    def backward(self, m, g, a, out):
        if self.vector:
            g, out = m.unsqueeze(g, -1), m.unsqueeze(out, -1)
        if self.left:
            gb = _solve(m, m.mT(a), g)
            ga = -m.matmul(gb, m.mT(out))
        else:
            gb = m.mT(_solve(m, a, m.mT(g)))
            ga = -m.matmul(m.mT(out), gb)
        return ga, (m.squeeze(gb, -1) if self.vector else gb)


def _solve(m, a, b):
    if m.is_graph:
        return LinalgSolveExBackward0.apply(a, b)
    return nan_safe(lambda x: np.linalg.solve(x, b), a, _singular_solve)


class LinalgDetBackward0(Node):
    """out = det(A);  dA = g * cofactor(A) = g * det(A) * A^-T (an SVD formula where singular)."""

    saves_output = True

    def forward(self, a):
        check_square(a._data, "linalg.det", kinds="fc")
        self.save(a)
        return np.linalg.det(a._data)

    def backward(self, m, g, a, out):
        scale = m.unsqueeze(m.unsqueeze(g * out, -1), -1)
        if np.all(m.data(out) != 0):
            return (scale * m.mT(_inv(m, a)),)
        if m.is_graph:
            raise NotImplementedError("the second derivative of det at a singular matrix is not "
                                      "implemented")
        if m.data(a).dtype.kind == "c":
            raise NotImplementedError("ember: the gradient of det at a singular complex matrix "
                                      "is not implemented")
        return (m.unsqueeze(m.unsqueeze(g, -1), -1) * _cofactor(a),)


def _cofactor(x):
    """det(A) * A^-T, defined for singular A: U diag(prod of the other singular values) Vh,
    signed by det(U) det(Vh)."""
    u, s, vh = lapack_svd(x)
    others = _prod_others(array_math, s, s.ndim - 1)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return sign[..., None, None] * np.matmul(u * others[..., None, :], vh)


class LinalgSvdBackward0(Node):
    """out = singular values of A (descending);  dA = U diag(g) Vh (first derivative only)."""

    def forward(self, a):
        x = a._data
        check_float(x, "linalg.svdvals")
        self.save(a)
        self.u, s, self.vh = lapack_svd(x, full_matrices=False)
        return s

    def backward(self, m, g, a):
        if m.is_graph:
            return (_SvdvalsGrad.apply(g, a, u=self.u, vh=self.vh),)
        return (np.matmul(self.u * g[..., None, :], self.vh),)


class _SvdvalsGrad(Node):
    """The first derivative of svdvals under create_graph: U diag(g) Vh, whose own derivative
    (through U and Vh) ember does not implement, so it raises instead of being silently wrong."""

    def forward(self, g, a, u, vh):
        return np.matmul(u * g._data[..., None, :], vh)

    def backward(self, m, grad):
        raise NotImplementedError("the second derivative of singular values (matrix norms of "
                                  "order 2, -2 and 'nuc') is not implemented")


class _VectorNormExtremes(LinalgVectorNormBackward0):
    """The vector norms of order 0 (count of nonzeros: no gradient, as torch, or a zero one with
    ``zero_grad``, as torch's cdist) and -inf (min |a|, ties share the gradient); torch names
    them LinalgVectorNormBackward0 too."""

    saves_output = True

    def forward(self, a, p, dim=None, keepdim=False, zero_grad=False):
        refuse_empty_extreme(a._data, p, dim)
        super().forward(a, 2, dim, keepdim)
        self.p, self.zero_grad, x = p, zero_grad, a._data
        if p == 0:
            return np.sum(x != 0, axis=self.dims, keepdims=keepdim).astype(x.dtype)
        return np.amin(np.abs(x), axis=self.dims, keepdims=keepdim)

    def backward(self, m, g, a, out):
        if self.p == 0:
            return (_expand_back(m, g, self.shape, self.dims, self.keepdim) * 0
                    if self.zero_grad else None,)
        g = _expand_back(m, g, self.shape, self.dims, self.keepdim)
        out = _expand_back(m, out, self.shape, self.dims, self.keepdim)
        mask = m.data(m.abs(a)) == m.data(out)
        share = (mask / np.sum(mask, axis=self.dims, keepdims=True)).astype(m.data(g).dtype)
        return (g * m.sign(a) * share,)


_VectorNormExtremes.__name__ = _VectorNormExtremes.__qualname__ = "LinalgVectorNormBackward0"
