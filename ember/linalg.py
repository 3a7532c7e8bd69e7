"""ember.linalg, as torch.linalg: norms, inverse, solve, determinant, the decompositions
(Cholesky, QR, eigh, SVD, LU), least squares, pseudo-inverse, and their torch.* forms."""
import math

import numpy as np

from . import _dtype
from ._tensor import Tensor
from ._warn import warn_once
from .ops import api
from .ops import composites as _composites
from .ops import decompositions as D
from .ops import linalg_extra as X
from .ops.linalg_extra import LinAlgError  # noqa: F401  (public, as torch.linalg.LinAlgError)
from .ops.matrix_functions import matrix_exp  # noqa: F401  (public)
from .ops.out import with_out
from .ops.reduction import LinalgVectorNormBackward0
from .ops.shape import _dim

__all__ = ["LinAlgError", "det", "inv", "matrix_exp", "matrix_norm", "norm", "solve",
           "svdvals", "vector_norm"]


def _cast(x, dtype, name):
    if dtype is None:
        return x
    have, want = x._data.dtype, _dtype.to_numpy_dtype(dtype)
    if have.kind == want.kind == "f" and have.itemsize > want.itemsize:
        have, want = _dtype.of_numpy(have).scalar_name, _dtype.of_numpy(want).scalar_name
        raise RuntimeError(f"{name}: the dtype of the input ({have}) should be convertible "
                           f"without narrowing to the specified dtype ({want})")
    return api.to_dtype(x, dtype)


def _real_of(dtype):
    return None if dtype is None or not dtype.is_complex else dtype.to_real()


def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None):
    """(sum |x|^ord)^(1/ord) over dim (all elements when None); ord may be inf, -inf or 0."""
    if input._data.dtype.kind == "c":  # the norm of the moduli (a real result, as torch)
        return vector_norm(input.abs(), ord, dim, keepdim, dtype=_real_of(dtype))
    if input._data.dtype.kind != "V":  # bfloat16 (ml_dtypes' kind) is floating
        X.check_float(input._data, "linalg.vector_norm")
    x = _cast(input, dtype, "linalg.vector_norm")
    dim = None if dim is None or (not isinstance(dim, int) and not len(dim)) else dim
    if ord == 0 or ord == -math.inf:
        return X._VectorNormExtremes.apply(x, p=ord, dim=dim, keepdim=keepdim)
    return LinalgVectorNormBackward0.apply(x, p=ord, dim=dim, keepdim=keepdim)


def svdvals(A):
    """The singular values of A (batched), in descending order."""
    X.refuse_low_precision(A._data, "linalg.svdvals")
    return X.LinalgSvdBackward0.apply(A)


def _matrix_dims(A, dim, ord=None):
    if A._data.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if isinstance(dim, int):  # torch's parser wants a tuple of ints
        raise TypeError(f"linalg_matrix_norm() received an invalid combination of arguments - "
                        f"got (Tensor, {type(ord).__name__}, dim=int)")
    dim = tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                           f"{' '.join(map(str, dim))}")
    d0, d1 = (_dim(A._data.ndim, d) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, "
                           f"{dim[1]})")
    return d0, d1


