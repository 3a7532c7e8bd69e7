"""nn.init: gains equal torch's, every initialiser's bounds and moments follow its distribution,
fan computations and errors match torch."""
import math

import numpy as np
import pytest
import torch

import ember
from ember.nn import init


@pytest.mark.parametrize("args", [("linear",), ("conv2d",), ("sigmoid",), ("tanh",), ("relu",),
                                  ("leaky_relu",), ("leaky_relu", 0.2), ("selu",)])
def test_calculate_gain_matches_torch(args):
    assert init.calculate_gain(*args) == pytest.approx(torch.nn.init.calculate_gain(*args))


def test_calculate_gain_errors():
    with pytest.raises(ValueError, match="Unsupported nonlinearity foo"):
        init.calculate_gain("foo")
    with pytest.raises(ValueError, match="negative_slope x not a valid number"):
        init.calculate_gain("leaky_relu", "x")


@pytest.mark.parametrize("shape", [(4, 3), (8, 4, 3, 3), (5, 2, 7)], ids=str)
def test_fans_match_torch(shape):
    e = init._calculate_fan_in_and_fan_out(ember.empty(*shape))
    t = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(*shape))
    assert e == t
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        init._calculate_fan_in_and_fan_out(ember.empty(3))


def _sample(fn, shape=(400, 500), **kwargs):
    ember.manual_seed(0)
    t = ember.empty(*shape)
    assert fn(t, **kwargs) is t
    return t.numpy()


def test_uniform_and_normal_moments():
    u = _sample(init.uniform_, a=-2.0, b=3.0)
    assert u.min() >= -2 and u.max() < 3
    np.testing.assert_allclose([u.mean(), u.var()], [0.5, 25 / 12], rtol=0.02)
    n = _sample(init.normal_, mean=1.0, std=2.0)
    np.testing.assert_allclose([n.mean(), n.std()], [1.0, 2.0], rtol=0.02)


def test_constant_zeros_ones_eye_dirac():
    assert np.all(_sample(init.constant_, val=0.3) == np.float32(0.3))
    assert not _sample(init.zeros_).any()
    assert np.all(_sample(init.ones_) == 1)
    np.testing.assert_array_equal(_sample(init.eye_, shape=(3, 5)), np.eye(3, 5))
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(ember.empty(2, 2, 2))
    e = init.dirac_(ember.empty(4, 2, 3, 3)).numpy()
    t = torch.nn.init.dirac_(torch.empty(4, 2, 3, 3)).numpy()
    np.testing.assert_array_equal(e, t)


@pytest.mark.parametrize("gain", [1.0, 2.0])
def test_xavier(gain):
    fan_in, fan_out = 500, 400
    bound = gain * math.sqrt(6 / (fan_in + fan_out))
    u = _sample(init.xavier_uniform_, gain=gain)
    assert np.abs(u).max() <= bound
    np.testing.assert_allclose(u.var(), bound ** 2 / 3, rtol=0.02)
    n = _sample(init.xavier_normal_, gain=gain)
    np.testing.assert_allclose(n.std(), gain * math.sqrt(2 / (fan_in + fan_out)), rtol=0.02)


@pytest.mark.parametrize("mode,fan", [("fan_in", 500), ("fan_out", 400)])
@pytest.mark.parametrize("nonlinearity,a", [("relu", 0), ("leaky_relu", math.sqrt(5)),
                                            ("leaky_relu", 0.1)])
def test_kaiming(mode, fan, nonlinearity, a):
    gain = torch.nn.init.calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    u = _sample(init.kaiming_uniform_, a=a, mode=mode, nonlinearity=nonlinearity)
    assert np.abs(u).max() <= math.sqrt(3) * std
    np.testing.assert_allclose(u.std(), std, rtol=0.02)
    n = _sample(init.kaiming_normal_, a=a, mode=mode, nonlinearity=nonlinearity)
    np.testing.assert_allclose(n.std(), std, rtol=0.02)
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(ember.empty(3, 3), mode="fan_avg")


def test_kaiming_zero_element_warns_like_torch():
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(ember.empty(0, 3))


