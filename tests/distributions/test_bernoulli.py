"""Bernoulli (ember/distributions/bernoulli.py): samples, log_prob, entropy, probs <-> logits,
enumerate_support and the validation errors, compared with torch 2.13."""
import pytest

from ._oracle import raises_as_torch, same_as_torch


def _bernoulli(m, D):
    b = D.Bernoulli(probs=m.tensor([0.2, 0.9]))
    b2 = D.Bernoulli(logits=m.tensor([0.3, -1.0]))
    return [b.sample((3,)), b.log_prob(m.tensor([1.0, 0.0])), b.entropy(), b.logits, b2.probs,
            b2.sample(), b.variance, b.enumerate_support()]


def test_bernoulli_matches_torch():
    same_as_torch(_bernoulli)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.Bernoulli(probs=m.tensor([1.5])),
    lambda m, D: D.Bernoulli(probs=m.tensor([0.5])).log_prob(m.tensor([0.5])),
], ids=["probs", "support"])
def test_bernoulli_errors_as_torch(bad):
    raises_as_torch(bad)
