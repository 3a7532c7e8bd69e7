"""Spectral normalization (the hook-based API): w = w_orig / sigma, sigma by power iteration."""
from ...autograd.grad_mode import no_grad
from ...ops import aliases, api
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..parameter import Parameter
from .weight_norm import remove_hook

__all__ = ["SpectralNorm", "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """Forward pre-hook that sets ``name`` to ``name_orig`` over its largest singular value."""

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.name, self.dim = name, dim
        self.n_power_iterations, self.eps = n_power_iterations, eps

    def reshape_weight_to_matrix(self, weight):
        """The weight as a matrix whose rows run along ``dim``."""
        if self.dim != 0:
            if not 0 <= self.dim < weight.ndim:  # torch's permute fails on the ordering's length
                raise RuntimeError(
                    "permute(): number of dimensions in the tensor input does not match the "
                    "length of the desired ordering of dimensions i.e. input.dim() = "
                    f"{weight.ndim} is not equal to len(dims) = {weight.ndim + 1}")
            weight = weight.permute(self.dim, *[d for d in range(weight.ndim) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def _power_iteration(self, weight_mat, u, v):
        """Update the buffers u, v in place (as torch's ``out=``); return fresh copies."""
        with no_grad():
            for _ in range(self.n_power_iterations):
                v.copy_(F.normalize(aliases.mv(weight_mat.t(), u), dim=0, eps=self.eps))
                u.copy_(F.normalize(aliases.mv(weight_mat, v), dim=0, eps=self.eps))
            return u.clone(), v.clone()

    def compute_weight(self, module, do_power_iteration):
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            u, v = self._power_iteration(weight_mat, u, v)
        sigma = aliases.dot(u, aliases.mv(weight_mat, v))
        return api.div(weight, sigma)

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        for suffix in ("", "_u", "_v", "_orig"):
            delattr(module, self.name + suffix)
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, module.training))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(
                    f"Cannot register two spectral_norm hooks on the same parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        with no_grad():
            height, width = fn.reshape_weight_to_matrix(weight).shape
            # u, v start as normalised N(0, 1) draws, in torch's order (u first)
            u = F.normalize(weight.new_empty(height).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(width).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        return fn


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm before each forward (dim=1 for ConvT)."""
    if dim is None:
        transposed = (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)
        dim = 1 if isinstance(module, transposed) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Fold the normalised weight back into one parameter ``<name>``."""
    return remove_hook(module, name, SpectralNorm, "spectral_norm")
