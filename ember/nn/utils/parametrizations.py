"""torch.nn.utils.parametrizations: weight normalization as a parametrization (the original
tensor kept as ``parametrizations.<name>.original0`` (g) and ``original1`` (v))."""
from ..modules.module import Module
from . import parametrize
from .weight_norm import _check_dim, _norm_except_dim, weight_from

__all__ = ["weight_norm"]


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
