"""Normal(loc, scale): density exp(-(x - loc)^2 / (2 scale^2)) / (scale sqrt(2 pi))."""
import math

import ember

from .distribution import _LocationScale
from .exp_family import ExponentialFamily

__all__ = ["Normal"]


class Normal(_LocationScale, ExponentialFamily):
    """The normal distribution of mean ``loc`` and standard deviation ``scale``."""

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=()):
        """loc + eps * scale, eps drawn from the standard normal (gradients reach loc, scale)."""
        shape = self._extended_shape(sample_shape)
        eps = ember.empty(shape, dtype=self.loc.dtype).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        """-(x - loc)^2 / (2 var) - log(scale) - log(sqrt(2 pi))."""
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - \
            math.log(math.sqrt(2 * math.pi))

    def cdf(self, value):
        """(1 + erf((x - loc) / (scale sqrt 2))) / 2."""
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + ember.erf((value - self.loc) * self.scale.reciprocal() /
                                    math.sqrt(2)))

    def icdf(self, value):
        """loc + scale erfinv(2p - 1) sqrt 2."""
        return self.loc + self.scale * ember.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        """1/2 + log(2 pi)/2 + log(scale)."""
        return 0.5 + 0.5 * math.log(2 * math.pi) + ember.log(self.scale)
