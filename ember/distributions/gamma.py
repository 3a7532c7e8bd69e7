"""Gamma(concentration, rate): density rate^a x^(a-1) exp(-rate x) / Gamma(a), a the
concentration."""
import numbers

import ember

from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Positive values of mean concentration / rate. Samples are torch's (its Marsaglia-Tsang
    stream); rsample's gradient is the exact implicit one (torch's approximates it to ~1e-4)."""
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        scalar = isinstance(concentration, numbers.Number) and isinstance(rate, numbers.Number)
        super().__init__(() if scalar else self.concentration.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        return self._expanded(shape, concentration=self.concentration.expand(shape),
                              rate=self.rate.expand(shape))

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=()):
        """Gamma(a, 1) draws divided by rate, kept at least the dtype's smallest normal."""
        shape = self._extended_shape(sample_shape)
        value = ember._standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        value.detach().clamp_(min=ember.finfo(value.dtype).tiny)
        return value

    def log_prob(self, value):
        """a log(rate) + (a - 1) log(x) - rate x - lgamma(a)."""
        value = ember.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (ember.xlogy(self.concentration, self.rate) +
                ember.xlogy(self.concentration - 1, value) -
                self.rate * value - ember.lgamma(self.concentration))

    def cdf(self, value):
        """P(a, rate x), the regularized lower incomplete gamma function."""
        if self._validate_args:
            self._validate_sample(value)
        return ember.special.gammainc(self.concentration, self.rate * value)

    def entropy(self):
        a = self.concentration
        return a - ember.log(self.rate) + ember.lgamma(a) + (1.0 - a) * ember.digamma(a)
