"""Wishart(df, covariance_matrix | precision_matrix | scale_tril): the distribution of
sum_k x_k x_k^T for df normal vectors x_k of that covariance (real df > p - 1 allowed), drawn
by Bartlett's decomposition."""
import math
import numbers
import warnings

import ember

from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import _scale_tril_of, _ScaleTrilMatrices

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """The multivariate digamma function: sum_i<p digamma(x - i/2), for x > (p - 1)/2."""
    if not bool(x.gt((p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    halves = ember.arange(p, dtype=x.dtype).div(2).expand(x.shape + (-1,))
    return ember.digamma(x.unsqueeze(-1) - halves).sum(-1)


class Wishart(_ScaleTrilMatrices, ExponentialFamily):
    """Positive-definite p x p matrices with mean df * covariance."""
    support = constraints.positive_definite
    has_rsample = True

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        param = given[0]
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = ember.Size(param.shape[:-2])
            self.df = ember.tensor(df, dtype=param.dtype)
        else:
            batch_shape = ember.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        p = param.shape[-1]
        if bool(self.df.le(p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        name = ("scale_tril" if scale_tril is not None else "covariance_matrix"
                if covariance_matrix is not None else "precision_matrix")
        setattr(self, name, param.expand(batch_shape + (-1, -1)))
        if bool(self.df.lt(p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to occur "
                          "for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, param.shape[-2:], validate_args=validate_args)
        self._unbroadcasted_scale_tril = _scale_tril_of(covariance_matrix, precision_matrix,
                                                        scale_tril)
        self._dist_chi2 = self._chi2(batch_shape)

    def _chi2(self, batch_shape):
        """The squared Bartlett diagonal: Chi2(df - i) for row i."""
        offsets = ember.arange(self._event_shape[-1], dtype=self._unbroadcasted_scale_tril.dtype)
        return Chi2(df=self.df.unsqueeze(-1) - offsets.expand(batch_shape + (-1,)))

    def expand(self, batch_shape, _instance=None):
        shape = ember.Size(batch_shape)
        matrix = shape + self._event_shape
        given = {k: self.__dict__[k].expand(matrix) for k in
                 ("covariance_matrix", "scale_tril", "precision_matrix") if k in self.__dict__}
        new = self._expanded(shape, df=self.df.expand(shape), **given,
                             _unbroadcasted_scale_tril=self._unbroadcasted_scale_tril.expand(
                                 matrix))
        new._dist_chi2 = new._chi2(shape)
        return new

    def _matrix_shape(self):
        return self._batch_shape + self._event_shape

    @property
    def mean(self):
        return self.df.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def mode(self):
        """(df - p - 1) covariance; nan where df <= p + 1."""
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor[factor <= 0] = math.nan
        return factor.view(self._batch_shape + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        """df (V_ij^2 + V_ii V_jj)."""
        v = self.covariance_matrix
        diagonal = v.diagonal(dim1=-2, dim2=-1)
        return self.df.view(self._batch_shape + (1, 1)) * (
            v.pow(2) + diagonal.unsqueeze(-1) * diagonal.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape=()):
        """L A A^T L^T: A lower triangular, sqrt(Chi2(df - i)) on the diagonal (drawn first),
        standard normals below it."""
        p = self._event_shape[-1]
        root = self._dist_chi2.rsample(sample_shape).sqrt()
        noise = root.clamp(min=ember.finfo(root.dtype).eps).diag_embed(dim1=-2, dim2=-1)
        i, j = ember.tril_indices(p, p, offset=-1)
        noise[..., i, j] = ember.randn(ember.Size(sample_shape) + self._batch_shape +
                                       (p * (p - 1) // 2,), dtype=noise.dtype)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.mT

    def _singular(self, sample):
        """Per draw (over sample_shape): whether any matrix of the batch is not positive
        definite."""
        singular = ~self.support.check(sample)
        if self._batch_shape:
            singular = singular.amax(tuple(-(d + 1) for d in range(len(self._batch_shape))))
        return singular

    def rsample(self, sample_shape=(), max_try_correction=None):
        """Bartlett draws, with the singular ones (possible for df near p - 1) drawn again up
        to ``max_try_correction`` (10) times. torch 2.13 inverts this test on the first draw and
        so draws every sample twice (warning each time): ember's samples therefore follow
        torch's construction but not its stream (compare ``_bartlett_sampling``)."""
        max_try_correction = 10 if max_try_correction is None else max_try_correction
        sample_shape = ember.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        singular = self._singular(sample)
        if bool(singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                redrawn = self._bartlett_sampling(singular[singular].shape)
                sample[singular] = redrawn
                singular[singular.clone()] = self._singular(redrawn)
                if not bool(singular.any()):
                    break
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        trace = ember.cholesky_solve(value, self._unbroadcasted_scale_tril).diagonal(
            dim1=-2, dim2=-1).sum(dim=-1)
        return (-nu * (p * _LOG_2 / 2 + half_log_det) - ember.mvlgamma(nu / 2, p=p) +
                (nu - p - 1) / 2 * ember.linalg.slogdet(value).logabsdet - trace / 2)

    def entropy(self):
        nu, p = self.df, self._event_shape[-1]
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return ((p + 1) * (p * _LOG_2 / 2 + half_log_det) + ember.mvlgamma(nu / 2, p=p) -
                (nu - p - 1) / 2 * _mvdigamma(nu / 2, p=p) + nu * p / 2)
