"""LKJCholesky(dim, concentration): Cholesky factors of dim x dim correlation matrices whose
density is proportional to det(corr)^(concentration - 1) (Lewandowski, Kurowicka and Joe, 2009),
drawn by the onion method."""
import math

import ember

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Lower-triangular L with unit rows: L L^T is a correlation matrix; ``concentration`` 1 is
    uniform over correlation matrices, larger values favour the identity."""
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # the onion method: row i's squared length off the diagonal is Beta(i/2, c + (d-2-i)/2)
        marginal = self.concentration + 0.5 * (self.dim - 2)
        offset = ember.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = ember.cat([offset.new_zeros((1,)), offset])
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.size(), (dim, dim), validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        return self._expanded(shape, dim=self.dim, concentration=self.concentration.expand(shape),
                              _beta=self._beta.expand(shape + (self.dim,)))

    def sample(self, sample_shape=()):
        """Each row: a direction uniform on its sphere (normals drawn after the Beta lengths)
        scaled to the Beta length, the diagonal completing it to unit length."""
        with ember.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u = ember.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
            direction = u / u.norm(dim=-1, keepdim=True)
            direction[..., 0, :].fill_(0.0)
            w = ember.sqrt(y) * direction
            diagonal = ember.clamp(1 - ember.sum(w ** 2, dim=-1),
                                   min=ember.finfo(w.dtype).tiny).sqrt()
            return w + ember.diag_embed(diagonal)

    def log_prob(self, value):
        """sum_i (2 (c - 1) + d - i) log L_ii (i = 2..d) minus the log normalizer."""
        if self._validate_args:
            self._validate_sample(value)
        diagonal = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - \
            ember.arange(2, self.dim + 1)
        unnormalized = ember.sum(order * diagonal.log(), dim=-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        normalizer = 0.5 * dm1 * math.log(math.pi) + ember.mvlgamma(alpha - 0.5, dm1) - \
            ember.lgamma(alpha) * dm1
        return unnormalized - normalizer
