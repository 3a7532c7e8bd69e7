"""Bernoulli(probs | logits): 1 with probability probs, else 0."""
import numbers

import ember
from ember.nn import functional as F

from . import constraints
from .categorical import _one_of
from .exp_family import ExponentialFamily
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Bernoulli"]


class _BinaryParameters:
    """For the distributions of one success probability, given as ``probs`` or as ``logits``
    (Bernoulli, LogitRelaxedBernoulli): the broadcast parameter, the other one computed on
    first use, the batch shape and expand."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}

    def __init__(self, probs=None, logits=None, validate_args=None):
        _one_of(probs, logits)
        given = probs if probs is not None else logits
        (param,) = broadcast_all(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        shape = () if isinstance(given, numbers.Number) else param.size()
        super().__init__(shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        given = {k: self.__dict__[k].expand(shape) for k in ("probs", "logits")
                 if k in self.__dict__}
        return self._expanded(shape, _param=self._param.expand(shape), **given)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()


class Bernoulli(_BinaryParameters, ExponentialFamily):
    """0/1 outcomes with success probability ``probs`` (or ``sigmoid(logits)``)."""
    support = constraints.boolean
    has_enumerate_support = True

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs)
        mode[self.probs == 0.5] = float("nan")
        return mode

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        """-BCE(logits, value): value log p + (1 - value) log(1 - p), computed stably."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = ember.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
