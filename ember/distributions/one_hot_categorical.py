"""OneHotCategorical(probs | logits): Categorical's class drawn as a one-hot vector (and its
straight-through variant)."""
import ember
from ember.nn import functional as F

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """One-hot vectors over the last dim of ``probs`` or ``logits`` (see Categorical)."""
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        return self._expanded(shape, _categorical=self._categorical.expand(shape))

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = self._categorical.probs
        return F.one_hot(probs.argmax(dim=-1), probs.shape[-1]).to(probs)

    @property
    def variance(self):
        probs = self._categorical.probs
        return probs * (1 - probs)

    def sample(self, sample_shape=()):
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return F.one_hot(indices, probs.shape[-1]).to(probs)

    def log_prob(self, value):
        """The Categorical log-probability of the hot index."""
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self.event_shape[0]
        values = F.one_hot(self._categorical.enumerate_support(expand=False).reshape(-1), n)
        values = values.to(self._categorical._param).view((n,) + (1,) * len(self.batch_shape)
                                                            + (n,))
        return values.expand((n,) + tuple(self.batch_shape) + (n,)) if expand else values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose rsample passes gradients straight through: the one-hot draw in
    the forward pass, the gradient of ``probs`` in the backward one (Bengio et al., 2013)."""
    has_rsample = True

    def rsample(self, sample_shape=()):
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
