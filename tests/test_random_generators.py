"""Random numbers (ember/random.py, random factories): seeding, generators, moments."""
import numpy as np
import pytest

import ember

SAMPLERS = {
    "rand": lambda g: ember.rand(2000, generator=g),
    "randn": lambda g: ember.randn(2000, generator=g),
    "randint": lambda g: ember.randint(0, 10, (2000,), generator=g),
    "randperm": lambda g: ember.randperm(50, generator=g),
    "normal": lambda g: ember.normal(2.0, 3.0, size=(2000,), generator=g),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_manual_seed_reproduces_default_generator(name):
    ember.manual_seed(123)
    a = SAMPLERS[name](None)
    ember.manual_seed(123)
    b = SAMPLERS[name](None)
    ember.manual_seed(124)
    c = SAMPLERS[name](None)
    assert a.tolist() == b.tolist() and a.tolist() != c.tolist()


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_generator_objects_are_independent(name):
    g1, g2 = ember.Generator().manual_seed(7), ember.Generator().manual_seed(7)
    a = SAMPLERS[name](g1)
    ember.manual_seed(0)
    ember.rand(10)  # the default generator does not disturb g2
    assert SAMPLERS[name](g2).tolist() == a.tolist()


def test_rng_state_roundtrip():
    ember.manual_seed(5)
    state = ember.get_rng_state()
    a = ember.randn(5)
    ember.set_rng_state(state)
    assert ember.randn(5).tolist() == a.tolist()
    assert ember.initial_seed() == 5
    assert ember.manual_seed(3) is ember.random.default_generator


def test_moments_and_ranges():
    g = ember.Generator().manual_seed(0)
    u = ember.rand(100_000, generator=g).numpy()
    assert u.dtype == np.float32 and 0 <= u.min() and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.01 and abs(u.var() - 1 / 12) < 0.005
    n = ember.randn(100_000, generator=g, dtype=ember.float64).numpy()
    assert n.dtype == np.float64 and abs(n.mean()) < 0.02 and abs(n.std() - 1) < 0.02
    m = ember.normal(2.0, 3.0, size=(100_000,), generator=g).numpy()
    assert abs(m.mean() - 2) < 0.05 and abs(m.std() - 3) < 0.05
    i = ember.randint(3, 8, (100_000,), generator=g)
    assert i.dtype == ember.int64 and set(np.unique(i.numpy())) == {3, 4, 5, 6, 7}
    p = ember.randperm(100, generator=g)
    assert p.dtype == ember.int64 and sorted(p.tolist()) == list(range(100))


def test_normal_with_tensor_arguments_and_bernoulli():
    mean = ember.tensor([0.0, 10.0, -10.0])
    s = ember.normal(mean, ember.tensor([1e-6, 1e-6, 1e-6]))
    assert s.shape == (3,) and np.allclose(s.numpy(), mean.numpy(), atol=1e-3)
    b = ember.bernoulli(ember.full((20000,), 0.3))
    assert set(np.unique(b.numpy())) <= {0.0, 1.0} and abs(b.numpy().mean() - 0.3) < 0.02


def test_in_place_initialisers():
    ember.manual_seed(0)
    x = ember.empty(10000).uniform_(-2, 2)
    assert -2 <= x.min().item() and x.max().item() < 2 and x._version == 1
    y = ember.empty(10000).normal_(1.0, 0.5)
    assert abs(y.mean().item() - 1) < 0.03 and abs(y.std().item() - 0.5) < 0.03


def test_random_tensors_can_require_grad():
    x = ember.randn(3, requires_grad=True)
    assert x.requires_grad and x.is_leaf and x.dtype == ember.float32
