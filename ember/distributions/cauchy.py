"""Cauchy(loc, scale): density 1 / (pi scale (1 + ((x - loc) / scale)^2))."""
import math

import ember

from .distribution import Distribution, _LocationScale

__all__ = ["Cauchy"]


class Cauchy(_LocationScale, Distribution):
    """The Lorentz distribution centred on ``loc`` (no mean; infinite variance)."""

    @property
    def mean(self):
        return ember.full(self._extended_shape(), math.nan, dtype=self.loc.dtype)

    @property
    def variance(self):
        return ember.full(self._extended_shape(), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape=()):
        """loc + eps * scale, eps drawn by cauchy_ (gradients reach loc and scale)."""
        shape = self._extended_shape(sample_shape)
        eps = ember.empty(shape, dtype=self.loc.dtype).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """-log(pi) - log(scale) - log1p(((x - loc) / scale)^2)."""
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - \
            (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return ember.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return ember.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
