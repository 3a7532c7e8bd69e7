"""FisherSnedecor(df1, df2): (X1 / df1) / (X2 / df2) for independent chi-squared X1, X2 (the F
distribution)."""
import math
import numbers

import ember

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """Ratios of scaled chi-squared variables of ``df1`` and ``df2`` degrees of freedom."""
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        scalar = isinstance(df1, numbers.Number) and isinstance(df2, numbers.Number)
        super().__init__(() if scalar else self.df1.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        return self._expanded(shape, df1=self.df1.expand(shape), df2=self.df2.expand(shape),
                              _gamma1=self._gamma1.expand(shape),
                              _gamma2=self._gamma2.expand(shape))

    @property
    def mean(self):
        df2 = self.df2.clone(memory_format=ember.contiguous_format)
        df2[df2 <= 2] = math.nan
        return df2 / (df2 - 2)

    @property
    def mode(self):
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        mode[self.df1 <= 2] = math.nan
        return mode

    @property
    def variance(self):
        df2 = self.df2.clone(memory_format=ember.contiguous_format)
        df2[df2 <= 4] = math.nan
        return (2 * df2.pow(2) * (self.df1 + df2 - 2) /
                (self.df1 * (df2 - 2).pow(2) * (df2 - 4)))

    def rsample(self, sample_shape=()):
        """Gamma(df1 / 2, df1) over Gamma(df2 / 2, df2), both kept at least tiny."""
        shape = self._extended_shape(sample_shape)
        x1 = self._gamma1.rsample(sample_shape).view(shape)
        x2 = self._gamma2.rsample(sample_shape).view(shape)
        tiny = ember.finfo(x2.dtype).tiny
        x2.clamp_(min=tiny)
        y = x1 / x2
        y.clamp_(min=tiny)
        return y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        ct1, ct2, ct3 = self.df1 * 0.5, self.df2 * 0.5, self.df1 / self.df2
        t1 = (ct1 + ct2).lgamma() - ct1.lgamma() - ct2.lgamma()
        t2 = ct1 * ct3.log() + (ct1 - 1) * ember.log(value)
        t3 = (ct1 + ct2) * ember.log1p(ct3 * value)
        return t1 + t2 - t3
