"""torch.nn.utils.parametrizations: weight normalization (the original tensor kept as
``parametrizations.<name>.original0`` (g) and ``original1`` (v)), spectral normalization
(``parametrizations.<name>.original``, divided by its largest singular value) and orthogonal
(or unitary) matrices as parametrizations."""
from ... import _creation, _dtype, _tensor, linalg
from ...autograd.grad_mode import no_grad
from ...ops import aliases, api
from ...ops.householder import geqrf
from ...ops.shape_extra import vdot
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from . import parametrize
from .weight_norm import _check_dim, _norm_except_dim, weight_from

__all__ = ["orthogonal", "weight_norm", "spectral_norm"]


class _WeightNorm(Module):
    """w = g * v / ||v||, the norm over every dim but ``dim`` (None: over all)."""

    def __init__(self, dim=0):
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g, weight_v):
        return weight_from(weight_g, weight_v, self.dim)

    def right_inverse(self, weight):
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module, name="weight", dim=0):
    """Parametrize ``module.<name>`` as g * v / ||v|| (g and v trained in its place)."""
    weight = getattr(module, name)
    _check_dim(weight, -1 if dim is None else dim)
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    """w / sigma, sigma the largest singular value of w seen as a matrix (rows along ``dim``),
    estimated by power iteration on the buffers ``_u`` and ``_v`` (one step per forward in
    training mode; 15 at construction); a 1-D weight is normalized instead."""

    def __init__(self, weight, n_power_iterations=1, dim=0, eps=1e-12):
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, "
                             f"{ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            u = weight_mat.new_empty(h).normal_(0, 1)  # (u drawn first, as torch)
            v = weight_mat.new_empty(w).normal_(0, 1)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight):
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat, n_power_iterations):
        """u <- normalize(W v), then v <- normalize(W^H u), in place in the buffers."""
        with no_grad():
            for _ in range(n_power_iterations):
                F.normalize(aliases.mv(weight_mat, self._v), dim=0, eps=self.eps, out=self._u)
                F.normalize(aliases.mv(weight_mat.mH, self._u), dim=0, eps=self.eps,
                            out=self._v)

    def forward(self, weight):
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = vdot(u, aliases.mv(weight_mat, v))
        return api.div(weight, sigma)

    def right_inverse(self, value):
        return value


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Parametrize ``module.<name>`` as itself over its spectral norm (dim: 1 for transposed
    convolutions, else 0)."""
    weight = getattr(module, name, None)
    if not isinstance(weight, _tensor.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module


# ---------------------------------------------------------------- orthogonal

_ORTHOGONAL_MAPS = ("matrix_exp", "cayley", "householder")


def _is_orthogonal(Q):
    """Q^H Q == I to within 10 n eps (torch's tolerance), Q of shape (..., n, k)."""
    rows, cols = Q.shape[-2:]
    eye = _creation.eye(cols, dtype=Q.dtype)
    return api.allclose(Q.mH @ Q, eye, atol=10.0 * rows * _dtype.finfo(Q.dtype).eps)


def _make_orthogonal(A):
    """The Q of A = QR (A tall) with diag(R) real and non-negative: geqrf's Q, each column
    times the sign of R's diagonal entry."""
    compact, tau = geqrf(A)
    Q = linalg.householder_product(compact, tau)
    return Q * compact.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


def _skew_square(X):
    """X - X^H of the lower triangle of tall X, padded with zero columns to square."""
    rows, cols = X.shape[-2:]
    X = X.tril()
    if rows != cols:
        zeros = X.new_zeros(rows, rows - cols).expand(*X.shape[:-2], -1, -1)
        X = api.cat([X, zeros], -1)
    return X - X.mH


class _Orthogonal(Module):
    """Q (orthonormal columns, or rows when wider than tall) from an unconstrained tensor:
    the matrix exponential or Cayley transform of a skew matrix built from its lower triangle,
    or the product of Householder reflectors stored in its strict lower triangle (signs on its
    diagonal); with ``use_trivialization``, times the orthogonal buffer ``base``."""

    def __init__(self, weight, orthogonal_map, *, use_trivialization=True):
        super().__init__()
        if weight.is_complex() and orthogonal_map == "householder":
            # complex reflectors would need tau as free parameters: not every (A, tau) is unitary
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X):
        transposed = X.shape[-2] < X.shape[-1]
        if transposed:
            X = X.mT
        rows, cols = X.shape[-2:]
        if self.orthogonal_map == "householder":
            Q = self._householder(X)
        else:
            A = _skew_square(X)
            if self.orthogonal_map == "matrix_exp":
                Q = linalg.matrix_exp(A)
            else:  # Cayley: (I + A/2)(I - A/2)^-1, as a solve
                eye = _creation.eye(rows, dtype=A.dtype)
                Q = linalg.solve(api.add(eye, A, alpha=-0.5), api.add(eye, A, alpha=0.5))
            Q = Q[..., :cols]
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    @staticmethod
    def _householder(X):
        """Reflectors I - 2 v v^T / |v|^2 from X's strict lower triangle; the signs of X's
        diagonal (not differentiated: they stay +-1) scale Q's columns."""
        A = X.tril(diagonal=-1)
        tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
        Q = linalg.householder_product(A, tau)
        return Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)

    def right_inverse(self, Q):
        with no_grad():
            return self._right_inverse(Q)

    def _right_inverse(self, Q):
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        given = Q
        transposed = Q.shape[-2] < Q.shape[-1]
        if transposed:
            Q = Q.mT
        if not hasattr(self, "base"):
            return self._householder_inverse(Q, transposed)
        rows, cols = Q.shape[-2:]
        if rows == cols:
            Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
        else:  # completed to a square orthogonal matrix by random columns (torch's draw)
            extra = _creation.randn(*Q.shape[:-2], rows, rows - cols, dtype=Q.dtype)
            Q = _make_orthogonal(api.cat([Q, extra], -1))
        self.base = Q
        # -I: the householder map sends it to I (the identity, here: Q = base)
        minus_eye = _creation.zeros_like(given)
        minus_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return minus_eye

    def _householder_inverse(self, Q, transposed):
        """Without trivialization, only the Householder map can be assigned: Q's reflectors,
        with diag(R) taken positive (a sign per column, flipped where LAPACK reflected none)."""
        if self.orthogonal_map != "householder":
            raise NotImplementedError("It is not possible to assign to the matrix exponential "
                                      "or the Cayley parametrizations when "
                                      "use_trivialization=False.")
        A, tau = geqrf(Q)
        A.diagonal(dim1=-2, dim2=-1).sign_()
        A.diagonal(dim1=-2, dim2=-1)[tau == 0.0] *= -1
        return A.mT if transposed else A


def orthogonal(module, name="weight", orthogonal_map=None, *, use_trivialization=True):
    """Parametrize ``module.<name>`` (a matrix or a batch) as orthogonal (unitary if complex):
    ``orthogonal_map`` "matrix_exp", "cayley" or "householder" (default: "matrix_exp" for
    square or complex weights, else "householder"); the initial value is the weight itself if
    orthogonal, else the Q of its QR decomposition."""
    weight = getattr(module, name, None)
    if not isinstance(weight, _tensor.Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} "
                         "dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    if not isinstance(orthogonal_map, str):  # (torch looks the name up as an attribute)
        raise TypeError(f"attribute name must be string, not '{type(orthogonal_map).__name__}'")
    if orthogonal_map not in _ORTHOGONAL_MAPS:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    parametrization = _Orthogonal(weight, orthogonal_map, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, parametrization, unsafe=True)
    return module
