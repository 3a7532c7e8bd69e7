"""torch.distributions (ember/distributions): samples on torch's random streams, log_prob,
cdf/icdf, entropy, moments, rsample gradients, kl_divergence, and the validation errors, each
compared with torch 2.13 from the same seed."""
import numpy as np
import pytest
import torch

import ember


def _run(lib, build):
    lib.manual_seed(0)
    return build(lib, lib.distributions)


def _same(e, t):
    if isinstance(t, torch.Tensor):
        assert e.dtype.is_floating_point == t.dtype.is_floating_point and e.shape == t.shape
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)  # float32 sums may differ in order
    elif isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            _same(a, b)
    else:
        assert e == t


def _normal(m, D):
    loc = m.randn(3, requires_grad=True)
    n = D.Normal(loc, m.rand(3) + 0.5)
    r = n.rsample((2,))
    lp = n.log_prob(r)
    lp.sum().backward()
    return [n.sample((2,)), r, lp, loc.grad, n.entropy(), n.cdf(m.zeros(3)),
            n.icdf(m.tensor([0.1, 0.5, 0.9])), n.mean, n.stddev, n.variance,
            tuple(n.batch_shape), tuple(n.event_shape), n.mean is loc]


def _scalar_normal(m, D):
    n = D.Normal(0.0, 2.0)
    return [tuple(n.batch_shape), n.sample(), n.sample((4,)), n.log_prob(m.tensor(0.3))]


def _categorical(m, D):
    c = D.Categorical(logits=m.randn(2, 4))
    s = c.sample((5,))
    p = D.Categorical(probs=m.tensor([0.1, 0.2, 0.7]))
    return [c.probs, c.logits, s, c.log_prob(s), c.entropy(), c.mode, c.enumerate_support(),
            p.sample((6,)), p.logits, p.log_prob(m.tensor(2)), tuple(c.batch_shape)]


def _bernoulli(m, D):
    b = D.Bernoulli(probs=m.tensor([0.2, 0.9]))
    b2 = D.Bernoulli(logits=m.tensor([0.3, -1.0]))
    return [b.sample((3,)), b.log_prob(m.tensor([1.0, 0.0])), b.entropy(), b.logits, b2.probs,
            b2.sample(), b.variance, b.enumerate_support()]


def _uniform(m, D):
    u = D.Uniform(m.tensor([0.0, 1.0]), m.tensor([2.0, 3.0]))
    return [u.sample((2,)), u.rsample(), u.log_prob(m.tensor([0.5, 2.5])), u.entropy(), u.mean,
            u.variance, u.stddev, u.cdf(m.tensor([1.0, 2.0]))]


def _kl(m, D):
    n = D.Normal(m.randn(3), m.rand(3) + 0.5)
    c = D.Categorical(logits=m.randn(2, 4))
    b, b2 = D.Bernoulli(probs=m.tensor([0.2, 0.9])), D.Bernoulli(logits=m.tensor([0.3, -1.0]))
    u = D.Uniform(m.tensor([0.0, 1.0]), m.tensor([2.0, 3.0]))
    return [D.kl_divergence(n, D.Normal(m.zeros(3), m.ones(3))),
            D.kl_divergence(c, D.Categorical(logits=m.zeros(2, 4))), D.kl_divergence(b, b2),
            D.kl_divergence(u, D.Uniform(m.tensor([-1.0, 1.5]), m.tensor([3.0, 4.0])))]


def _independent(m, D):
    loc = m.randn(2, 3, requires_grad=True)
    d = D.Independent(D.Normal(loc, m.ones(2, 3)), 1)
    q = D.Independent(D.Normal(m.zeros(2, 3), m.ones(2, 3) * 2), 1)
    r = d.rsample((4,))
    d.log_prob(r).sum().backward()
    return [tuple(d.batch_shape), tuple(d.event_shape), r, d.log_prob(r), d.entropy(), loc.grad,
            D.kl_divergence(d, q), d.sample(), d.mean, d.variance, d.has_rsample, repr(d.support),
            bool(d.support.check(r).all()), repr(d).replace("ember.", "torch.")]


def _multivariate_normal(m, D):
    a = m.randn(3, 3)
    cov = a @ a.T + 0.5 * m.eye(3)
    loc = m.randn(2, 3, requires_grad=True)
    d = D.MultivariateNormal(loc, covariance_matrix=cov)
    r = d.rsample((4,))
    lp = d.log_prob(r)
    lp.sum().backward()
    by_precision = D.MultivariateNormal(m.zeros(3), precision_matrix=m.inverse(cov))
    by_tril = D.MultivariateNormal(m.zeros(3), scale_tril=m.linalg.cholesky(cov))
    return [tuple(d.batch_shape), tuple(d.event_shape), d.scale_tril, d.precision_matrix, r, lp,
            d.entropy(), d.variance, loc.grad, by_precision.scale_tril,
            by_precision.covariance_matrix, by_precision.sample((2,)),
            by_tril.log_prob(m.ones(2, 3)), by_tril.entropy()]


def _one_hot_categorical(m, D):
    d = D.OneHotCategorical(logits=m.randn(2, 4))
    s = d.sample((3,))
    p = D.OneHotCategorical(probs=m.tensor([0.2, 0.3, 0.5]))
    return [tuple(d.batch_shape), tuple(d.event_shape), s, d.log_prob(s), d.entropy(), d.mode,
            d.mean, d.variance, d.enumerate_support(), tuple(d.enumerate_support(False).shape),
            p.sample(), p.log_prob(m.tensor([0., 1., 0.])), repr(d)]


