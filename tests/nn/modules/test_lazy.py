"""Lazy modules against torch: the first forward materialises the parameters with the eager
module's initialisation (same seed, same values), turns the module into its eager class, and
the result trains as torch's does."""
import warnings

import numpy as np
import pytest
import torch

import ember

CASES = [
    (lambda nn: nn.LazyLinear(5), (3, 7)),
    (lambda nn: nn.LazyLinear(2, bias=False), (4, 2, 6)),
    (lambda nn: nn.LazyConv1d(4, 3, padding=1), (2, 3, 8)),
    (lambda nn: nn.LazyConv2d(4, 3, stride=2), (2, 3, 7, 7)),
    (lambda nn: nn.LazyConv2d(6, 3, groups=3), (1, 3, 5, 5)),
    (lambda nn: nn.LazyConvTranspose2d(2, 3), (2, 4, 4, 4)),
    (lambda nn: nn.LazyConv3d(2, 2), (1, 2, 3, 3, 3)),
    (lambda nn: nn.LazyBatchNorm1d(), (4, 5)),
    (lambda nn: nn.LazyBatchNorm2d(momentum=0.3), (3, 2, 4, 4)),
    (lambda nn: nn.LazyBatchNorm3d(), (2, 3, 2, 2, 2)),
    (lambda nn: nn.LazyInstanceNorm1d(), (2, 3, 5)),
    (lambda nn: nn.LazyInstanceNorm2d(momentum=0.2), (2, 3, 4, 4)),
    (lambda nn: nn.LazyInstanceNorm3d(track_running_stats=False), (2, 3, 2, 3, 2)),
]


@pytest.mark.parametrize("make,shape", CASES)
def test_materialises_as_torch(make, shape):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    out = {}
    for lib in (ember, torch):
        lib.manual_seed(3)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = make(lib.nn)
        assert module.has_uninitialized_params()
        before = repr(module)
        y = module(lib.tensor(x))
        y.sum().backward()
        out[lib.__name__] = (before, repr(module), type(module).__name__,
                             {k: v.numpy() for k, v in module.state_dict().items()},
                             y.detach().numpy(), [p.grad.numpy() for p in module.parameters()])
    e, t = out["ember"], out["torch"]
    assert e[:3] == t[:3]
    assert list(e[3]) == list(t[3])
    for key in t[3]:
        np.testing.assert_allclose(e[3][key], t[3][key], rtol=1e-6, atol=1e-7, err_msg=key)
    np.testing.assert_allclose(e[4], t[4], rtol=1e-5, atol=1e-5)
    for a, b in zip(e[5], t[5]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_optimizer_built_before_materialising_updates_the_same_parameters():
    for lib in (ember, torch):
        lib.manual_seed(0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = lib.nn.LazyLinear(3)
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        model(lib.ones(2, 4)).sum().backward()
        opt.step()
        assert isinstance(model.weight, lib.nn.Parameter)
        assert not isinstance(model.weight, lib.nn.UninitializedParameter)
        assert tuple(model.weight.shape) == (3, 4)


def test_construction_is_silent_as_torch():
    for lib in (ember, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lib.nn.LazyLinear(3)


def test_lazy_instance_norm_reads_features_from_dim_1_even_unbatched():
    for lib in (ember, torch):  # torch's quirk: (C, H, W) is read as C = H, then refused
        with pytest.raises(ValueError, match="expected input's size at dim=0 to match"):
            lib.nn.LazyInstanceNorm2d()(lib.ones(3, 4, 5))


def test_lazy_modules_load_checkpoints_like_torch():
    seen = []
    for lib in (ember, torch):
        torch.manual_seed(0)
        source = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3))
        lazy = lib.nn.Sequential(lib.nn.LazyLinear(3), lib.nn.LazyBatchNorm1d())
        report = lazy.load_state_dict(source.state_dict())
        x = lib.ones(4, 2)
        source.eval()
        lazy.eval()
        same = (lazy(x) - source(x)).abs().sum().item()
        placeholders = lib.nn.LazyLinear(3).state_dict()
        into_lazy = lib.nn.LazyLinear(3)
        into_lazy.load_state_dict(placeholders)
        eager = lib.nn.Linear(2, 3)
        weight = eager.weight.clone()
        try:
            eager.load_state_dict(placeholders)
            refused = None
        except RuntimeError as error:
            refused = str(error)
        seen.append((repr(report), same, type(lazy[0]).__name__,
                     [type(v).__name__ for v in placeholders.values()],
                     into_lazy.has_uninitialized_params(), refused))
        if lib is ember:  # refused before anything changed
            assert ember.equal(eager.weight, weight)
    assert seen[0] == seen[1]
    assert seen[0][1] == 0.0
