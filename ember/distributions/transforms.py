"""Transforms: invertible maps y = f(x) with log|det df/dx| (for TransformedDistribution). The
machinery (Transform, inverses, compositions) lives in _transform.py and the transforms that
regroup dims in _regroup_transforms.py, both re-exported here; the elementwise and vector
transforms are defined here."""
import math
import numbers

import ember
from ember.nn import functional as F

from . import constraints
from ._regroup_transforms import (
    CatTransform,
    IndependentTransform,
    ReshapeTransform,
    StackTransform,
)
from ._transform import ComposeTransform, Transform, _Parameterless, identity_transform
from .utils import broadcast_all, tril_matrix_to_vec, vec_to_tril_matrix

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftmaxTransform",
           "SoftplusTransform", "StackTransform", "StickBreakingTransform", "TanhTransform",
           "Transform", "identity_transform"]


class ExpTransform(_Parameterless):
    """y = exp(x); log|dy/dx| = x."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1


    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """y = x^exponent on the positive reals; log|dy/dx| = log|exponent y / x|."""
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all())


    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return ember.broadcast_shapes(shape, self.exponent.shape)

    def inverse_shape(self, shape):
        return ember.broadcast_shapes(shape, self.exponent.shape)


def _clipped_sigmoid(x):
    """sigmoid(x) kept within [tiny, 1 - eps] of the dtype, so that its logit stays finite."""
    finfo = ember.finfo(x.dtype)
    return ember.clamp(ember.sigmoid(x), min=finfo.tiny, max=1.0 - finfo.eps)


class SigmoidTransform(_Parameterless):
    """y = sigmoid(x), kept within [tiny, 1 - eps] of the dtype so the inverse stays finite."""
    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1


    def _call(self, x):
        return _clipped_sigmoid(x)

    def _inverse(self, y):
        finfo = ember.finfo(y.dtype)
        y = y.clamp(min=finfo.tiny, max=1.0 - finfo.eps)
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        """log sigmoid'(x) = -softplus(-x) - softplus(x)."""
        return -F.softplus(-x) - F.softplus(x)


class SoftplusTransform(_Parameterless):
    """y = softplus(x) = log(1 + e^x); log|dy/dx| = -softplus(-x)."""
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def _call(self, x):
        return F.softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -F.softplus(-x)


class TanhTransform(_Parameterless):
    """y = tanh(x); log|dy/dx| = 2 (log 2 - x - softplus(-2x)), stable for large |x|. The
    inverse is atanh, not clamped (torch's choice: clamping biases SAC-style algorithms)."""
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1


    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        return ember.atanh(y)

    def log_abs_det_jacobian(self, x, y):
        return 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))


class AbsTransform(_Parameterless):
    """y = |x| (not bijective: the inverse picks the non-negative root)."""
    domain = constraints.real
    codomain = constraints.positive


    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """y = loc + scale x, over ``event_dim`` rightmost dims taken together."""
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @property
    def domain(self):
        if self._event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self._event_dim)

    codomain = domain

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        return _same_parameter(self.loc, other.loc) and _same_parameter(self.scale, other.scale)


    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            scale = float(self.scale)
            return 1 if scale > 0 else -1 if scale < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        """log|scale|, summed over the event dims, expanded to x's batch shape."""
        shape = x.shape
        if isinstance(self.scale, numbers.Real):
            result = ember.full_like(x, math.log(abs(self.scale)))
        else:
            result = ember.abs(self.scale).log()
        if self._event_dim:
            result = result.reshape(result.size()[:-self._event_dim] + (-1,)).sum(-1)
            shape = shape[:-self._event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return ember.broadcast_shapes(shape, getattr(self.loc, "shape", ()),
                                      getattr(self.scale, "shape", ()))

    inverse_shape = forward_shape


def _same_parameter(a, b):
    """Numbers equal, or tensors equal everywhere."""
    if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
        return a == b
    if isinstance(a, numbers.Number) or isinstance(b, numbers.Number):
        tensor, number = (a, b) if isinstance(b, numbers.Number) else (b, a)
        return bool((tensor == number).all())
    return bool((a == b).all())


class SoftmaxTransform(_Parameterless):
    """y = softmax(x) over the last dim (not bijective: the inverse gives log y, one of the
    logits)."""
    domain = constraints.real_vector
    codomain = constraints.simplex


    def _call(self, x):
        probs = (x - x.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    inverse_shape = forward_shape


class StickBreakingTransform(_Parameterless):
    """K - 1 reals to a point of the K-simplex: each coordinate takes the fraction
    sigmoid(x_i - log(K - 1 - i)) of the stick that is left."""
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def _call(self, x):
        z = _clipped_sigmoid(x - _stick_offset(x, x.shape[-1] + 1).log())
        z_cumprod = (1 - z).cumprod(-1)
        return F.pad(z, [0, 1], value=1) * F.pad(z_cumprod, [1, 0], value=1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        left = ember.clamp(1 - y_crop.cumsum(-1), min=ember.finfo(y.dtype).tiny)
        return y_crop.log() - left.log() + _stick_offset(y_crop, y.shape[-1]).log()

    def log_abs_det_jacobian(self, x, y):
        x = x - _stick_offset(x, x.shape[-1] + 1).log()
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] + 1,)

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape[:-1] + (shape[-1] - 1,)


def _stick_offset(like, k):
    """K - 1, K - 2, ..., 1 for a vector of K - 1 sticks (in like's dtype)."""
    return k - like.new_ones(like.shape[-1]).cumsum(-1)


class LowerCholeskyTransform(_Parameterless):
    """Square matrices to lower-triangular ones with a positive diagonal: the strict lower part
    kept, the diagonal exponentiated (not bijective: the upper part is dropped)."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x):
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y):
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()


class PositiveDefiniteTransform(_Parameterless):
    """Square matrices to positive-definite ones: L L^T for L = LowerCholeskyTransform(x)."""
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x):
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.mT

    def _inverse(self, y):
        return LowerCholeskyTransform().inv(ember.linalg.cholesky(y))


class CorrCholeskyTransform(Transform):
    """D (D - 1) / 2 reals to the Cholesky factor of a D x D correlation matrix: row by row,
    tanh into (-1, 1), then a signed stick breaking that gives each row unit length. (No ==:
    torch compares these by identity.)"""
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        eps = ember.finfo(x.dtype).eps
        r = vec_to_tril_matrix(ember.tanh(x).clamp(min=-1 + eps, max=1 - eps), diag=-1)
        left = (1 - r ** 2).sqrt().cumprod(-1)  # the length each row has left
        r = r + ember.eye(r.shape[-1], dtype=r.dtype)
        return r * F.pad(left[..., :-1], [1, 0], value=1)

    def _inverse(self, y):
        left = F.pad((1 - ember.cumsum(y * y, dim=-1))[..., :-1], [1, 0], value=1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(left, diag=-1).sqrt()
        return (t.log1p() - t.neg().log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        """The stick breaking's (1/2) sum log(1 - |y_row[:j]|^2) plus tanh's."""
        left = tril_matrix_to_vec(1 - (y * y).cumsum(dim=-1), diag=-2)
        tanh_part = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return 0.5 * left.log().sum(-1) + tanh_part

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        return shape[:-2] + (shape[-1] * (shape[-1] - 1) // 2,)


class CumulativeDistributionTransform(Transform):
    """y = distribution.cdf(x), onto the unit interval; log|dy/dx| = log_prob(x)."""
    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)
