"""NegativeBinomial(total_count, probs | logits): failures before total_count successes, a
Poisson whose rate is Gamma(total_count, (1 - p) / p)."""
import ember
from ember.nn import functional as F

from . import constraints
from .binomial import _CountedTrials
from .distribution import Distribution
from .gamma import Gamma
from .utils import lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_CountedTrials, Distribution):
    """Counts k >= 0 with probability C(k + r - 1, k) (1 - p)^r p^k, r = ``total_count`` (torch's
    convention: ``probs`` is the probability of the counted outcome)."""
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        super().__init__(total_count, probs, logits, validate_args=validate_args)

    @property
    def mean(self):
        return self.total_count * ember.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / ember.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=ember.exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape=()):
        """Poisson counts of Gamma-distributed rates (the gamma draws first, as torch)."""
        with ember.no_grad():
            return ember.poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        unnormalized = self.total_count * F.logsigmoid(-self.logits) + \
            value * F.logsigmoid(self.logits)
        normalization = (-ember.lgamma(self.total_count + value) + ember.lgamma(1.0 + value) +
                         ember.lgamma(self.total_count))
        normalization = normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return unnormalized - normalization
