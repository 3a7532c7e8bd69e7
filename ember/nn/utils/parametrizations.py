"""torch.nn.utils.parametrizations: weight normalization (the original tensor kept as
``parametrizations.<name>.original0`` (g) and ``original1`` (v)) and spectral normalization
(``parametrizations.<name>.original``, divided by its largest singular value) as
parametrizations."""
from ... import _tensor
from ...autograd.grad_mode import no_grad
from ...ops import aliases, api
from ...ops.shape_extra import vdot
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from . import parametrize
from .weight_norm import _check_dim, _norm_except_dim, weight_from

__all__ = ["weight_norm", "spectral_norm"]


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
