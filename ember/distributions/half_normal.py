"""HalfNormal(scale) and the fold shared with HalfCauchy: |X| for X centred at 0."""
import math

import ember

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


class _Folded(TransformedDistribution):
    """|X| for X of a symmetric ``base`` centred at 0: density doubled on x >= 0, -inf below."""
    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, base, validate_args=None):
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self):
        return self.base_dist.scale

    @property
    def mode(self):
        return ember.zeros_like(self.scale)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._folded_log_prob(value)

    def _folded_log_prob(self, value):
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return ember.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_Folded):
    """|X| for X ~ Normal(0, ``scale``)."""

    def __init__(self, scale, validate_args=None):
        super().__init__(Normal(0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self):
        return self.scale.pow(2) * (1 - 2 / math.pi)
