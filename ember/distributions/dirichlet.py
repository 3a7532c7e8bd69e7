"""Dirichlet(concentration): points of the simplex with density prod x_i^(a_i - 1) / B(a)."""
import ember
from ember.autograd.function import Function, once_differentiable
from ember.nn import functional as F

from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class _Dirichlet(Function):
    """torch._sample_dirichlet with the implicit reparameterization gradient: dx_j/da_i from
    each coordinate's Beta marginal, projected so the draws stay on the simplex."""

    @staticmethod
    def forward(ctx, concentration):
        x = ember._sample_dirichlet(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        total = concentration.sum(-1, True).expand_as(concentration)
        grad = ember._dirichlet_grad(x, concentration, total)
        return grad * (grad_output - (x * grad_output).sum(-1, True))


class Dirichlet(ExponentialFamily):
    """Probability vectors over the last dim of ``concentration``. Samples are torch's (float64
    gammas normalized); rsample's gradient is torch's implicit one (exact)."""
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        return self._expanded(shape, concentration=self.concentration.expand(
            shape + self._event_shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return _Dirichlet.apply(self.concentration.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        return (ember.xlogy(a - 1.0, value).sum(-1) + ember.lgamma(a.sum(-1)) -
                ember.lgamma(a).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        """(a - 1)+ normalized; one-hot at the largest a where every a < 1."""
        shifted = (self.concentration - 1).clamp(min=0.0)
        mode = shifted / shifted.sum(-1, True)
        mask = (self.concentration < 1).all(dim=-1)
        mode[mask] = F.one_hot(mode[mask].argmax(dim=-1), shifted.shape[-1]).to(mode)
        return mode

    @property
    def variance(self):
        total = self.concentration.sum(-1, True)
        return self.concentration * (total - self.concentration) / (total.pow(2) * (total + 1))

    def entropy(self):
        a = self.concentration
        k, total = a.size(-1), a.sum(-1)
        return (ember.lgamma(a).sum(-1) - ember.lgamma(total) -
                (k - total) * ember.digamma(total) - ((a - 1.0) * ember.digamma(a)).sum(-1))
