"""ExponentialFamily (ember/distributions/exp_family.py): which distributions are exponential
families (as in torch 2.13), and what kl_divergence does between two different ones."""
import pytest
import torch

import ember

NAMES = ["Bernoulli", "Categorical", "Exponential", "Independent", "Laplace",
         "MultivariateNormal", "Normal", "OneHotCategorical", "Uniform"]


@pytest.mark.parametrize("name", NAMES)
def test_exponential_families_as_torch(name):
    assert issubclass(getattr(ember.distributions, name), ember.distributions.ExponentialFamily) \
        == issubclass(getattr(torch.distributions, name), torch.distributions.ExponentialFamily)


def test_exponential_family_is_a_distribution_with_its_base_behaviour():
    for m in (ember, torch):
        D = m.distributions
        assert issubclass(D.ExponentialFamily, D.Distribution)
        fam = D.ExponentialFamily(batch_shape=m.Size([2]), validate_args=False)
        assert (tuple(fam.batch_shape), tuple(fam.event_shape)) == ((2,), ())


def test_kl_between_different_families_refused_as_torch():
    caught = []
    for m in (ember, torch):
        D = m.distributions
        with pytest.raises(NotImplementedError) as info:
            D.kl_divergence(D.Exponential(m.tensor(1.0)), D.Bernoulli(probs=m.tensor(0.5)))
        caught.append(str(info.value))
    assert caught[0] == caught[1]
