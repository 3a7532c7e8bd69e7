"""The torch.distributions package surface (ember/distributions/__init__.py): every name it
exports is torch's, of the same kind, in the same class hierarchy, and the modules torch's
users import from are there."""
import inspect

import pytest
import torch

import ember


@pytest.mark.parametrize("name", ember.distributions.__all__)
def test_exported_names_are_torchs(name):
    e, t = getattr(ember.distributions, name), getattr(torch.distributions, name)
    assert inspect.isclass(e) == inspect.isclass(t)
    assert inspect.ismodule(e) == inspect.ismodule(t)
    assert callable(e) == callable(t)
    if inspect.isclass(t):
        bases = [b.__name__ for b in e.__mro__[1:] if b.__module__.startswith("ember")
                 and not b.__name__.startswith("_")]  # (ember's private mixins)
        torch_bases = [b.__name__ for b in t.__mro__[1:] if b.__module__.startswith("torch")]
        assert bases == torch_bases
        if not issubclass(t, torch.distributions.Distribution):
            return  # (transforms, the constraint registry)
        for flag in ("has_rsample", "has_enumerate_support"):  # Independent's are properties
            assert isinstance(getattr(e, flag), property) == isinstance(getattr(t, flag), property)
            if not isinstance(getattr(t, flag), property):
                assert getattr(e, flag) == getattr(t, flag), flag


def test_all_lists_what_the_package_has():
    for name in ember.distributions.__all__:
        assert hasattr(ember.distributions, name)
    assert set(ember.distributions.__all__) <= set(dir(torch.distributions))
    assert "constraints" in dir(ember.distributions)


def test_submodules_importable_as_torchs():
    import ember.distributions.constraints as EC
    import ember.distributions.kl as EK
    import ember.distributions.utils as EU
    from ember.distributions.constraint_registry import biject_to
    from ember.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
    from ember.distributions.relaxed_categorical import ExpRelaxedCategorical
    from ember.distributions.studentT import StudentT
    from ember.distributions.transforms import StickBreakingTransform
    assert biject_to is ember.distributions.biject_to and StudentT is ember.distributions.StudentT
    assert LogitRelaxedBernoulli and ExpRelaxedCategorical and StickBreakingTransform
    assert EC is ember.distributions.constraints
    assert EK.kl_divergence is ember.distributions.kl_divergence
    assert EU.broadcast_all(1.0, 2.0)[0].dtype == ember.get_default_dtype()


def test_a_package_level_round_trip_as_torch():
    got = []
    for m in (ember, torch):
        m.manual_seed(3)
        D = m.distributions
        d = D.Normal(m.zeros(2), m.ones(2))
        x = d.sample((3,))
        got.append((x.numpy().tolist(), d.log_prob(x).sum().item(),
                    D.kl_divergence(d, D.Normal(m.ones(2), m.ones(2))).tolist()))
    assert got[0][0] == got[1][0]
    assert got[0][1] == pytest.approx(got[1][1], rel=1e-6)
    assert got[0][2] == pytest.approx(got[1][2], rel=1e-6)
