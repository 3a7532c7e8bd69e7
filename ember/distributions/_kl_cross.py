"""kl_divergence's closed forms between different families (registered on import by the
package), mostly -H(p) + E_p[-log q] from p's moments, and inf where p's support leaves q's."""
import math

import ember

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import _EULER, Gumbel
from .kl import register_kl
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .uniform import Uniform

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


def _register_infinite(pairs, parameter):
    """KL = inf for each pair (p's support reaches where q has no density), shaped like p's
    ``parameter``."""
    def infinite(p, q):
        return ember.full_like(getattr(p, parameter), math.inf)
    for pair in pairs:
        register_kl(*pair)(infinite)


_register_infinite([(Exponential, Pareto), (Exponential, Uniform)], "rate")


_register_infinite([(Gumbel, Exponential), (Gumbel, Pareto), (Gumbel, Uniform),
                    (Laplace, Exponential), (Laplace, Pareto), (Laplace, Uniform),
                    (Normal, Exponential), (Normal, Pareto)], "loc")


_register_infinite([(Pareto, Uniform)], "scale")


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    """-log(r / sqrt(2 pi)) + (pi r / 2)^2 / 3 + ((mean_p - m_q) / s_q)^2 / 2 - gamma - 1."""
    ratio = p.scale / q.scale
    return -(ratio / math.sqrt(2 * math.pi)).log() + (math.pi * ratio * 0.5).pow(2) / 3 + \
        ((p.mean - q.loc) / q.scale).pow(2) * 0.5 - (_EULER + 1)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    """log(rate s) - 1 - m / s + exp(m / s) rate s / (rate s + 1) + 1 / (rate s)."""
    product = p.rate * q.scale
    shift = q.loc / q.scale
    return product.log() - 1 - shift + ember.exp(shift) * product / (product + 1) + \
        product.reciprocal()


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    """-log(s_p / s_q) + (m_p - m_q) / s_q + exp(-(m_p - m_q) / s_q + r^2 / 2) - log(2 pi e) / 2,
    r = s_p / s_q."""
    shift = (p.loc - q.loc) / q.scale
    ratio2 = (p.scale / q.scale).pow(2)
    return -ratio2.log() * 0.5 + shift + ember.exp(-shift + 0.5 * ratio2) - \
        0.5 * (1 + math.log(2 * math.pi))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    """-log(s_p / b) + E_p|x - m_q| / b - (1 + log(pi / 2)) / 2."""
    diff = p.loc - q.loc
    absolute = math.sqrt(2 / math.pi) * p.scale * ember.exp(-0.5 * (diff / p.scale).pow(2)) + \
        diff * ember.erf(math.sqrt(0.5) * diff / p.scale)
    return -(p.scale / q.scale).log() + absolute / q.scale - 0.5 * (1 + math.log(0.5 * math.pi))


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    ratio = q.scale / (p.high - p.low)
    high, low = (p.high - q.loc) / q.scale, (p.low - q.loc) / q.scale
    return ratio.log() + 0.5 * (high + low) - ratio * (ember.exp(-high) - ember.exp(-low))


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    """log(alpha / (s rate)) - 1 / alpha + alpha s rate / (alpha - 1) - 1; inf for alpha <= 1."""
    product = p.scale * q.rate
    result = (p.alpha / product).log() - p.alpha.reciprocal() + \
        p.alpha * product / (p.alpha - 1) - 1
    result[p.alpha <= 1] = math.inf
    return result


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    """-entropy(p) + E_p[-log q] from p's moments; inf for alpha <= 2."""
    two_var = 2 * q.scale.pow(2)
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t3 = p.alpha * common.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc).pow(2)
    result = t1 - p.alpha.reciprocal() + (t3 + t4) / two_var - 1
    result[p.alpha <= 2] = math.inf
    return result


def _x_log_x(x):
    return x * x.log()


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    """-log(w) + E_p[-log q], w = high - low; inf if low < q.scale."""
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    result = t2 * (q.alpha + 1) - t1
    result[p.low < q.scale] = math.inf
    return result


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    """-entropy(p) - log(rate_q) + rate_q E_p[x]."""
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


_register_infinite([(Poisson, Bernoulli), (Poisson, Binomial)], "rate")


_register_infinite([(Beta, Pareto)], "concentration1")


_register_infinite([(Exponential, Beta)], "rate")


_register_infinite([(Gamma, Beta), (Gamma, Pareto), (Gamma, Uniform)], "concentration")


_register_infinite([(Gumbel, Beta), (Gumbel, Gamma), (Laplace, Beta), (Laplace, Gamma),
                    (Normal, Beta), (Normal, Gamma)], "loc")


_register_infinite([(Pareto, Beta)], "scale")


def _gamma_cross_entropy(q, mean, mean_log):
    """E_p[-log q] for q Gamma, from p's E[x] and E[log x]."""
    return (q.concentration.lgamma() - q.concentration * q.rate.log() -
            (q.concentration - 1) * mean_log + q.rate * mean)


