"""StudentT(df, loc, scale): loc + scale X / sqrt(V / df), X standard normal, V ~ Chi2(df)."""
import math

import ember

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Heavy-tailed values of ``df`` degrees of freedom around ``loc``."""
    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        return self._expanded(shape, df=self.df.expand(shape), loc=self.loc.expand(shape),
                              scale=self.scale.expand(shape), _chi2=self._chi2.expand(shape))

    @property
    def mean(self):
        m = self.loc.clone(memory_format=ember.contiguous_format)
        m[self.df <= 1] = math.nan
        return m

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        """scale^2 df / (df - 2) for df > 2; inf for 1 < df <= 2; nan for df <= 1."""
        m = self.df.clone(memory_format=ember.contiguous_format)
        big = self.df > 2
        m[big] = self.scale[big].pow(2) * self.df[big] / (self.df[big] - 2)
        m[(self.df <= 2) & (self.df > 1)] = math.inf
        m[self.df <= 1] = math.nan
        return m

    def rsample(self, sample_shape=()):
        """Normal draws first, then the chi-squared ones (torch's order of the stream)."""
        shape = self._extended_shape(sample_shape)
        x = ember.empty(shape, dtype=self.df.dtype).normal_()
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * ember.rsqrt(z / self.df)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        norm = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) +
                ember.lgamma(0.5 * self.df) - ember.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * ember.log1p(y ** 2.0 / self.df) - norm

    def entropy(self):
        df = self.df
        log_beta = ember.lgamma(0.5 * df) + math.lgamma(0.5) - ember.lgamma(0.5 * (df + 1))
        return (self.scale.log() + 0.5 * (df + 1) * (ember.digamma(0.5 * (df + 1)) -
                                                     ember.digamma(0.5 * df)) +
                0.5 * df.log() + log_beta)
