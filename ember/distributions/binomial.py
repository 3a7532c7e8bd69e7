"""Binomial(total_count, probs | logits): successes in total_count independent trials."""
import ember

from . import constraints
from .bernoulli import _BinaryParameters
from .categorical import _one_of
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Binomial"]


def _clamp_by_zero(x):
    """max(x, 0) with gradient 1/2 at 0 (as torch writes it, for a symmetric gradient)."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class _CountedTrials(_BinaryParameters):
    """For the distributions of a ``total_count`` of trials and a success probability given as
    ``probs`` or ``logits`` (Binomial, NegativeBinomial): the count broadcast with the
    probability and taking its dtype."""

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        total_count, param = broadcast_all(total_count, probs if probs is not None else logits)
        self.total_count = total_count.type_as(param)
        super().__init__(param if probs is not None else None,
                         param if logits is not None else None, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        return new


class Binomial(_CountedTrials, Distribution):
    """Counts 0..total_count of successes of probability ``probs`` (or sigmoid(logits))."""
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        super().__init__(total_count, probs, logits, validate_args=validate_args)

    @property
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value):
        """log C(n, k) + k logits - n log(1 + e^logits), the last written stably."""
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        normalize = (n * _clamp_by_zero(self.logits) +
                     n * ember.log1p(ember.exp(-ember.abs(self.logits))) - ember.lgamma(n + 1))
        return value * self.logits - ember.lgamma(value + 1) - ember.lgamma(n - value + 1) - \
            normalize

    def _homogeneous_count(self, what):
        total = int(self.total_count.max())
        if not self.total_count.min() == total:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{what}`.")
        return total

    def entropy(self):
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(ember.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total = self._homogeneous_count("enumerate_support")
        values = ember.arange(1 + total, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