def test_trunc_normal_stays_in_bounds():
    v = _sample(init.trunc_normal_, mean=0.5, std=1.0, a=-1.0, b=1.5)
    assert v.min() >= -1.0 and v.max() <= 1.5
    # truncated N(0.5, 1) on [-1, 1.5]: the mean torch's sampler also targets
    t = torch.nn.init.trunc_normal_(torch.empty(400, 500), 0.5, 1.0, -1.0, 1.5).numpy()
    np.testing.assert_allclose(v.mean(), t.mean(), atol=0.01)
    np.testing.assert_allclose(v.std(), t.std(), rtol=0.02)


@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 2, 3)], ids=str)
def test_orthogonal(shape):
    q = _sample(init.orthogonal_, shape=shape, gain=2.0).reshape(shape[0], -1).astype(np.float64)
    rows, cols = q.shape
    gram = q @ q.T if rows <= cols else q.T @ q
    np.testing.assert_allclose(gram, 4 * np.eye(min(rows, cols)), atol=1e-5)
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions"):
        init.orthogonal_(ember.empty(3))


def test_sparse():
    v = _sample(init.sparse_, shape=(10, 6), sparsity=0.3)
    assert all((v[:, c] == 0).sum() >= 3 for c in range(6))


def test_init_does_not_record_graph_and_bumps_version():
    w = ember.nn.Parameter(ember.empty(3, 3))
    before = w._version
    init.normal_(w)
    assert w.grad_fn is None and w.requires_grad and w._version > before


def test_generator_argument_is_reproducible():
    g1, g2 = ember.Generator().manual_seed(7), ember.Generator().manual_seed(7)
    a = init.kaiming_uniform_(ember.empty(4, 4), generator=g1)
    b = init.kaiming_uniform_(ember.empty(4, 4), generator=g2)
    assert ember.equal(a, b)


@pytest.mark.parametrize("name,kwargs,shape", [
    ("uniform_", {"a": -0.5, "b": 2.0}, (7, 9)), ("normal_", {"mean": 1.0, "std": 0.5}, (7, 9)),
    ("normal_", {}, (3, 4)), ("xavier_uniform_", {"gain": 2.0}, (6, 5)),
    ("xavier_normal_", {}, (6, 5)), ("kaiming_uniform_", {"a": math.sqrt(5)}, (8, 3, 3, 3)),
    ("kaiming_normal_", {"mode": "fan_out", "nonlinearity": "relu"}, (8, 4)),
    ("trunc_normal_", {"std": 0.02}, (50, 40)), ("trunc_normal_", {"mean": 0.5, "a": 0.0}, (9,)),
    ("trunc_normal_", {"mean": 0.0, "std": 1.0, "a": 1.0, "b": 1.5}, (30, 40)),
    ("orthogonal_", {"gain": 1.5}, (5, 7)), ("orthogonal_", {}, (7, 5)),
    ("sparse_", {"sparsity": 0.4}, (6, 5))])
def test_seeded_initialisers_draw_torchs_values(name, kwargs, shape):
    results = []
    for lib in (ember, torch):
        lib.manual_seed(4)
        results.append(getattr(lib.nn.init, name)(lib.empty(*shape), **kwargs).numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=2e-6, atol=2e-6)


def test_uniform_fill_drawn_into_the_tensor_keeps_torchs_values_and_version():
    """uniform_ draws straight into a contiguous tensor (no second copy of a large parameter):
    the same values and stream as torch, one version bump, views and non-contiguous tensors
    filled as before."""
    import torch
    out = []
    for lib in (ember, torch):
        lib.manual_seed(3)
        w = lib.empty(70000, dtype=lib.bfloat16)
        base = lib.zeros(6, 4)
        lib.nn.init.uniform_(w, -0.2, 0.2)
        lib.nn.init.uniform_(base.t(), -1, 2)  # non-contiguous
        lib.nn.init.uniform_(base[1], 5, 6)  # a contiguous view: writes through
        out.append((w.float().numpy(), base.numpy(), w._version, lib.rand(2).numpy()))
    for e, t in zip(*out):
        np.testing.assert_array_equal(e, t)
