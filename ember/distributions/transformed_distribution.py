"""TransformedDistribution: a base distribution pushed through a list of transforms
(log_prob by the change of variables, cdf/icdf through monotone transforms)."""
import ember

from . import constraints
from ._transform import ComposeTransform, Transform
from .distribution import Distribution
from .independent import Independent, _sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """Values ``t_n(...t_1(x))`` for x drawn from ``base_distribution``."""
    arg_constraints = {}

    def __init__(self, base_distribution, transforms, validate_args=None):
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{transform.domain.event_dim}, but got {base_shape}.")
        forward_shape = transform.forward_shape(base_shape)
        expanded_base_shape = transform.inverse_shape(forward_shape)
        if base_shape != expanded_base_shape:  # a transform's parameters broadcast the base
            base_distribution = base_distribution.expand(
                expanded_base_shape[:len(expanded_base_shape) - base_event_dim])
        reinterpreted = transform.domain.event_dim - base_event_dim
        if reinterpreted > 0:
            base_distribution = Independent(base_distribution, reinterpreted)
        self.base_dist = base_distribution
        event_dim = transform.codomain.event_dim + max(base_event_dim -
                                                       transform.domain.event_dim, 0)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        batch_shape = ember.Size(batch_shape)
        shape = batch_shape + self._event_shape
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        base_batch_shape = shape[:len(shape) - len(self.base_dist.event_shape)]
        own = {k: self.__dict__[k].expand(batch_shape) for k in self.arg_constraints
               if k in self.__dict__}  # a subclass's parameters kept on it (Gumbel's loc, ...)
        return self._expanded(batch_shape, base_dist=self.base_dist.expand(base_batch_shape),
                              transforms=self.transforms, **own)

    @property
    def support(self):
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    def sample(self, sample_shape=()):
        with ember.no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x

    def rsample(self, sample_shape=()):
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value):
        """The base's log_prob at the inverse image, minus each transform's log|det J|."""
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob, y = 0.0, value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(transform.log_abs_det_jacobian(x, y),
                                                 event_dim - transform.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y),
                                         event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value):
        """p for increasing transforms, 1 - p where their signs multiply to -1."""
        sign = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value):
        for transform in self.transforms[::-1]:
            value = transform.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value):
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for transform in self.transforms:
            value = transform(value)
        return value
