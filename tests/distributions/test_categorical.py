"""Categorical (ember/distributions/categorical.py): probs/logits, samples, log_prob, entropy,
mode, enumerate_support and the parameter errors, compared with torch 2.13."""
import pytest

from ._oracle import raises_as_torch, same_as_torch


def _categorical(m, D):
    c = D.Categorical(logits=m.randn(2, 4))
    s = c.sample((5,))
    p = D.Categorical(probs=m.tensor([0.1, 0.2, 0.7]))
    return [c.probs, c.logits, s, c.log_prob(s), c.entropy(), c.mode, c.enumerate_support(),
            p.sample((6,)), p.logits, p.log_prob(m.tensor(2)), tuple(c.batch_shape)]


def test_categorical_matches_torch():
    same_as_torch(_categorical)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.Categorical(),
    lambda m, D: D.Categorical(probs=m.tensor([0.5]), logits=m.tensor([0.0])),
], ids=["no-param", "both-params"])
def test_categorical_errors_as_torch(bad):
    raises_as_torch(bad)
