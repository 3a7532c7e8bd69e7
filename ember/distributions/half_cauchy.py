"""HalfCauchy(scale): |X| for X ~ Cauchy(0, scale)."""
import math

import ember

from .cauchy import Cauchy
from .half_normal import _Folded

__all__ = ["HalfCauchy"]


class HalfCauchy(_Folded):
    """|X| for X ~ Cauchy(0, ``scale``): no mean, infinite variance."""

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self):
        return ember.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self):
        return ember.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    def log_prob(self, value):
        """As HalfNormal's; without validation a number is taken as a tensor of scale's dtype."""
        if self._validate_args:
            self._validate_sample(value)
        return self._folded_log_prob(ember.as_tensor(value, dtype=self.scale.dtype))
