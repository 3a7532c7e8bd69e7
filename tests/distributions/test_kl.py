"""kl_divergence and register_kl (ember/distributions/kl.py): the closed forms for each registered
pair, the most specific registration winning, and the refusals, compared with torch 2.13."""
import pytest
import torch

import ember

from ._oracle import raises_as_torch, same_as_torch


def _kl(m, D):
    n = D.Normal(m.randn(3), m.rand(3) + 0.5)
    c = D.Categorical(logits=m.randn(2, 4))
    b, b2 = D.Bernoulli(probs=m.tensor([0.2, 0.9])), D.Bernoulli(logits=m.tensor([0.3, -1.0]))
    u = D.Uniform(m.tensor([0.0, 1.0]), m.tensor([2.0, 3.0]))
    return [D.kl_divergence(n, D.Normal(m.zeros(3), m.ones(3))),
            D.kl_divergence(c, D.Categorical(logits=m.zeros(2, 4))), D.kl_divergence(b, b2),
            D.kl_divergence(u, D.Uniform(m.tensor([-1.0, 1.5]), m.tensor([3.0, 4.0]))),
            D.kl_divergence(D.Poisson(m.tensor([0.5, 3.0])), D.Poisson(m.tensor([2.0, 1.0])))]


def test_kl_matches_torch():
    same_as_torch(_kl)


def _kl_edges(m, D):
    # q's support not covering p's, probabilities of exactly 0 and 1, a KL with itself, broadcasting
    u = D.Uniform(m.tensor([0.0, 0.0]), m.tensor([1.0, 2.0]))
    narrow = D.Uniform(m.tensor([0.0, 0.5]), m.tensor([1.0, 1.5]))
    b = D.Bernoulli(probs=m.tensor([0.0, 1.0, 0.3]))
    b2 = D.Bernoulli(probs=m.tensor([0.5, 0.5, 0.0]))
    c = D.Categorical(probs=m.tensor([[0.0, 0.5, 0.5], [0.2, 0.3, 0.5]]))
    c2 = D.Categorical(probs=m.tensor([0.5, 0.0, 0.5]))
    n = D.Normal(m.randn(2, 3), m.rand(2, 3) + 0.5)
    e = D.Exponential(m.tensor([0.5, 2.0]))
    lap = D.Laplace(m.tensor([0.0, 1.0]), m.tensor([1.0, 3.0]))
    return [D.kl_divergence(u, narrow), D.kl_divergence(b, b2), D.kl_divergence(c, c2),
            D.kl_divergence(n, n), D.kl_divergence(n, D.Normal(0.0, 2.0)),
            D.kl_divergence(e, D.Exponential(m.tensor(1.0))), D.kl_divergence(lap, lap)]


def test_kl_edge_values_match_torch():
    same_as_torch(_kl_edges)


def test_kl_gradients_match_torch():
    got = []
    for m in (ember, torch):
        loc = m.tensor([0.3, -1.2], requires_grad=True)
        scale = m.tensor([0.7, 2.0], requires_grad=True)
        kl = m.distributions.kl_divergence(m.distributions.Normal(loc, scale),
                                           m.distributions.Normal(m.zeros(2), m.ones(2)))
        kl.sum().backward()
        got.append([kl.detach().numpy(), loc.grad.numpy(), scale.grad.numpy()])
    for e, t in zip(*got):
        assert e.tolist() == pytest.approx(t.tolist(), rel=1e-6)


@pytest.mark.parametrize("bad", [
    lambda m, D: D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(probs=m.tensor(0.5))),
    lambda m, D: D.kl_divergence(D.Categorical(probs=m.ones(2)), D.Normal(0.0, 1.0)),
    lambda m, D: D.kl_divergence(D.Independent(D.Normal(m.zeros(2), m.ones(2)), 1),
                                 D.Normal(0.0, 1.0)),
], ids=["expfamily-cross", "categorical-normal", "independent-normal"])
def test_kl_refusals_as_torch(bad):
    raises_as_torch(bad)


def test_register_kl_most_specific_wins():
    for m in (ember, torch):
        D = m.distributions

        class Wide(D.Normal):
            pass

        class Wider(Wide):
            pass

        @D.register_kl(Wide, D.Normal)
        def _wide(p, q):
            return "wide"

        @D.register_kl(Wider, Wide)
        def _wider(p, q):
            return "wider"

        assert _wide.__name__ == "_wide"  # the decorator hands back the function
        p, q = Wider(0.0, 1.0), Wider(0.0, 1.0)
        assert D.kl_divergence(p, q) == "wider"
        assert D.kl_divergence(p, D.Normal(0.0, 1.0)) == "wide"
        assert D.kl_divergence(Wide(0.0, 1.0), q) == "wide"
        assert float(D.kl_divergence(D.Normal(0.0, 1.0), q)) == 0.0  # Normal-Normal still


def _kl_across(m, D):
    # pairs of different families torch has closed forms for (ember refused them), and two
    # multivariate normals with broadcast batches
    n = D.Normal(m.tensor([0.0, 1.0]), m.tensor([1.0, 2.0]))
    u = D.Uniform(m.tensor([-1.0, 0.0]), m.tensor([1.0, 3.0]))
    mvn = D.MultivariateNormal(m.ones(2), m.tensor([[2.0, 0.5], [0.5, 1.0]]))
    batch = D.MultivariateNormal(m.zeros(3, 2), scale_tril=m.tensor([[1.0, 0.0], [0.3, 0.7]]))
    return [D.kl_divergence(n, u), D.kl_divergence(u, n),
            D.kl_divergence(D.Exponential(m.tensor([1.0, 2.0])), n),
            D.kl_divergence(D.Laplace(m.tensor([0.0, 1.0]), m.tensor([1.0, 0.5])), n),
            D.kl_divergence(D.MultivariateNormal(m.zeros(2), m.eye(2) * 2), mvn),
            D.kl_divergence(batch, mvn), D.kl_divergence(mvn, batch),
            D.kl_divergence(D.OneHotCategorical(m.tensor([0.2, 0.8])),
                            D.OneHotCategorical(m.tensor([0.5, 0.5])))]


def test_kl_across_families_and_multivariate_normals_match_torch():
    same_as_torch(_kl_across)


def test_kl_of_multivariate_normals_of_other_event_shapes_refused_as_torch():
    raises_as_torch(lambda m, D: D.kl_divergence(D.MultivariateNormal(m.zeros(2), m.eye(2)),
                                                 D.MultivariateNormal(m.zeros(3), m.eye(3))))
