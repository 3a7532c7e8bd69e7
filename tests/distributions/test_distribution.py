"""The Distribution base (ember/distributions/distribution.py): batch/event shapes, argument and
sample validation with torch's messages, the validation switch, expand, repr, and the methods a
subclass must supply, compared with torch 2.13."""
import pytest
import torch

import ember

from ._oracle import raises_as_torch, same_as_torch


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
    same_as_torch(_expanded)


def test_repr_and_validation_switch_as_torch():
    for lib in (ember, torch):
        D = lib.distributions
        assert repr(D.Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
        assert repr(D.Categorical(probs=lib.ones(2, 3))).startswith("Categorical(probs: ")
        D.Normal(lib.zeros(1), -lib.ones(1), validate_args=False)  # no check
        assert repr(D.constraints.unit_interval) == \
            "Interval(lower_bound=0.0, upper_bound=1.0)"


def _base(m, D):
    d = D.Distribution(m.Size([2, 3]), m.Size([4]), validate_args=False)
    return [tuple(d.batch_shape), tuple(d.event_shape), type(d.batch_shape).__name__,
            tuple(d._extended_shape((5,))), tuple(d._extended_shape()), d.has_rsample,
            d.has_enumerate_support]


def test_base_shapes_and_flags_as_torch():
    same_as_torch(_base)


@pytest.mark.parametrize("name", ["arg_constraints", "support", "mean", "mode", "variance",
                                  "stddev"])
def test_base_leaves_the_properties_to_subclasses(name):
    for m in (ember, torch):
        d = m.distributions.Distribution(validate_args=False)
        with pytest.raises(NotImplementedError):
            getattr(d, name)


@pytest.mark.parametrize("method", ["rsample", "log_prob", "cdf", "icdf", "entropy"])
def test_base_leaves_the_methods_to_subclasses(method):
    for m in (ember, torch):
        d = m.distributions.Distribution(validate_args=False)
        args = () if method in ("rsample", "entropy") else (m.zeros(1),)
        with pytest.raises(NotImplementedError):
            getattr(d, method)(*args)
        with pytest.raises(NotImplementedError):
            d.sample() if method == "rsample" else d.perplexity()


def test_sample_n_and_perplexity_as_torch():
    def build(m, D):
        n = D.Normal(m.zeros(2), m.ones(2) * 3)
        return [n.sample_n(4), n.perplexity(), tuple(n.sample_n(1).shape)]
    same_as_torch(build)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.Normal(m.zeros(2), m.ones(2)).log_prob([0.0, 0.0]),
    lambda m, D: D.Normal(m.zeros(2, 3), m.ones(2, 3)).log_prob(m.zeros(4, 3)),
    lambda m, D: D.Independent(D.Normal(m.zeros(2, 3), m.ones(2, 3)), 1).log_prob(m.zeros(2)),
    lambda m, D: D.Uniform(m.zeros(2), m.ones(2)).log_prob(m.tensor([0.5, 1.5])),
    lambda m, D: D.Normal(m.tensor([0.0, float("nan")]), m.ones(2)),
    lambda m, D: D.Distribution.set_default_validate_args("yes"),
], ids=["not-tensor", "not-broadcastable", "event-shape", "outside-support", "nan-param",
        "switch-not-bool"])
def test_validation_errors_as_torch(bad):
    raises_as_torch(bad)


def test_default_validation_switch_as_torch():
    for m in (ember, torch):
        D = m.distributions
        try:
            D.Distribution.set_default_validate_args(False)
            n = D.Normal(m.zeros(1), -m.ones(1))  # not checked
            assert n._validate_args is False
            n.log_prob(m.tensor([1.0]))
        finally:
            D.Distribution.set_default_validate_args(True)
        with pytest.raises(ValueError, match="to satisfy the constraint GreaterThan"):
            D.Normal(m.zeros(1), -m.ones(1))
        assert D.Normal(0.0, 1.0, validate_args=False)._validate_args is False
