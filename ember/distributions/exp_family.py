"""ExponentialFamily: the distributions whose density is exp(<t(x), theta> - F(theta) + k(x))."""
import numbers

import ember

from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Marks a distribution as an exponential family (kl_divergence's fallback knows them)."""


class _RateFamily(ExponentialFamily):
    """An exponential family with one parameter, ``rate`` (a number or a tensor): its batch
    shape is the rate's, and expand() expands the rate (Exponential, Poisson)."""

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        shape = () if isinstance(rate, numbers.Number) else self.rate.size()
        super().__init__(shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        return self._expanded(shape, rate=self.rate.expand(shape))
