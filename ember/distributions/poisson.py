"""Poisson(rate): counts k >= 0 with probability rate^k exp(-rate) / k!."""
import ember

from . import constraints
from .exp_family import _RateFamily
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(_RateFamily):
    """Counts of events that happen at ``rate`` per interval."""
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        """torch.poisson of the rates expanded to the sample's shape (no gradient)."""
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.poisson(self.rate.expand(shape))

    def log_prob(self, value):
        """k log(rate) - rate - log(k!)."""
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return value.xlogy(rate) - rate - (value + 1).lgamma()