def _exponential_laplace(m, D):
    rate = (m.rand(3) + 0.5).requires_grad_()
    e = D.Exponential(rate)
    r = e.rsample((2,))
    r.sum().backward()
    lap = D.Laplace(m.randn(3), m.rand(3) + 0.5)
    x = lap.rsample((2,))
    return [r, rate.grad, e.log_prob(r), e.entropy(), e.cdf(r), e.icdf(m.tensor([0.1, 0.5, 0.9])),
            e.mean, e.variance, e.mode, D.Exponential(2.0).sample((3,)), x, lap.log_prob(x),
            lap.cdf(x), lap.icdf(m.tensor([0.1, 0.5, 0.9])), lap.entropy(), lap.variance,
            lap.stddev, D.kl_divergence(e, D.Exponential(m.ones(3))),
            D.kl_divergence(lap, D.Laplace(m.zeros(3), m.ones(3))),
            e.expand((2, 3)).sample(), repr(D.constraints.nonnegative)]


@pytest.mark.parametrize("build", [_normal, _scalar_normal, _categorical, _bernoulli, _uniform,
                                   _kl, _independent, _multivariate_normal, _one_hot_categorical,
                                   _exponential_laplace],
                         ids=lambda f: f.__name__[1:])
def test_distribution_matches_torch(build):
    _same(_run(ember, build), _run(torch, build))


@pytest.mark.parametrize("bad", [
    lambda m, D: D.Normal(m.zeros(2), m.tensor([1.0, -1.0])),
    lambda m, D: D.Categorical(),
    lambda m, D: D.Categorical(probs=m.tensor([0.5]), logits=m.tensor([0.0])),
    lambda m, D: D.Bernoulli(probs=m.tensor([1.5])),
    lambda m, D: D.Normal(0.0, 1.0).log_prob(0.5),
    lambda m, D: D.Bernoulli(probs=m.tensor([0.5])).log_prob(m.tensor([0.5])),
    lambda m, D: D.Uniform(1.0, 0.0),
    lambda m, D: D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(probs=m.tensor(0.5))),
    lambda m, D: D.Normal(m.zeros(2), m.ones(2)).log_prob(m.zeros(3)),
    lambda m, D: D.Independent(D.Normal(m.zeros(2), m.ones(2)), 2),
    lambda m, D: D.MultivariateNormal(m.zeros(3)),
    lambda m, D: D.MultivariateNormal(m.zeros(3), covariance_matrix=-m.eye(3)),
    lambda m, D: D.MultivariateNormal(m.tensor(0.0), covariance_matrix=m.eye(3)),
    lambda m, D: D.MultivariateNormal(m.zeros(3), scale_tril=m.ones(3, 3)),
    lambda m, D: D.MultivariateNormal(m.zeros(3), precision_matrix=m.ones(3)),
    lambda m, D: D.OneHotCategorical(probs=m.tensor([0.5, 0.5])).log_prob(m.tensor([1., 1.])),
    lambda m, D: D.Exponential(m.tensor([1.0])).log_prob(m.tensor([-1.0])),
    lambda m, D: D.Laplace(m.zeros(1), m.zeros(1)),
], ids=["scale", "no-param", "both-params", "probs", "not-tensor", "support", "uniform", "kl",
        "broadcast", "independent", "mvn-none", "mvn-not-pd", "mvn-loc-0d", "mvn-not-tril",
        "mvn-1d", "one-hot", "exponential-support", "laplace-scale"])
def test_errors_as_torch(bad):
    caught = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as info:
            bad(lib, lib.distributions)
        caught.append((type(info.value), str(info.value).replace("ember.", "torch.")))
    assert caught[0] == caught[1]


def test_repr_and_validation_switch_as_torch():
    for lib in (ember, torch):
        D = lib.distributions
        assert repr(D.Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
        assert repr(D.Categorical(probs=lib.ones(2, 3))).startswith("Categorical(probs: ")
        D.Normal(lib.zeros(1), -lib.ones(1), validate_args=False)  # no check
        assert repr(D.constraints.unit_interval) == \
            "Interval(lower_bound=0.0, upper_bound=1.0)"


def _expanded(m, D):
    made = [D.Normal(m.randn(3), m.rand(3) + 0.5), D.Uniform(m.zeros(3), m.ones(3)),
            D.Bernoulli(probs=m.rand(3)), D.Bernoulli(logits=m.randn(3)),
            D.Categorical(logits=m.randn(3, 4)), D.OneHotCategorical(probs=m.rand(3, 4)),
            D.Independent(D.Normal(m.zeros(3, 2), m.ones(3, 2)), 1),
            D.MultivariateNormal(m.zeros(3, 2), scale_tril=m.eye(2))]
    out = []
    for d in made:
        e = d.expand((5, 3))
        s = e.sample()
        out += [type(e).__name__, tuple(e.batch_shape), tuple(e.event_shape), s,
                e.log_prob(s), e.entropy(), e._validate_args]
    return out


def test_expand_as_torch():
    _same(_run(ember, _expanded), _run(torch, _expanded))
