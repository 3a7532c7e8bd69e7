"""ExponentialFamily: the distributions whose density is exp(<t(x), theta> - F(theta) + k(x))."""
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Marks a distribution as an exponential family (kl_divergence's fallback knows them)."""
