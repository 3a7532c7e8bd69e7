"""Beta(concentration1, concentration0): the first coordinate of a two-part Dirichlet."""
import numbers

import ember

from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """Values in [0, 1] with density x^(a-1) (1-x)^(b-1) / B(a, b) (a: concentration1)."""
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        if isinstance(concentration1, numbers.Real) and isinstance(concentration0, numbers.Real):
            pair = ember.tensor([float(concentration1), float(concentration0)])
        else:
            concentration1, concentration0 = broadcast_all(concentration1, concentration0)
            pair = ember.stack([concentration1, concentration0], -1)
        self._dirichlet = Dirichlet(pair, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        return self._expanded(shape, _dirichlet=self._dirichlet.expand(shape))

    @property
    def concentration1(self):
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self):
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape=()):
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(ember.stack([value, 1.0 - value], -1))

    def entropy(self):
        return self._dirichlet.entropy()
