"""Kumaraswamy(concentration1, concentration0): (1 - U^(1/b))^(1/a) for U uniform, a
Beta-like distribution with a closed-form cdf."""
import math

import ember

from . import constraints
from .gumbel import _EULER
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Kumaraswamy"]


def _moments(a, b, n):
    """E[X^n] = b B(1 + n / a, b)."""
    arg1 = 1 + n / a
    return b * ember.exp(ember.lgamma(arg1) + ember.lgamma(b) - ember.lgamma(arg1 + b))


class Kumaraswamy(TransformedDistribution):
    """Values in (0, 1) with density a b x^(a-1) (1 - x^a)^(b-1)."""
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(ember.full_like(self.concentration0, 0),
                       ember.full_like(self.concentration0, 1), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        """((a - 1) / (a b - 1))^(1 / a); nan unless a, b >= 1."""
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        log_mode[(b < 1) | (a < 1)] = math.nan
        return log_mode.exp()

    @property
    def variance(self):
        return _moments(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        harmonic = ember.digamma(self.concentration0 + 1) + _EULER
        return t0 + t1 * harmonic - ember.log(self.concentration1) - \
            ember.log(self.concentration0)
