"""RelaxedBernoulli(temperature, probs | logits) and LogitRelaxedBernoulli: Bernoulli relaxed to
values in (0, 1) (the binary Concrete / Gumbel-softmax distribution), reparameterizable."""
import ember

from . import constraints
from .bernoulli import _BinaryParameters
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(_BinaryParameters, Distribution):
    """The logit of a RelaxedBernoulli: (logit(u) + logit(p)) / temperature, u uniform.
    (has_rsample stays False, as in torch, though rsample works.)"""
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        super().__init__(probs, logits, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = super().expand(batch_shape)
        new.temperature = self.temperature
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(ember.rand(shape, dtype=probs.dtype))
        return (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / \
            self.temperature

    def log_prob(self, value):
        """log t + d - 2 log1p(exp(d)), d = logits - t x."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class _RelaxedParameters:
    """The parameters of a relaxed distribution, read from its base (the logit-space one)."""

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs


class RelaxedBernoulli(_RelaxedParameters, TransformedDistribution):
    """sigmoid of a LogitRelaxedBernoulli: values in (0, 1), near 0/1 as temperature -> 0."""
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)