def _beta_mean(p):
    return p.concentration1 / (p.concentration1 + p.concentration0)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    """-H(p) + E_p[-log q]: E[x] = 1 / rate, E[log x] = -gamma - log rate."""
    return p.rate.log() - 1 + _gamma_cross_entropy(q, p.rate.reciprocal(), -_EULER - p.rate.log())


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    mean_log = p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma()
    return -p.entropy() + _gamma_cross_entropy(q, _beta_mean(p), mean_log)


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    """E[x] = alpha s / (alpha - 1), E[log x] = log s + 1 / alpha; inf for alpha <= 1."""
    mean_log = p.scale.log() + p.alpha.reciprocal()
    result = -p.entropy() + _gamma_cross_entropy(q, p.alpha * p.scale / (p.alpha - 1), mean_log)
    result[p.alpha <= 1] = math.inf
    return result


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    """E[log x] = (h log h - l log l - (h - l)) / (h - l); inf where low < 0."""
    width = p.high - p.low
    mean_log = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    result = -width.log() + _gamma_cross_entropy(q, (p.high + p.low) / 2, mean_log)
    result[p.low < 0] = math.inf
    return result


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    """E_p[(x - mu)^2] = a / r^2 + (a / r - mu)^2."""
    spread = p.concentration / p.rate.pow(2) + (p.concentration / p.rate - q.loc).pow(2)
    return -p.entropy() + _normal_cross_entropy(q, spread)


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    """E_p[(x - mu)^2] = m (1 - m) / (a + b + 1) + (m - mu)^2, m the mean."""
    mean = _beta_mean(p)
    spread = mean * (1 - mean) / (p.concentration1 + p.concentration0 + 1) + \
        (mean - q.loc).pow(2)
    return -p.entropy() + _normal_cross_entropy(q, spread)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * _beta_mean(p)


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    """-H(p) + log(high - low); inf unless [0, 1] lies inside q's interval."""
    result = -p.entropy() + (q.high - q.low).log()
    result[(q.low > 0) | (q.high < 1)] = math.inf
    return result


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    result[p.low < 0] = math.inf
    return result


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    """-log w - (a - 1) E[log x] - (b - 1) E[log(1 - x)] + log B(a, b); inf outside [0, 1]."""
    width = p.high - p.low
    mean_log = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    mean_log1m = (_x_log_x(1 - p.low) - _x_log_x(1 - p.high) - width) / width
    log_beta = (q.concentration1.lgamma() + q.concentration0.lgamma() -
                (q.concentration1 + q.concentration0).lgamma())
    result = -width.log() - (q.concentration1 - 1) * mean_log - \
        (q.concentration0 - 1) * mean_log1m + log_beta
    result[(p.high > 1) | (p.low < 0)] = math.inf
    return result


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    """-H(p) + log s + E[x] / s - m / s + exp(m / s) E[exp(-x / s)], with the gamma's
    E[exp(-x / s)] = (1 + 1 / (r s))^-a."""
    product = p.rate * q.scale
    shift = q.loc / q.scale
    return (-p.entropy() + q.scale.log() + p.concentration / product - shift +
            ember.exp(shift) * (1 + product.reciprocal()).pow(-p.concentration))


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    """-H(p) + E_p[-log q] = -H(p) - (p log rate - rate) (log 0! = log 1! = 0)."""
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


_register_infinite([(ContinuousBernoulli, Pareto)], "probs")
_register_infinite([(Exponential, ContinuousBernoulli)], "rate")
_register_infinite([(Gamma, ContinuousBernoulli)], "concentration")
_register_infinite([(Gumbel, ContinuousBernoulli), (Laplace, ContinuousBernoulli),
                    (Normal, ContinuousBernoulli)], "loc")
_register_infinite([(Pareto, ContinuousBernoulli)], "scale")


def _continuous_bernoulli_cross_entropy(q, mean):
    """E_p[-log q] for q ContinuousBernoulli, from p's mean (log q is linear in x)."""
    return -mean * q.logits - ember.log1p(-q.probs) - q._cont_bern_log_norm()


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() + _continuous_bernoulli_cross_entropy(q, p.mean)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    """inf where [low, high] reaches 0 or 1 (torch's test, bounds included)."""
    result = -p.entropy() + _continuous_bernoulli_cross_entropy(q, p.mean)
    return ember.where((p.high >= 1) | (p.low <= 0), ember.ones_like(result) * math.inf, result)


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - ember.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    """E_p[(x - mu)^2] = Var + (E[x] - mu)^2."""
    return -p.entropy() + _normal_cross_entropy(q, p.variance + (p.mean - q.loc).pow(2))


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    """inf unless q's interval strictly contains [0, 1] (torch's test, bounds included)."""
    result = -p.entropy() + (q.high - q.low).log()
    return ember.where((q.low >= 0) | (q.high <= 1), ember.ones_like(result) * math.inf, result)
