"""Weibull(scale, concentration): scale E^(1/concentration) for E ~ Exponential(1)."""
import ember

from . import constraints
from .exponential import Exponential
from .gumbel import _EULER
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """Lifetimes with density (k / s) (x / s)^(k-1) exp(-(x / s)^k), k = ``concentration``."""
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        base = Exponential(ember.ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal),
                      AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def concentration_reciprocal(self):
        return self.concentration.reciprocal()

    @property
    def mean(self):
        return self.scale * ember.exp(ember.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        k = self.concentration
        return self.scale * ((k - 1) / k) ** k.reciprocal()

    @property
    def variance(self):
        k_inv = self.concentration_reciprocal
        return self.scale.pow(2) * (ember.exp(ember.lgamma(1 + 2 * k_inv)) -
                                    ember.exp(2 * ember.lgamma(1 + k_inv)))

    def entropy(self):
        k_inv = self.concentration_reciprocal
        return _EULER * (1 - k_inv) + ember.log(self.scale * k_inv) + 1
