"""Geometric(probs | logits): the number of failures before the first success."""
import ember
from ember.nn import functional as F

from . import constraints
from .bernoulli import _BinaryParameters
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Geometric"]


class Geometric(_BinaryParameters, Distribution):
    """Counts k >= 0 with probability (1 - p)^k p."""
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        super().__init__(probs, logits, validate_args=validate_args)
        if self._validate_args and probs is not None:
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                raise ValueError(f"Expected parameter probs ({type(value).__name__} of shape "
                                 f"{tuple(value.shape)}) of distribution {self!r} to be "
                                 f"positive but found invalid values:\n{value.data[~valid]}")

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return ember.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        """floor(log u / log(1 - p)), u uniform on [tiny, 1)."""
        shape = self._extended_shape(sample_shape)
        tiny = ember.finfo(self.probs.dtype).tiny
        with ember.no_grad():
            u = ember.empty(shape, dtype=self.probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        """k log(1 - p) + log p (0 log 0 read as 0 where p = 1)."""
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        probs = probs.clone(memory_format=ember.contiguous_format)
        probs[(probs == 1) & (value == 0)] = 0
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                  reduction="none") / self.probs
