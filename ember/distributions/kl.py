"""kl_divergence(p, q) = E_p[log p - log q], by the closed form registered for the pair of
types (register_kl adds one)."""
import math

import ember
from ember.nn import functional as F

from .bernoulli import Bernoulli
from .categorical import Categorical
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .independent import Independent, _sum_rightmost
from .laplace import Laplace
from .multivariate_normal import MultivariateNormal, _mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .uniform import Uniform

__all__ = ["kl_divergence", "register_kl"]

_KL = {}


def register_kl(type_p, type_q):
    """Decorator: ``fn(p, q)`` computes KL(p || q) for p of ``type_p`` and q of ``type_q``."""
    def decorator(fn):
        _KL[type_p, type_q] = fn
        return fn
    return decorator


def kl_divergence(p, q):
    """KL(p || q) over the batch; the most specific registered pair of types wins."""
    matches = [(tp, tq) for tp, tq in _KL if isinstance(p, tp) and isinstance(q, tq)]
    if not matches:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{p.__class__.__name__} and q type {q.__class__.__name__}")
    best = min(matches, key=lambda pair: (type(p).__mro__.index(pair[0]),
                                          type(q).__mro__.index(pair[1])))
    return _KL[best](p, q)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    """Different families: torch's refusal (the same family always has its own closed form
    here)."""
    raise NotImplementedError("The cross KL-divergence between different exponential families "
                              "cannot                             be computed using Bregman "
                              "divergences")


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    """(r + ((mu_p - mu_q) / s_q)^2 - 1 - log r) / 2, r = (s_p / s_q)^2."""
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    """sum p (log p - log q): inf where q = 0 < p, 0 where p = 0."""
    t = p.probs * (p.logits - q.logits)
    t[(q.probs == 0).expand_as(t)] = float("inf")
    t[(p.probs == 0).expand_as(t)] = 0
    return t.sum(-1)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    """p log(p/q) + (1-p) log((1-p)/(1-q)), through softplus of the logits."""
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1[q.probs == 0] = float("inf")
    t1[p.probs == 0] = 0
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2[q.probs == 1] = float("inf")
    t2[p.probs == 1] = 0
    return t1 + t2


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    """log((q.high - q.low) / (p.high - p.low)); inf unless [p.low, p.high] lies inside q's."""
    result = ((q.high - q.low) / (p.high - p.low)).log()
    result[(q.low > p.low) | (q.high < p.high)] = float("inf")
    return result


_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def _normal_cross_entropy(q, second_moment_about_loc):
    """E_p[-log q] for q Normal, from p's mean-square distance to q.loc."""
    return _HALF_LOG_2PI + q.scale.log() + second_moment_about_loc / (2 * q.scale.pow(2))


@register_kl(Normal, Uniform)
def _kl_normal_uniform(p, q):
    """inf: a normal puts mass outside any interval."""
    shape = ember.broadcast_shapes(p.batch_shape, q.batch_shape)
    return ember.full(shape, math.inf, dtype=p.loc.dtype)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    """-log(b - a) + E_p[-log q], E_p[(x - mu)^2] = (b - a)^2 / 12 + ((a + b) / 2 - mu)^2."""
    width = p.high - p.low
    spread = width.pow(2) / 12 + ((p.high + p.low) / 2 - q.loc).pow(2)
    return -width.log() + _normal_cross_entropy(q, spread)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    """log rate - 1 + E_p[-log q], E_p[(x - mu)^2] = 2 / rate^2 - 2 mu / rate + mu^2."""
    spread = 2 / p.rate.pow(2) - 2 * q.loc / p.rate + q.loc.pow(2)
    return p.rate.log() - 1 + _normal_cross_entropy(q, spread)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    """-log(2 b) - 1 + E_p[-log q], E_p[(x - mu)^2] = 2 b^2 + (m - mu)^2."""
    spread = 2 * p.scale.pow(2) + (p.loc - q.loc).pow(2)
    return -(2 * p.scale).log() - 1 + _normal_cross_entropy(q, spread)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    """(tr(Sq^-1 Sp) + |Lq^-1 (mu_q - mu_p)|^2 - k) / 2 + log|Lq| - log|Lp|, with S = L L^T."""
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with" + " " * 26 +
                         "different event shapes cannot be computed")  # (torch's spacing)
    lp, lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    log_det = (lq.diagonal(dim1=-2, dim2=-1).log().sum(-1)
               - lp.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    shape = ember.broadcast_shapes(lp.shape[:-2], lq.shape[:-2])
    n = p.event_shape[0]
    ratio = ember.linalg.solve_triangular(lq.expand(shape + (n, n)), lp.expand(shape + (n, n)),
                                          upper=False)
    trace = ratio.pow(2).sum((-2, -1))
    return log_det + 0.5 * (trace + _mahalanobis(lq, q.loc - p.loc) - n)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p, q):
    """The KL of the underlying categoricals."""
    return kl_divergence(p._categorical, q._categorical)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    """The bases' KL summed over the reinterpreted dims (which must agree)."""
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    """r - log r - 1, r = q.rate / p.rate."""
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    """-log r + |dloc| / q.scale + r exp(-|dloc| / p.scale) - 1, r = p.scale / q.scale."""
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * ember.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1
