"""Solves with a Cholesky factor: torch.cholesky_solve (X = (L L^H)^-1 B, or (U^H U)^-1 B) and
torch.cholesky_inverse ((L L^H)^-1), with torch's gradients (which, as torch's, use the whole
factor matrix given, not only its triangle)."""
import numpy as np

from .._dtype import from_numpy_dtype
from .._tensor import Tensor
from ..autograd.graph import Node
from .linalg_extra import check_float, refuse_low_precision


def _factor_matrix(factor, upper):
    """A = L L^H (or U^H U) from the factor's triangle (the other entries are not read)."""
    t = np.triu(factor) if upper else np.tril(factor)
    th = np.conj(np.swapaxes(t, -1, -2))
    return th @ t if upper else t @ th


def _check(b, factor):
    check_float(factor, "cholesky_solve")
    if b.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {b.ndim} dimensions "
                           "instead")
    if factor.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {factor.ndim} "
                           "dimensions instead")
    if b.dtype != factor.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_name(b)} and A of type {_name(factor)} instead.")
    n = factor.shape[-1]
    if factor.shape[-2] != n or b.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{factor.shape[-2]} by {n} but each b matrix is {b.shape[-2]} by "
                           f"{b.shape[-1]}")


def _name(array):
    return from_numpy_dtype(array.dtype).scalar_name


class CholeskySolveBackward0(Node):
    """X = A^-1 B with A = L L^H;  dB = A^-1 g, dL = -(dB X^H + X dB^H) L (U: -U (...))."""

    saves_output = True

    def forward(self, b, factor, upper=False):
        y, f = b._data, factor._data
        _check(y, f)
        self.save(factor)
        self.upper = bool(upper)
        return np.linalg.solve(_factor_matrix(f, self.upper), y).astype(y.dtype, copy=False)

    def backward(self, m, g, factor, out):
        if m.is_graph:
            gb = cholesky_solve(g, factor, self.upper)
        else:
            gb = np.linalg.solve(_factor_matrix(factor, self.upper), g).astype(g.dtype)
        common = m.matmul(gb, m.conj(m.mT(out)))
        common = common + m.conj(m.mT(common))
        gf = -m.matmul(factor, common) if self.upper else -m.matmul(common, factor)
        return gb, gf


class CholeskyInverseBackward0(CholeskySolveBackward0):
    """A^-1 with A = L L^H (cholesky_solve of the identity);  dL as cholesky_solve's."""

    def forward(self, factor, upper=False):
        f = factor._data
        if f.ndim < 2:
            raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 "
                               "dimensions.")
        if f.shape[-1] != f.shape[-2]:
            raise RuntimeError(f"cholesky_inverse: A must be batches of square matrices, but "
                               f"they are {f.shape[-2]} by {f.shape[-1]} matrices")
        eye = Tensor._make(np.broadcast_to(np.eye(f.shape[-1], dtype=f.dtype), f.shape))
        return super().forward(eye, factor, upper)

    def backward(self, m, g, factor, out):
        return (super().backward(m, g, factor, out)[1],)


def cholesky_solve(input, input2, upper=False):
    """The solution X of (L L^H) X = input with L = input2's lower triangle (U^H U with its
    upper triangle when ``upper``)."""
    return CholeskySolveBackward0.apply(input, input2, upper=upper)


def cholesky_inverse(input, upper=False):
    """The inverse of L L^H (U^H U when ``upper``) from the factor ``input``."""
    refuse_low_precision(input._data, "cholesky_inverse")
    return CholeskyInverseBackward0.apply(input, upper=upper)
