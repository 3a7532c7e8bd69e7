"""OneHotCategorical and OneHotCategoricalStraightThrough
(ember/distributions/one_hot_categorical.py): one-hot samples, log_prob, entropy, moments,
enumerate_support, repr, the straight-through gradient and the support error, compared with
torch 2.13."""
from ._oracle import raises_as_torch, same_as_torch


def _one_hot_categorical(m, D):
    d = D.OneHotCategorical(logits=m.randn(2, 4))
    s = d.sample((3,))
    p = D.OneHotCategorical(probs=m.tensor([0.2, 0.3, 0.5]))
    return [tuple(d.batch_shape), tuple(d.event_shape), s, d.log_prob(s), d.entropy(), d.mode,
            d.mean, d.variance, d.enumerate_support(), tuple(d.enumerate_support(False).shape),
            p.sample(), p.log_prob(m.tensor([0., 1., 0.])), repr(d)]


def test_one_hot_categorical_matches_torch():
    same_as_torch(_one_hot_categorical)


def test_one_hot_support_error_as_torch():
    raises_as_torch(lambda m, D: D.OneHotCategorical(probs=m.tensor([0.5, 0.5]))
                    .log_prob(m.tensor([1., 1.])))


def test_straight_through_gradient_as_torch():
    def build(m, D):
        logits = m.randn(2, 4, requires_grad=True)
        d = D.OneHotCategoricalStraightThrough(logits=logits)
        x = d.rsample((3,))
        (x * m.arange(4.0)).sum().backward()
        return [x, logits.grad, d.has_rsample, type(d).__mro__[1].__name__]
    same_as_torch(build)
