"""MixtureSameFamily(mixture, components): a Categorical choice among the rightmost batch dim of
one component distribution (mixture density networks, Gaussian mixtures)."""
import ember

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """Density sum_k pi_k p_k(x): pi from ``mixture_distribution``, p_k the k-th entry of the
    last batch dim of ``component_distribution``."""
    arg_constraints = {}
    has_rsample = False

    def __init__(self, mixture_distribution, component_distribution, validate_args=None):
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an "
                             " instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an "
                             "instance of torch.distributions.Distribution")
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        mixture_batch = mixture_distribution.batch_shape
        component_batch = component_distribution.batch_shape[:-1]
        for a, b in zip(reversed(mixture_batch), reversed(component_batch)):
            if a != 1 and b != 1 and a != b:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_batch}) is not "
                                 f"compatible with `component_distribution.batch_shape`"
                                 f"({component_batch})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch, component_distribution.event_shape,
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        return self._expanded(
            shape, _component_distribution=self._component_distribution.expand(
                shape + (self._num_component,)),
            _mixture_distribution=self._mixture_distribution.expand(shape),
            _num_component=self._num_component, _event_ndims=self._event_ndims)

    @property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self):
        return self._mixture_distribution

    @property
    def component_distribution(self):
        return self._component_distribution

    @property
    def mean(self):
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        return ember.sum(probs * self.component_distribution.mean, dim=-1 - self._event_ndims)

    @property
    def variance(self):
        """E[Var(x | k)] + Var(E[x | k])."""
        probs = self._pad_mixture_dimensions(self.mixture_distribution.probs)
        dim = -1 - self._event_ndims
        mean_cond_var = ember.sum(probs * self.component_distribution.variance, dim=dim)
        spread = (self.component_distribution.mean - self._pad(self.mean)).pow(2.0)
        return mean_cond_var + ember.sum(probs * spread, dim=dim)

    def cdf(self, x):
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return ember.sum(cdf_x * self.mixture_distribution.probs, dim=-1)

    def log_prob(self, x):
        """logsumexp_k (log p_k(x) + log pi_k)."""
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))
        log_mix_prob = ember.log_softmax(self.mixture_distribution.logits, dim=-1)
        return ember.logsumexp(log_prob_x + log_mix_prob, dim=-1)

    def sample(self, sample_shape=()):
        """The component draw picked by the mixture draw (mixture drawn first, as torch)."""
        with ember.no_grad():
            gather_dim = len(sample_shape) + len(self.batch_shape)
            event = tuple(self.event_shape)
            mix_sample = self.mixture_distribution.sample(sample_shape)
            mix_shape = tuple(mix_sample.shape)
            comp_samples = self.component_distribution.sample(sample_shape)
            index = mix_sample.reshape(mix_shape + (1,) * (len(event) + 1))
            index = index.repeat((1,) * len(mix_shape) + (1,) + event)
            return ember.gather(comp_samples, gather_dim, index).squeeze(gather_dim)

    def _pad(self, x):
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x):
        batch_ndims = len(self.batch_shape)
        cat_batch_ndims = len(self.mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else batch_ndims - cat_batch_ndims
        shape = tuple(x.shape)
        return x.reshape(shape[:-1] + (1,) * pad_ndims + shape[-1:] + (1,) * self._event_ndims)

    def __repr__(self):
        return (f"MixtureSameFamily(\n  {self.mixture_distribution},\n"
                f"  {self.component_distribution})")
