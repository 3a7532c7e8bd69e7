"""Independent (ember/distributions/independent.py): batch dims reinterpreted as event dims -
shapes, log_prob, entropy, gradients, KL, support and repr, compared with torch 2.13."""
from ._oracle import raises_as_torch, same_as_torch


def _independent(m, D):
    loc = m.randn(2, 3, requires_grad=True)
    d = D.Independent(D.Normal(loc, m.ones(2, 3)), 1)
    q = D.Independent(D.Normal(m.zeros(2, 3), m.ones(2, 3) * 2), 1)
    r = d.rsample((4,))
    d.log_prob(r).sum().backward()
    return [tuple(d.batch_shape), tuple(d.event_shape), r, d.log_prob(r), d.entropy(), loc.grad,
            D.kl_divergence(d, q), d.sample(), d.mean, d.variance, d.has_rsample, repr(d.support),
            bool(d.support.check(r).all()), repr(d).replace("ember.", "torch.")]


def test_independent_matches_torch():
    same_as_torch(_independent)


def test_independent_too_many_dims_error_as_torch():
    raises_as_torch(lambda m, D: D.Independent(D.Normal(m.zeros(2), m.ones(2)), 2))