def matrix_norm(input, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """Frobenius, nuclear, 1, -1, inf, -inf, 2 or -2 norm of the matrices over dims ``dim``."""
    X.check_float(input._data, "linalg.matrix_norm", "fV")  # (V: bfloat16, computed as torch)
    if ord in ("nuc", 2, -2):  # (through singular values: torch refuses low precision)
        X.refuse_low_precision(input._data, "linalg.matrix_norm", ("low",))
    A = _cast(input, dtype, "linalg.matrix_norm")
    d0, d1 = _matrix_dims(A, dim, ord)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    if ord in (1, -1, math.inf, -math.inf):
        inner = d0 if abs(ord) == 1 else d1  # 1: largest column sum; inf: largest row sum
        sums = api.sum(A.abs(), inner, keepdim=True)
        pick = api.amax if ord > 0 else api.amin
        return pick(sums, (d0, d1), keepdim=keepdim)
    if ord in ("nuc", 2, -2):
        values = svdvals(api.permute(A, *[d for d in range(A._data.ndim) if d not in (d0, d1)],
                                     d0, d1))
        out = (api.sum(values, -1) if ord == "nuc" else
               api.amax(values, -1) if ord == 2 else api.amin(values, -1))
        if keepdim:
            for d in sorted((d0, d1)):
                out = api.unsqueeze(out, d)
        return out
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(input, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm (1-D, or dim an int) or a matrix norm (2-D, or dim a pair)."""
    if isinstance(dim, int) or (dim is not None and len(dim) == 1):
        return vector_norm(input, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    if dim is not None:
        if len(dim) != 2:
            raise RuntimeError(f"linalg.norm: If dim is specified, it mut be of length 1 or 2. "
                               f"Got {list(dim)}")
        return matrix_norm(input, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(input, 2, None, keepdim, dtype=dtype)
    ndim = input._data.ndim
    if ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {ndim}D.")
    if ndim == 1:
        return vector_norm(input, ord, None, keepdim, dtype=dtype)
    return matrix_norm(input, ord, (0, 1), keepdim, dtype=dtype)


def inv(A):
    """The inverse of each square matrix; raises LinAlgError where one is singular."""
    X.refuse_low_precision(A._data, "linalg.inv")
    return X.LinalgInvExBackward0.apply(A)


def solve(A, B, *, left=True):
    """X with A X = B (or X A = B when not ``left``); B may be a vector or a batch of them."""
    X.refuse_low_precision(A._data, "linalg.solve")
    return X.LinalgSolveExBackward0.apply(A, B, left=left)


def det(A):
    """The determinant of each square matrix."""
    X.refuse_low_precision(A._data, "linalg.det")
    return X.LinalgDetBackward0.apply(A)



for _name in ("vector_norm", "matrix_norm", "norm", "inv", "solve", "det", "svdvals"):
    globals()[_name] = with_out(globals()[_name], "linalg." + _name)


def tensorinv(input, ind=2):
    """The inverse of input under tensordot over ``ind`` dims: input read as a square matrix
    (the first ``ind`` dims against the rest), inverted, read back with the dims swapped."""
    A = input
    if type(ind) is not int or ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = math.prod(A.shape[:ind]), math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {cols} != {rows}")
    return api.reshape(inv(api.reshape(A, (rows, cols))), tuple(A.shape[ind:] + A.shape[:ind]))


def tensorsolve(input, other, dims=None):
    """X with tensordot(input, X, X.ndim) == other: ``dims`` of input moved to the end first;
    input read as a matrix (other's elements against the rest), solved against other flattened."""
    A, B = input, other
    if dims is not None:
        moved = [d % A.ndim for d in dims]
        A = api.permute(A, *[d for d in range(A.ndim) if d not in moved], *moved)
    rows, cols = math.prod(A.shape[:B.ndim]), math.prod(A.shape[B.ndim:])
    if rows != cols:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:])"
                           f" == prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    x = solve(api.reshape(A, (rows, cols)), api.reshape(B, (rows,)))
    return api.reshape(x, tuple(A.shape[B.ndim:]))


tensorinv = with_out(tensorinv, "linalg.tensorinv")
tensorsolve = with_out(tensorsolve, "linalg.tensorsolve")


def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along ``dim`` (the inputs broadcast)."""
    return _composites.cross(input, other, dim=dim)


__all__ += ["cross", "tensorinv", "tensorsolve"]


# ------------------------------------------------------------------ decompositions (issue 14)
_make = Tensor._make
CholeskyEx = D.returns("linalg_cholesky_ex", ("L", "info"))
QR = D.returns("qr", ("Q", "R"))
Eigh = D.returns("linalg_eigh", ("eigenvalues", "eigenvectors"))
SVD = D.returns("svd", ("U", "S", "Vh"))
Slogdet = D.returns("linalg_slogdet", ("sign", "logabsdet"))


def cholesky(input, *, upper=False):
    """L (lower, input = L L^T) or U (``upper``, input = U^T U) of symmetric positive-definite
    input, read from its lower (upper) triangle; raises LinAlgError where it is not."""
    X.refuse_low_precision(input._data, "linalg.cholesky")
    return D.LinalgCholeskyExBackward0.apply(input, upper=upper)


def cholesky_ex(input, *, upper=False, check_errors=False):
    """(L, info): info is 0, or the order of the first leading minor that is not
    positive-definite (that matrix's L is then zero); raises only with ``check_errors``."""
    name = "linalg.cholesky_ex"
    L, info = D.cholesky_forward(input._data, upper, name, raise_errors=check_errors)
    if input.requires_grad and not info.any():  # the node factorises again, for the graph
        return CholeskyEx((D.LinalgCholeskyExBackward0.apply(input, upper=upper, name=name),
                           _make(info)))
    return CholeskyEx((_make(L), _make(info)))


def qr(A, mode="reduced"):
    """(Q, R) with Q orthonormal columns and R upper triangular; ``mode`` 'reduced', 'complete'
    or 'r' (Q then empty)."""
    return QR(D.apply_multi(D.LinalgQrBackward0, A, mode=mode))


def eigh(input, UPLO="L"):
    """(eigenvalues ascending, eigenvectors as columns) of symmetric input, read from its lower
    (UPLO='L') or upper triangle."""
    return Eigh(D.apply_multi(D.LinalgEighBackward0, input, UPLO=UPLO))


def eigvalsh(input, UPLO="L"):
    """The eigenvalues of symmetric input, ascending."""
    return D.apply_multi(D.LinalgEighBackward0, input, UPLO=UPLO, name="linalg.eigh")[0]


def svd(A, full_matrices=True, *, driver=None):
    """(U, S, Vh) with A = U diag(S) Vh, S descending (``driver`` is CUDA-only in torch)."""
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")
    return SVD(D.apply_multi(D.LinalgSvdBackward0, A, full_matrices=full_matrices))


def slogdet(A):
    """(sign, log|det A|) of each square matrix: (0, -inf) where A is singular."""
    return Slogdet(D.apply_multi(D.LinalgSlogdetBackward0, A))


def matrix_power(input, n):
    """input^n by repeated squaring (n < 0: of input's inverse; n == 0: the identity)."""
    X.check_square_shape(input._data, "linalg.matrix_power")  # (any dtype: matmuls)
    if n == 0:
        eye = np.broadcast_to(np.eye(input.shape[-1], dtype=input._data.dtype), input.shape)
        if not input.requires_grad:
            return _make(eye.copy())
        # torch's identity stays in the graph (a zero gradient for input): select it everywhere
        return api.where(_make(np.ones(input.shape, bool)), _make(eye.copy()), input)
    base, n, out = (inv(input) if n < 0 else input), abs(n), None
    if n == 3:  # torch's own order for a cube: (A A) A
        return api.matmul(api.matmul(base, base), base)
    while n:
        if n & 1:
            out = base if out is None else api.matmul(out, base)
        n >>= 1
        if n:
            base = api.matmul(base, base)
    return api.clone(out) if out is input else out  # (n == 1: a copy, as torch)


def multi_dot(tensors):
    """The product of the matrices in the order of fewest multiplications; the first (last)
    may be 1-D: a row (column) vector, its dim then dropped from the result."""
    D.check_chain(tensors)
    first, last = tensors[0]._data.ndim == 1, tensors[-1]._data.ndim == 1
    mats = list(tensors)
    if first:
        mats[0] = api.unsqueeze(mats[0], 0)
    if last:
        mats[-1] = api.unsqueeze(mats[-1], 1)
    out = D.chain_product(mats, api.matmul)
    if first:
        out = api.squeeze(out, 0)
    if last:
        out = api.squeeze(out, -1)
    return out


for _name in ("cholesky", "cholesky_ex", "qr", "eigh", "eigvalsh", "svd", "slogdet",
              "matrix_power", "multi_dot"):
    globals()[_name] = with_out(globals()[_name], "linalg." + _name)
__all__ += ["cholesky", "cholesky_ex", "qr", "eigh", "eigvalsh", "svd", "slogdet",
            "matrix_power", "multi_dot"]


# ------------------------------------------------------------------ torch.* and Tensor forms
SVDV = D.returns("svd", ("U", "S", "V"))


def _torch_cholesky(input, upper=False):
    """torch.cholesky (deprecated in torch for linalg.cholesky)."""
    warn_once("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be "
              "removed in a future PyTorch release.\nL = torch.cholesky(A)\nshould be replaced "
              "with\nL = torch.linalg.cholesky(A)\nand\nU = torch.cholesky(A, upper=True)\n"
              "should be replaced with\nU = torch.linalg.cholesky(A).mH\nThis transform will "
              "produce equivalent results for all valid (symmetric positive definite) inputs.")
    if input._data.size == 0 and input._data.ndim < 2:  # torch's legacy form: empty in, out
        return api.clone(input)
    return D.CholeskyBackward0.apply(input, upper=upper, name="cholesky")


def _torch_qr(input, some=True):
    """torch.qr: reduced (``some``) or complete Q."""
    return qr(input, "reduced" if some else "complete")


def _torch_svd(input, some=True, compute_uv=True):
    """torch.svd: (U, S, V) with V (not Vh); U and V zero-filled when not ``compute_uv``."""
    U, S, Vh = svd(input, full_matrices=not some)
    if not compute_uv:
        m, n = input.shape[-2:]
        shape = input.shape[:-2]
        U = _make(np.zeros(shape + (m, m), input._data.dtype))  # square, whatever ``some``
        V = _make(np.zeros(shape + (n, n), input._data.dtype))
        return SVDV((U, S.detach(), V))
    return SVDV((U, S, api.transpose(Vh, -2, -1)))


def _torch_slogdet(input):
    """torch.slogdet: (sign, logabsdet)."""
    sign, logabs = slogdet(input)
    out = D.returns("slogdet", ("sign", "logabsdet"))((sign, logabs))
    return out


def logdet(input):
    """log det of each square matrix: NaN where det < 0, -inf where det == 0."""
    X.refuse_low_precision(input._data, "logdet")
    return D.LogdetBackward0.apply(input)


def _torch_matrix_power(input, n):
    """torch.matrix_power: linalg.matrix_power under torch's argument names."""
    return matrix_power(input, n)


TORCH_FORMS = {"cholesky": _torch_cholesky, "qr": _torch_qr, "svd": _torch_svd,
               "slogdet": _torch_slogdet, "logdet": logdet, "matrix_power": _torch_matrix_power}
TENSOR_METHODS = dict(TORCH_FORMS)


from .ops.linalg_solvers import (  # noqa: E402
    cond,
    diagonal,
    inv_ex,
    lstsq,
    matmul,
    matrix_rank,
    pinv,
    pinverse,
    solve_ex,
    solve_triangular,
    triangular_solve,
    vecdot,
)

for _name in ("cond", "diagonal", "inv_ex", "lstsq", "matmul", "matrix_rank", "pinv",
              "solve_ex", "solve_triangular", "vecdot"):
    globals()[_name] = with_out(globals()[_name], "linalg." + _name)
__all__ += ["cond", "diagonal", "inv_ex", "lstsq", "matmul", "matrix_rank", "pinv", "solve_ex",
            "solve_triangular", "vecdot"]
TORCH_FORMS.update(pinverse=pinverse, triangular_solve=triangular_solve)
TENSOR_METHODS.update(pinverse=pinverse, triangular_solve=triangular_solve)

from .ops.lu import (  # noqa: E402
    lu,
    lu_factor,
    lu_factor_ex,
    lu_solve,
    lu_unpack,
    torch_lu,
    torch_lu_solve,
)

for _name in ("lu", "lu_factor", "lu_factor_ex", "lu_solve"):
    globals()[_name] = with_out(globals()[_name], "linalg." + _name)
__all__ += ["lu", "lu_factor", "lu_factor_ex", "lu_solve"]
TORCH_FORMS.update(lu_unpack=lu_unpack, lu_solve=torch_lu_solve, lu=torch_lu)
TENSOR_METHODS.update(lu_solve=torch_lu_solve, lu=torch_lu)

from .ops.cholesky_solve import cholesky_inverse, cholesky_solve  # noqa: E402

TORCH_FORMS.update(cholesky_solve=cholesky_solve, cholesky_inverse=cholesky_inverse)
vander = _composites.linalg_vander
__all__ += ["vander"]
TENSOR_METHODS.update(cholesky_solve=cholesky_solve, cholesky_inverse=cholesky_inverse)


from .ops.householder import geqrf, householder_product, orgqr, ormqr  # noqa: E402

householder_product = with_out(householder_product, "linalg.householder_product")
__all__ += ["householder_product"]
_HOUSEHOLDER = {"geqrf": with_out(geqrf, "geqrf"), "ormqr": with_out(ormqr, "ormqr"),
                "orgqr": with_out(orgqr, "orgqr")}
TORCH_FORMS.update(_HOUSEHOLDER)
TENSOR_METHODS.update(_HOUSEHOLDER)

from .ops import eig as _eig  # noqa: E402

Eig = D.returns("linalg_eig", ("eigenvalues", "eigenvectors"))


def eig(input):
    """(eigenvalues, eigenvectors as columns) of general square input, both complex
    (complex64 for float32 and complex64 input, else complex128); A V = V diag(L), each column
    of unit norm."""
    return Eig(_eig.eig(input))


def eigvals(input):
    """The complex eigenvalues of general square input."""
    return _eig.eigvals(input)


for _name in ("eig", "eigvals"):
    globals()[_name] = with_out(globals()[_name], "linalg." + _name)
__all__ += ["eig", "eigvals"]


_REMOVED = "This function was deprecated since version 1.9 and is now removed."
_REMOVED_ADVICE = {  # torch.X (and Tensor.X where torch has one) removed in torch 1.9: its text
    "eig": (True, " `torch.linalg.eig` returns complex tensors of dtype `cfloat` or `cdouble` "
            "rather than real tensors mimicking complex tensors.\n\nL, _ = torch.eig(A) should "
            "be replaced with:\nL_complex = torch.linalg.eigvals(A)\n\nand\n\nL, V = "
            "torch.eig(A, eigenvectors=True) should be replaced with:\nL_complex, V_complex = "
            "torch.linalg.eig(A)"),
    "solve": (True, " `torch.solve` is deprecated in favor of `torch.linalg.solve`. "
              "`torch.linalg.solve` has its arguments reversed and does not return the LU "
              "factorization.\n\nTo get the LU factorization see `torch.lu`, which can be used "
              "with `torch.lu_solve` or `torch.lu_unpack`.\nX = torch.solve(B, A).solution "
              "should be replaced with:\nX = torch.linalg.solve(A, B)"),
    "lstsq": (True, " `torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.\n"
              "`torch.linalg.lstsq` has reversed arguments and does not return the QR "
              "decomposition in the returned tuple (although it returns other information about "
              "the problem).\n\nTo get the QR decomposition consider using `torch.linalg.qr`."
              "\n\nThe returned solution in `torch.lstsq` stored the residuals of the solution in "
              "the last m - n columns of the returned value whenever m > n. In torch.linalg.lstsq,"
              " the residuals are in the field 'residuals' of the returned named tuple.\n\nThe "
              "unpacking of the solution, as in\nX, _ = torch.lstsq(B, A).solution[:A.size(1)]\n"
              "should be replaced with:\nX = torch.linalg.lstsq(A, B).solution"),
    "symeig": (True, " The default behavior has changed from using the upper triangular portion "
               "of the matrix by default to using the lower triangular portion.\n\nL, _ = "
               "torch.symeig(A, upper=upper) should be replaced with:\nL = torch.linalg.eigvalsh"
               "(A, UPLO='U' if upper else 'L')\n\nand\n\nL, V = torch.symeig(A, eigenvectors="
               "True) should be replaced with:\nL, V = torch.linalg.eigh(A, UPLO='U' if upper else"
               " 'L')"),
    "matrix_rank": (False, "\nPlease use the `torch.linalg.matrix_rank` function instead. The "
                    "parameter 'symmetric' was renamed in `torch.linalg.matrix_rank()` to "
                    "'hermitian'."),
}


def _removed(name):
    """torch.X removed from torch (1.9): raises torch's RuntimeError naming the replacement."""
    def removed(*args, **kwargs):
        raise RuntimeError(_REMOVED + _REMOVED_ADVICE[name][1])
    removed.__name__ = removed.__qualname__ = name
    return removed


for _name, (_method, _) in _REMOVED_ADVICE.items():
    TORCH_FORMS[_name] = _removed(_name)
    if _method:
        TENSOR_METHODS[_name] = TORCH_FORMS[_name]
