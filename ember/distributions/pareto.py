"""Pareto(scale, alpha): scale exp(E) for E ~ Exponential(alpha); density alpha scale^alpha /
x^(alpha + 1) on x >= scale."""
from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """Power-law values from ``scale`` up, of tail index ``alpha``."""
    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale, alpha, validate_args=None):
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(base, [ExpTransform(), AffineTransform(loc=0, scale=self.scale)],
                         validate_args=validate_args)

    @property
    def support(self):
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self):
        a = self.alpha.clamp(min=1)  # inf for alpha <= 1
        return a * self.scale / (a - 1)

    @property
    def mode(self):
        return self.scale

    @property
    def variance(self):
        a = self.alpha.clamp(min=2)  # inf for alpha <= 2
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    def entropy(self):
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
