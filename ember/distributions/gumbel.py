"""Gumbel(loc, scale): density exp(-(z + exp(-z))) / scale, z = (x - loc) / scale."""
import math
import numbers

import ember

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Gumbel"]

_EULER = 0.57721566490153286060


class Gumbel(TransformedDistribution):
    """Maxima of samples: loc - scale log(-log u) for u uniform on [tiny, 1 - eps)."""
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = ember.finfo(self.loc.dtype)
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            base = Uniform(finfo.tiny, 1 - finfo.eps, validate_args=validate_args)
        else:
            base = Uniform(ember.full_like(self.loc, finfo.tiny),
                           ember.full_like(self.loc, 1 - finfo.eps), validate_args=validate_args)
        transforms = [ExpTransform().inv,
                      AffineTransform(loc=0, scale=-ember.ones_like(self.scale)),
                      ExpTransform().inv, AffineTransform(loc=self.loc, scale=-self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def log_prob(self, value):
        """z - exp(z) - log(scale), z = (loc - x) / scale."""
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * _EULER

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + _EULER)
