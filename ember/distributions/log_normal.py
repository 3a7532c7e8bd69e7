"""LogNormal(loc, scale): exp(X) for X ~ Normal(loc, scale)."""
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """Positive values whose log is normal with mean ``loc`` and standard deviation ``scale``."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    @property
    def loc(self):
        return self.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mean(self):
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self):
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self):
        """(exp(s^2) - 1) exp(2 loc + s^2)."""
        scale2 = self.scale.pow(2)
        return scale2.expm1() * (2 * self.loc + scale2).exp()

    def entropy(self):
        return self.base_dist.entropy() + self.loc
