"""Linear-algebra primitives beyond products: inverse, solve, determinant, singular values, and
the vector norms of order 0 and -inf."""
import numpy as np

from .. import _dtype
from ..autograd._math import array_math
from ..autograd.graph import Node
from .reduction import LinalgVectorNormBackward0, _expand_back, _prod_others


class LinAlgError(RuntimeError):
    """A matrix the operation cannot handle (singular), as torch.linalg.LinAlgError."""


def check_float(x, name):
    if x.dtype.kind != "f":
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{_dtype.of_numpy(x.dtype).scalar_name}")


def check_square(x, name):
    check_float(x, name)
    if x.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if x.shape[-1] != x.shape[-2]:
        raise RuntimeError(f"{name}: A must be batches of square matrices, but they are "
                           f"{x.shape[-2]} by {x.shape[-1]} matrices")


def _zero_pivot(a):
    """1-based index of the first zero pivot of LU with partial pivoting (torch's message)."""
    a = np.array(a, dtype=np.float64)
    n = a.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if a[p, k] == 0:
            return k + 1
        a[[k, p]] = a[[p, k]]
        a[k + 1:, k:] -= np.outer(a[k + 1:, k] / a[k, k], a[k, k:])
    return n


def _singular_inverse(x):
    flat = x.reshape((-1,) + x.shape[-2:])
    for i, matrix in enumerate(flat):
        if np.linalg.matrix_rank(matrix) < matrix.shape[0] or not np.isfinite(matrix).all():
            batch = f"(Batch element {i}): " if x.ndim > 2 else ""
            return LinAlgError(f"linalg.inv: {batch}The diagonal element {_zero_pivot(matrix)} "
                               "is zero, the inversion could not be completed because the "
                               "input matrix is singular.")
    return LinAlgError("linalg.inv: the inversion could not be completed because the input "
                       "matrix is singular.")


class LinalgInvExBackward0(Node):
    """out = A^-1;  dA = -out^T g out^T."""

    saves_output = True

    def forward(self, a):
        x = a._data
        check_square(x, "linalg.inv")
        try:
            return np.linalg.inv(x)
        except np.linalg.LinAlgError:
            raise _singular_inverse(x) from None

    def backward(self, m, g, out):
        inv_t = m.mT(out)
        return (-m.matmul(m.matmul(inv_t, g), inv_t),)


def _inv(m, x):
    return LinalgInvExBackward0.apply(x) if m.is_graph else np.linalg.inv(x)


def is_vector_rhs(a, b):
    """torch.linalg.solve treats B as a vector when it is 1-D or A's batch of vectors."""
    return b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])


class LinalgSolveExBackward0(Node):
    """X = A^-1 B (left) or B A^-1;  left: dB = A^-T g, dA = -dB X^T;
    right: dB = g A^-T, dA = -X^T dB."""

    saves_output = True

    def forward(self, a, b, left=True):
        x, y = a._data, b._data
        check_square(x, "linalg.solve")
        self.vector, self.left = is_vector_rhs(x, y), left
        y = y[..., None] if self.vector else y
        if (y.shape[-2] if left else y.shape[-1]) != x.shape[-1]:
            raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                               f"{'AX = B' if left else 'XA = B'} ({x.shape[-2]}x{x.shape[-1]} "
                               f"and {y.shape[-2]}x{y.shape[-1]})")
        self.save(a)
        try:
            out = np.linalg.solve(x, y) if left else np.swapaxes(
                np.linalg.solve(np.swapaxes(x, -1, -2), np.swapaxes(y, -1, -2)), -1, -2)
        except np.linalg.LinAlgError:
            raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix "
                              "is singular.") from None
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
    return LinalgSolveExBackward0.apply(a, b) if m.is_graph else np.linalg.solve(a, b)


class LinalgDetBackward0(Node):
    """out = det(A);  dA = g * cofactor(A) = g * det(A) * A^-T (an SVD formula where singular)."""

    saves_output = True

    def forward(self, a):
        check_square(a._data, "linalg.det")
        self.save(a)
        return np.linalg.det(a._data)

    def backward(self, m, g, a, out):
        scale = m.unsqueeze(m.unsqueeze(g * out, -1), -1)
        if np.all(m.data(out) != 0):
            return (scale * m.mT(_inv(m, a)),)
        if m.is_graph:
            raise NotImplementedError("the second derivative of det at a singular matrix is not "
                                      "implemented")
        return (m.unsqueeze(m.unsqueeze(g, -1), -1) * _cofactor(a),)


def _cofactor(x):
    """det(A) * A^-T, defined for singular A: U diag(prod of the other singular values) Vh,
    signed by det(U) det(Vh)."""
    u, s, vh = np.linalg.svd(x)
    others = _prod_others(array_math, s, s.ndim - 1)
    sign = np.linalg.det(u) * np.linalg.det(vh)
    return sign[..., None, None] * np.matmul(u * others[..., None, :], vh)


class LinalgSvdBackward0(Node):
    """out = singular values of A (descending);  dA = U diag(g) Vh (first derivative only)."""

    def forward(self, a):
        x = a._data
        check_float(x, "linalg.svdvals")
        self.save(a)
        self.u, s, self.vh = np.linalg.svd(x, full_matrices=False)
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
    """The vector norms of order 0 (count of nonzeros, gradient 0) and -inf (min |a|, ties
    share the gradient); torch names them LinalgVectorNormBackward0 too."""

    saves_output = True

    def forward(self, a, p, dim=None, keepdim=False):
        super().forward(a, 2, dim, keepdim)
        self.p, x = p, a._data
        if p == 0:
            return np.sum(x != 0, axis=self.dims, keepdims=keepdim).astype(x.dtype)
        return np.amin(np.abs(x), axis=self.dims, keepdims=keepdim)

    def backward(self, m, g, a, out):
        g = _expand_back(m, g, self.shape, self.dims, self.keepdim)
        if self.p == 0:
            return (g * 0,)
        out = _expand_back(m, out, self.shape, self.dims, self.keepdim)
        mask = m.data(m.abs(a)) == m.data(out)
        share = (mask / np.sum(mask, axis=self.dims, keepdims=True)).astype(m.data(g).dtype)
        return (g * m.sign(a) * share,)


_VectorNormExtremes.__name__ = _VectorNormExtremes.__qualname__ = "LinalgVectorNormBackward0"
