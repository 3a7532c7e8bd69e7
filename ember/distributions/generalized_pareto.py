"""GeneralizedPareto(loc, scale, concentration): the tail distribution of extreme-value theory,
survival (1 + c z)^(-1/c), z = (x - loc) / scale (exp(-z) at c = 0)."""
import math
import numbers

import ember

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Values from ``loc`` up (to loc - scale / c when c < 0): exponential at c = 0, Pareto-like
    tails for c > 0."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        scalar = all(isinstance(v, numbers.Number) for v in (loc, scale, concentration))
        super().__init__(() if scalar else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        return self._expanded(shape, loc=self.loc.expand(shape), scale=self.scale.expand(shape),
                              concentration=self.concentration.expand(shape))

    def _safe_concentration(self):
        """(whether c is 0 (isclose), c with 1 put there) for the formulas that divide by c."""
        c = self.concentration
        zero = ember.isclose(c, ember.zeros_like(c))
        return zero, ember.where(zero, ember.ones_like(c), c)

    def rsample(self, sample_shape=()):
        u = ember.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.icdf(u)

    def log_prob(self, value):
        """-log(scale) - (1 + 1/c) log1p(c z) (-z at c = 0)."""
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, c = self._safe_concentration()
        y = 1 / c + ember.ones_like(z)
        nonzero = ember.where(y == 0, y, y * ember.log1p(c * z))
        return -self.scale.log() - ember.where(zero, z, nonzero)

    def log_survival_function(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, c = self._safe_concentration()
        return ember.where(zero, -z, -ember.log1p(c * z) / c)

    def log_cdf(self, value):
        return ember.log1p(-ember.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return ember.exp(self.log_cdf(value))

    def icdf(self, value):
        """loc + scale ((1 - u)^-c - 1) / c (loc - scale log(1 - u) at c = 0)."""
        zero, c = self._safe_concentration()
        log_u = ember.log1p(-value)
        return ember.where(zero, self.loc - self.scale * log_u,
                           self.loc + self.scale / c * ember.expm1(-c * log_u))

    @property
    def mean(self):
        valid = self.concentration < 1
        c = ember.where(valid, self.concentration, 0.5)
        return ember.where(valid, self.loc + self.scale / (1 - c), math.nan)

    @property
    def variance(self):
        valid = self.concentration < 0.5
        c = ember.where(valid, self.concentration, 0.25)
        return ember.where(valid, self.scale ** 2 / ((1 - c) ** 2 * (1 - 2 * c)), math.nan)

    def entropy(self):
        return ember.broadcast_to(ember.log(self.scale) + self.concentration + 1,
                                  self._batch_shape)

    @property
    def mode(self):
        return self.loc

    @property
    def support(self):
        upper = ember.where(self.concentration < 0, self.loc - self.scale / self.concentration,
                            math.inf)
        return constraints.interval(self.loc, upper)
