"""Exponential(rate): density rate * exp(-rate x) for x >= 0."""
import ember

from . import constraints
from .exp_family import _RateFamily

__all__ = ["Exponential"]


class Exponential(_RateFamily):
    """Waiting times of mean 1 / ``rate``."""
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return ember.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def rsample(self, sample_shape=()):
        """exponential_() draws of rate 1, divided by rate."""
        shape = self._extended_shape(sample_shape)
        return ember.empty(shape, dtype=self.rate.dtype).exponential_() / self.rate

    def log_prob(self, value):
        """log(rate) - rate x."""
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - ember.exp(-self.rate * value)

    def icdf(self, value):
        return -ember.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - ember.log(self.rate)
