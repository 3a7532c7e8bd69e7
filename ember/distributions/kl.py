"""kl_divergence(p, q) = E_p[log p - log q], by the closed form registered for the pair of
types (register_kl adds one): the registry and the forms within one family (or between the
Gaussians); those between different families are in _kl_cross.py."""
import math

import ember
from ember.nn import functional as F

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import _EULER, Gumbel
from .half_normal import HalfNormal
from .independent import Independent, _sum_rightmost
from .laplace import Laplace
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
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


def _kl_gaussians(p, q, names):
    """(tr(Sq^-1 Sp) + (mu_q - mu_p)^T Sq^-1 (mu_q - mu_p) - n) / 2 + (log|Sq| - log|Sp|) / 2,
    from each side's Gaussian interface (log-determinant, Mahalanobis distance, a square root
    of the covariance and the trace of the whitened one)."""
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {names} with" + " " * 26 +
                         "different event shapes cannot be computed")  # (torch's spacing)
    return q._half_log_det() - p._half_log_det() + 0.5 * (
        q._whitened_trace(p._root()) + q._mahalanobis(q.loc - p.loc) - p.event_shape[0])


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    return _kl_gaussians(p, q, "Multivariate Normals")


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p, q):
    return _kl_gaussians(p, q, "Low Rank Multivariate Normals")


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_mvn(p, q):
    return _kl_gaussians(p, q, "(Low Rank) Multivariate Normals")


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


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    """The bases' KL when both push through equal transforms to equal event shapes."""
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    """log(((s_p + s_q)^2 + (m_p - m_q)^2) / (4 s_p s_q)) (Chyzak and Nielsen, 2019)."""
    return ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log() - \
        (4 * p.scale * q.scale).log()


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    """-log r + (m_p - m_q) / s_q + r gamma + exp((m_q - m_p) / s_q + lgamma(1 + r)) - 1 - gamma,
    r = s_p / s_q."""
    ratio = p.scale / q.scale
    shift = (p.loc - q.loc) / q.scale
    return -ratio.log() + shift + ratio * _EULER + \
        ember.exp((1 + ratio).lgamma() - shift) - (1 + _EULER)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    """alpha_q log(s_p / s_q) - log r + r - 1, r = alpha_q / alpha_p; inf if s_p < s_q."""
    ratio = q.alpha / p.alpha
    result = q.alpha * (p.scale / q.scale).log() - ratio.log() + ratio - 1
    result[p.scale < q.scale] = math.inf
    return result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    """a_q log(r_p / r_q) + lgamma(a_q) - lgamma(a_p) + (a_p - a_q) digamma(a_p)
    + (r_q - r_p) a_p / r_p."""
    return (q.concentration * (p.rate / q.rate).log() + ember.lgamma(q.concentration) -
            ember.lgamma(p.concentration) +
            (p.concentration - q.concentration) * ember.digamma(p.concentration) +
            (q.rate - p.rate) * (p.concentration / p.rate))


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    """lgamma(sum a_p) - lgamma(sum a_q) - sum(lgamma a_p - lgamma a_q)
    + sum (a_p - a_q)(digamma a_p - digamma(sum a_p))."""
    total_p, total_q = p.concentration.sum(-1), q.concentration.sum(-1)
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t4 = p.concentration.digamma() - total_p.digamma().unsqueeze(-1)
    return total_p.lgamma() - total_q.lgamma() - t2 + \
        ((p.concentration - q.concentration) * t4).sum(-1)


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    """The KL of the two-part Dirichlets."""
    return _kl_dirichlet_dirichlet(p._dirichlet, q._dirichlet)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    """n (p log(p/q) + (1-p) log((1-p)/(1-q))); inf where p's count exceeds q's."""
    if (p.total_count < q.total_count).any():
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count "
                                  "is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() -
                          (-q.probs).log1p())
    kl[p.total_count > q.total_count] = math.inf
    return kl


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    """-H(p) - log(1 - q) E_p[k] - log q, E_p[k] + 1 = 1 / p."""
    return -p.entropy() - ember.log1p(-q.probs) / p.probs - q.logits


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    """r_p log(r_p / r_q) - (r_p - r_q)."""
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    """E_p[x] (logit p - logit q) + log C(p) + log(1 - p) - log C(q) - log(1 - q)."""
    return (p.mean * (p.logits - q.logits) + p._cont_bern_log_norm() + ember.log1p(-p.probs) -
            q._cont_bern_log_norm() - ember.log1p(-q.probs))
