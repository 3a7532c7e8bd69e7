"""ember.linalg, as torch.linalg: norms, inverse, solve and determinant."""
import math

from . import _dtype
from .ops import api
from .ops import composites as _composites
from .ops import linalg_extra as X
from .ops.linalg_extra import LinAlgError  # noqa: F401  (public, as torch.linalg.LinAlgError)
from .ops.matrix_functions import eigvalsh, matrix_exp  # noqa: F401  (public)
from .ops.out import with_out
from .ops.reduction import LinalgVectorNormBackward0
from .ops.shape import _dim

__all__ = ["LinAlgError", "det", "eigvalsh", "inv", "matrix_exp", "matrix_norm", "norm", "solve",
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


def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None):
    """(sum |x|^ord)^(1/ord) over dim (all elements when None); ord may be inf, -inf or 0."""
    X.check_float(input._data, "linalg.vector_norm")
    x = _cast(input, dtype, "linalg.vector_norm")
    dim = None if dim is None or (not isinstance(dim, int) and not len(dim)) else dim
    if ord == 0 or ord == -math.inf:
        return X._VectorNormExtremes.apply(x, p=ord, dim=dim, keepdim=keepdim)
    return LinalgVectorNormBackward0.apply(x, p=ord, dim=dim, keepdim=keepdim)


def svdvals(A):
    """The singular values of A (batched), in descending order."""
    return X.LinalgSvdBackward0.apply(A)


def _matrix_dims(A, dim):
    if A._data.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    d0, d1 = (_dim(A._data.ndim, d) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, "
                           f"{dim[1]})")
    return d0, d1


def matrix_norm(input, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """Frobenius, nuclear, 1, -1, inf, -inf, 2 or -2 norm of the matrices over dims ``dim``."""
    X.check_float(input._data, "linalg.matrix_norm")
    A = _cast(input, dtype, "linalg.matrix_norm")
    d0, d1 = _matrix_dims(A, dim)
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
    return X.LinalgInvExBackward0.apply(A)


def solve(A, B, *, left=True):
    """X with A X = B (or X A = B when not ``left``); B may be a vector or a batch of them."""
    return X.LinalgSolveExBackward0.apply(A, B, left=left)


def det(A):
    """The determinant of each square matrix."""
    return X.LinalgDetBackward0.apply(A)



for _name in ("vector_norm", "matrix_norm", "norm", "inv", "solve", "det", "svdvals"):
    globals()[_name] = with_out(globals()[_name], "linalg." + _name)


def cross(input, other, *, dim=-1):
    """The cross product of 3-vectors along ``dim`` (the inputs broadcast)."""
    return _composites.cross(input, other, dim=dim)


__all__ += ["cross"]
