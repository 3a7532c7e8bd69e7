"""MultivariateNormal(loc, covariance_matrix | precision_matrix | scale_tril): the normal
distribution over vectors, parametrized by the Cholesky factor L of its covariance (LL^T)."""
import math

import ember

from . import constraints
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["MultivariateNormal"]


def _precision_to_scale_tril(precision):
    """L with LL^T = P^-1, through the Cholesky factor of P with both axes reversed."""
    flipped = ember.linalg.cholesky(ember.flip(precision, (-2, -1)))
    inverse = ember.transpose(ember.flip(flipped, (-2, -1)), -2, -1)
    eye = ember.eye(precision.shape[-1], dtype=precision.dtype)
    return ember.linalg.solve_triangular(inverse, eye, upper=False)


def _mahalanobis(scale_tril, x):
    """|L^-1 x|^2 along the last dim (L broadcast against x's batch)."""
    shape = ember.broadcast_shapes(scale_tril.shape[:-2], x.shape[:-1])
    solved = ember.linalg.solve_triangular(scale_tril.expand(shape + scale_tril.shape[-2:]),
                                           x.expand(shape + x.shape[-1:]).unsqueeze(-1),
                                           upper=False)
    return solved.squeeze(-1).pow(2).sum(-1)


class _ScaleTrilMatrices:
    """For the distributions of a covariance given by its lower Cholesky factor L
    (``_unbroadcasted_scale_tril``; MultivariateNormal, Wishart): scale_tril, covariance_matrix
    and precision_matrix computed from L on first use, expanded to ``_matrix_shape()``."""

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        tril = self._unbroadcasted_scale_tril
        return ember.matmul(tril, tril.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        return ember.cholesky_inverse(self._unbroadcasted_scale_tril).expand(
            self._matrix_shape())


def _scale_tril_of(covariance_matrix, precision_matrix, scale_tril):
    """L from whichever of the three matrices is given."""
    if scale_tril is not None:
        return scale_tril
    if covariance_matrix is not None:
        return ember.linalg.cholesky(covariance_matrix)
    return _precision_to_scale_tril(precision_matrix)


class MultivariateNormal(_ScaleTrilMatrices, Distribution):
    """Vectors of mean ``loc``; exactly one of the covariance, its inverse or its lower Cholesky
    factor is given."""
    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        matrix = given[0]
        if matrix.dim() < 2:
            name = ("scale_tril matrix" if scale_tril is not None else "covariance_matrix"
                    if covariance_matrix is not None else "precision_matrix")
            raise ValueError(f"{name} must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        batch_shape = ember.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        expanded = matrix.expand(batch_shape + (-1, -1))
        if scale_tril is not None:
            self.scale_tril = expanded
        elif covariance_matrix is not None:
            self.covariance_matrix = expanded
        else:
            self.precision_matrix = expanded
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        self._unbroadcasted_scale_tril = _scale_tril_of(covariance_matrix, precision_matrix,
                                                        scale_tril)

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        vector, matrix = shape + self._event_shape, shape + self._event_shape * 2
        given = {k: self.__dict__[k].expand(matrix) for k in
                 ("covariance_matrix", "scale_tril", "precision_matrix") if k in self.__dict__}
        return self._expanded(shape, loc=self.loc.expand(vector),
                              _unbroadcasted_scale_tril=self._unbroadcasted_scale_tril, **given)

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=()):
        """loc + L eps, eps drawn from the standard normal."""
        shape = self._extended_shape(sample_shape)
        eps = ember.empty(shape, dtype=self.loc.dtype).normal_()
        product = ember.matmul(self._unbroadcasted_scale_tril, eps.unsqueeze(-1)).squeeze(-1)
        return self.loc + product

    def _half_log_det(self):
        return self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)

    # the Gaussian interface kl_divergence uses (LowRankMultivariateNormal has the same)
    def _mahalanobis(self, x):
        return _mahalanobis(self._unbroadcasted_scale_tril, x)

    def _root(self):
        """A matrix S with S S^T = the covariance: L."""
        return self._unbroadcasted_scale_tril

    def _whitened_trace(self, root):
        """tr(Sigma^-1 S S^T) = |L^-1 S|^2 (L and S broadcast over their batches)."""
        tril = self._unbroadcasted_scale_tril
        shape = ember.broadcast_shapes(tril.shape[:-2], root.shape[:-2])
        solved = ember.linalg.solve_triangular(tril.expand(shape + tril.shape[-2:]),
                                               root.expand(shape + root.shape[-2:]),
                                               upper=False)
        return solved.pow(2).sum((-2, -1))

    def log_prob(self, value):
        """-(k log(2 pi) + |L^-1 (x - loc)|^2) / 2 - sum log diag(L)."""
        if self._validate_args:
            self._validate_sample(value)
        distance = self._mahalanobis(value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + distance) - \
            self._half_log_det()

    def entropy(self):
        """k (1 + log(2 pi)) / 2 + sum log diag(L)."""
        entropy = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + \
            self._half_log_det()
        return entropy if len(self._batch_shape) == 0 else entropy.expand(self._batch_shape)
