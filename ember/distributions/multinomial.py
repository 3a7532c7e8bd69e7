"""Multinomial(total_count, probs | logits): counts of each class in total_count categorical
draws."""
import math

import ember

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Count vectors over the last dim of ``probs`` or ``logits`` summing to ``total_count``."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        return self._expanded(shape, total_count=self.total_count,
                              _categorical=self._categorical.expand(shape),
                              _binomial=self._binomial)

    @property
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        """total_count categorical draws, counted per class."""
        sample_shape = ember.Size(sample_shape)
        samples = self._categorical.sample(ember.Size((self.total_count,)) + sample_shape)
        samples = samples.permute(*range(1, samples.dim()), 0)
        counts = ember.zeros(self._extended_shape(sample_shape), dtype=samples.dtype)
        counts.scatter_add_(-1, samples, ember.ones_like(samples))
        return counts.type_as(self.probs)

    def log_prob(self, value):
        """log n! - sum log x_i! + sum x_i logits_i (0 * -inf read as 0)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.clone(memory_format=ember.contiguous_format)
        logits[(value == 0) & (logits == -math.inf)] = 0
        return (ember.lgamma(value.sum(-1) + 1) - ember.lgamma(value + 1).sum(-1) +
                (logits * value).sum(-1))

    def entropy(self):
        """n H(categorical) - log n! + sum_k sum_i P(x_i = k) log k! (binomial marginals)."""
        n = ember.tensor(self.total_count)
        term1 = n * self._categorical.entropy() - ember.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = ember.exp(self._binomial.log_prob(support))
        return term1 + (binomial_probs * ember.lgamma(support + 1)).sum([0, -1])
