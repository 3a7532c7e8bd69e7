"""ContinuousBernoulli(probs | logits): the density C(p) p^x (1 - p)^(1 - x) on [0, 1], with
C(p) = 2 atanh(1 - 2p) / (1 - 2p) (Loaiza-Ganem and Cunningham, 2019)."""
import math

import ember
from ember.nn import functional as F

from . import constraints
from .bernoulli import _BinaryParameters
from .exp_family import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(_BinaryParameters, ExponentialFamily):
    """Values in [0, 1] leaning towards 1 as ``probs`` grows. Near p = 1/2 (inside ``lims``)
    the closed forms divide 0 by 0, so their Taylor series in p - 1/2 are used there."""
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        if probs is not None and logits is None:
            (checked,) = broadcast_all(probs)
            if validate_args is not None and not bool(
                    self.arg_constraints["probs"].check(checked).all()):
                raise ValueError("The parameter probs has invalid values")
            probs = clamp_probs(checked) if not isinstance(probs, (int, float)) else \
                float(clamp_probs(checked))
        self._lims = lims
        super().__init__(probs, logits, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape)
        new._lims = self._lims
        return new

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        """probs, with the unstable region moved to its lower edge (the closed forms there are
        computed and then discarded)."""
        return ember.where(self._outside_unstable_region(), self.probs,
                           self._lims[0] * ember.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """log C(p) = log|log(1 - p) - log p| - log|1 - 2p|; near 1/2, with t = (p - 1/2)^2:
        log 2 + 4t/3 + 104 t^2/45."""
        p = self._cut_probs()
        below = ember.where(p <= 0.5, p, ember.zeros_like(p))
        above = ember.where(p >= 0.5, p, ember.ones_like(p))
        log_norm = ember.log(ember.abs(ember.log1p(-p) - ember.log(p))) - ember.where(
            p <= 0.5, ember.log1p(-2.0 * below), ember.log(2.0 * above - 1.0))
        t = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * t) * t
        return ember.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        """p / (2p - 1) + 1 / (log(1 - p) - log p); near 1/2: 1/2 + x/3 + 16 x^3/45,
        x = p - 1/2."""
        p = self._cut_probs()
        exact = p / (2.0 * p - 1.0) + 1.0 / (ember.log1p(-p) - ember.log(p))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return ember.where(self._outside_unstable_region(), exact, taylor)

    @property
    def variance(self):
        """p (p - 1) / (1 - 2p)^2 + 1 / (log(1 - p) - log p)^2; near 1/2: 1/12 - t/15 +
        128 t^2/945, t = (p - 1/2)^2."""
        p = self._cut_probs()
        exact = p * (p - 1.0) / (1.0 - 2.0 * p).pow(2) + \
            1.0 / (ember.log1p(-p) - ember.log(p)).pow(2)
        t = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * t) * t
        return ember.where(self._outside_unstable_region(), exact, taylor)

    def sample(self, sample_shape=()):
        u = ember.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        with ember.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=()):
        return self.icdf(ember.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype))

    def log_prob(self, value):
        """x log p + (1 - x) log(1 - p) + log C(p)."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none") + \
            self._cont_bern_log_norm()

    def cdf(self, value):
        """(p^x (1 - p)^(1 - x) + p - 1) / (2p - 1) (x near 1/2: x), 0 below 0, 1 above 1."""
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        inside = (p.pow(value) * (1.0 - p).pow(1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = ember.where(self._outside_unstable_region(), inside, value)
        return ember.where(value <= 0.0, ember.zeros_like(value),
                           ember.where(value >= 1.0, ember.ones_like(value), inside))

    def icdf(self, value):
        p = self._cut_probs()
        return ember.where(self._outside_unstable_region(),
                           (ember.log1p(-p + value * (2.0 * p - 1.0)) - ember.log1p(-p)) /
                           (ember.log(p) - ember.log1p(-p)), value)

    def entropy(self):
        log_q, log_p = ember.log1p(-self.probs), ember.log(self.probs)
        return self.mean * (log_q - log_p) - self._cont_bern_log_norm() - log_q
