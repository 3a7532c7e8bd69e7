"""InverseGamma(concentration, rate): 1 / X for X ~ Gamma(concentration, rate)."""
import math

import ember

from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """Positive values with density rate^a x^(-a-1) exp(-rate / x) / Gamma(a)."""
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base = Gamma(concentration, rate, validate_args=validate_args)
        super().__init__(base, PowerTransform(-base.rate.new_ones(())),
                         validate_args=validate_args)

    @property
    def concentration(self):
        return self.base_dist.concentration

    @property
    def rate(self):
        return self.base_dist.rate

    @property
    def mean(self):
        result = self.rate / (self.concentration - 1)
        return ember.where(self.concentration > 1, result, math.inf)

    @property
    def mode(self):
        return self.rate / (self.concentration + 1)

    @property
    def variance(self):
        result = self.rate.square() / ((self.concentration - 1).square() *
                                       (self.concentration - 2))
        return ember.where(self.concentration > 2, result, math.inf)

    def entropy(self):
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()
