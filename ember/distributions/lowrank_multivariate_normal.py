"""LowRankMultivariateNormal(loc, cov_factor, cov_diag): the normal distribution over vectors
with covariance W W^T + D (W: n x m, D diagonal), handled through the m x m capacitance matrix
C = I + W^T D^-1 W (Woodbury's identity, the matrix determinant lemma)."""
import math

import ember

from . import constraints
from .distribution import Distribution
from .multivariate_normal import _mahalanobis
from .utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _capacitance_tril(factor, diag):
    """The Cholesky factor of I + W^T D^-1 W."""
    k = ember.matmul(factor.mT / diag.unsqueeze(-2), factor)
    return ember.linalg.cholesky(k + ember.eye(factor.shape[-1], dtype=factor.dtype))


class LowRankMultivariateNormal(Distribution):
    """Vectors of mean ``loc`` and covariance cov_factor cov_factor^T + diag(cov_diag)."""
    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_, self.cov_factor, diag_ = ember.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as error:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from error
        self.loc, self.cov_diag = loc_[..., 0], diag_[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        vector = shape + self._event_shape
        return self._expanded(
            shape, loc=self.loc.expand(vector), cov_diag=self.cov_diag.expand(vector),
            cov_factor=self.cov_factor.expand(vector + self.cov_factor.shape[-1:]),
            _unbroadcasted_cov_factor=self._unbroadcasted_cov_factor,
            _unbroadcasted_cov_diag=self._unbroadcasted_cov_diag,
            _capacitance_tril=self._capacitance_tril)

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape + self._event_shape

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1) +
                self._unbroadcasted_cov_diag).expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self):
        """sqrt(D) chol(I + D^-1/2 W W^T D^-1/2): the Cholesky factor of the covariance."""
        root_diag = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        scaled = self._unbroadcasted_cov_factor / root_diag
        k = ember.matmul(scaled, scaled.mT) + ember.eye(self._event_shape[0],
                                                        dtype=scaled.dtype)
        return (root_diag * ember.linalg.cholesky(k)).expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        factor = self._unbroadcasted_cov_factor
        return (ember.matmul(factor, factor.mT) +
                ember.diag_embed(self._unbroadcasted_cov_diag)).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        """D^-1 - A^T A, A = C^-1 W^T D^-1 (Woodbury)."""
        a = self._woodbury_half(self._unbroadcasted_cov_factor.mT)
        return (ember.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - a.mT @ a).expand(
            self._matrix_shape())

    def _woodbury_half(self, rows):
        """C^-1 (rows / D), for the rows of W^T (or another matrix's)."""
        return ember.linalg.solve_triangular(
            self._capacitance_tril, rows / self._unbroadcasted_cov_diag.unsqueeze(-2),
            upper=False)

    def rsample(self, sample_shape=()):
        """loc + W eps_W + sqrt(D) eps_D (eps_W drawn first, as torch)."""
        shape = self._extended_shape(sample_shape)
        eps_w = ember.empty(shape[:-1] + self.cov_factor.shape[-1:],
                            dtype=self.loc.dtype).normal_()
        eps_d = ember.empty(shape, dtype=self.loc.dtype).normal_()
        return (self.loc + ember.matmul(self._unbroadcasted_cov_factor,
                                        eps_w.unsqueeze(-1)).squeeze(-1) +
                self._unbroadcasted_cov_diag.sqrt() * eps_d)

    # the Gaussian interface kl_divergence uses (MultivariateNormal has the same)
    def _half_log_det(self):
        """log|W W^T + D| / 2 = sum log diag(chol C) + sum log D / 2."""
        return (self._capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) +
                0.5 * self._unbroadcasted_cov_diag.log().sum(-1))

    def _mahalanobis(self, x):
        """x^T (W W^T + D)^-1 x = sum x^2 / D - |C^-1 W^T D^-1 x|^2."""
        projected = ember.matmul(self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag
                                 .unsqueeze(-2), x.unsqueeze(-1)).squeeze(-1)
        return (x.pow(2) / self._unbroadcasted_cov_diag).sum(-1) - \
            _mahalanobis(self._capacitance_tril, projected)

    def _root(self):
        """A matrix S with S S^T = the covariance: [W | sqrt(D)]."""
        factor, diag = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        batch = ember.broadcast_shapes(factor.shape[:-2], diag.shape[:-1])
        return ember.cat([factor.expand(batch + factor.shape[-2:]),
                          ember.diag_embed(diag.sqrt()).expand(batch + diag.shape[-1:] * 2)], -1)

    def _whitened_trace(self, root):
        """tr(Sigma^-1 S S^T) = |D^-1/2 S|^2 - |C^-1 W^T D^-1 S|^2."""
        first = (root / self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)).pow(2).sum((-2, -1))
        a = self._woodbury_half(self._unbroadcasted_cov_factor.mT)
        return first - ember.matmul(a, root).pow(2).sum((-2, -1))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        distance = self._mahalanobis(value - self.loc)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + distance) - \
            self._half_log_det()

    def entropy(self):
        entropy = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + \
            self._half_log_det()
        return entropy if len(self._batch_shape) == 0 else entropy.expand(self._batch_shape)
