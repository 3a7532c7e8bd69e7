"""nn.utils.parametrizations.weight_norm against torch: parameter names, state_dict keys,
outputs, gradients of g and v, removal; and the hook-based weight_norm on a 1-D bias."""
import numpy as np
import pytest
import torch
from oracle import same_error

import ember


def _run(lib, make, kwargs):
    lib.manual_seed(0)
    m = lib.nn.utils.parametrizations.weight_norm(make(lib), **kwargs)
    names, keys = sorted(n for n, _ in m.named_parameters()), sorted(m.state_dict())
    x = lib.ones(1, 2, 4, 4) if isinstance(m, lib.nn.Conv2d) else lib.ones(1, m.in_features)
    y = m(x)
    y.sum().backward()
    grads = [p.grad.numpy().copy() for _, p in sorted(m.named_parameters())]
    lib.nn.utils.parametrize.remove_parametrizations(m, kwargs.get("name", "weight"))
    return names, keys, y.detach().numpy(), grads, sorted(n for n, _ in m.named_parameters())


@pytest.mark.parametrize("make,kwargs", [
    (lambda L: L.nn.Linear(2, 3), {}), (lambda L: L.nn.Conv2d(2, 3, 3), {"dim": None}),
    (lambda L: L.nn.Linear(4, 3), {"dim": 1}), (lambda L: L.nn.Linear(2, 3), {"name": "bias"})])
def test_parametrized_weight_norm_as_torch(make, kwargs):
    e, t = _run(ember, make, kwargs), _run(torch, make, kwargs)
    assert e[0] == t[0] and e[1] == t[1] and e[4] == t[4]
    np.testing.assert_allclose(e[2], t[2], rtol=1e-5, atol=1e-6)
    for a, b in zip(e[3], t[3]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def test_hook_weight_norm_of_a_1d_bias_as_torch():
    # _norm_except_dim of a 1-D tensor called a missing api.abs (AttributeError)
    outs = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        with pytest.warns(FutureWarning):
            m = lib.nn.utils.weight_norm(lib.nn.Linear(2, 3), name="bias")
        outs.append(sorted(n for n, _ in m.named_parameters()))
    assert outs[0] == outs[1]


def _spectral(lib, make, n_power_iterations=1):
    lib.manual_seed(0)
    m = lib.nn.utils.parametrizations.spectral_norm(make(lib), n_power_iterations=n_power_iterations)
    lib.manual_seed(1)
    x = lib.randn(2, 5) if isinstance(m, lib.nn.Linear) else lib.randn(1, 2, 5, 5)
    y = m(x)
    y.pow(2).sum().backward()
    p = m.parametrizations.weight
    m.eval()
    return {"params": sorted(n for n, _ in m.named_parameters()),
            "buffers": sorted(n for n, _ in m.named_buffers()),
            "u": p[0]._u.detach().numpy().copy(), "v": p[0]._v.detach().numpy().copy(),
            "y": y.detach().numpy(), "grad": p.original.grad.numpy(),
            "eval": m(x).detach().numpy()}


@pytest.mark.parametrize("make", [lambda L: L.nn.Linear(5, 3), lambda L: L.nn.Conv2d(2, 4, 3),
                                  lambda L: L.nn.ConvTranspose2d(2, 4, 3)], ids=["linear", "conv",
                                                                                  "convT"])
@pytest.mark.parametrize("iterations", [1, 3])
def test_spectral_norm_as_torch(make, iterations):
    """u, v drawn as torch (its stream), 15 power steps at construction and one (or more) per
    training forward, w / sigma's values and gradients; eval mode stops the iteration."""
    e, t = _spectral(ember, make, iterations), _spectral(torch, make, iterations)
    assert e["params"] == t["params"] and e["buffers"] == t["buffers"]
    for key in ("u", "v", "y", "grad", "eval"):
        np.testing.assert_allclose(e[key], t[key], rtol=2e-5, atol=2e-5, err_msg=key)


@pytest.mark.parametrize("call", [
    lambda L: L.nn.utils.parametrizations.spectral_norm(L.nn.Linear(2, 2), n_power_iterations=0),
    lambda L: L.nn.utils.parametrizations.spectral_norm(L.nn.Linear(2, 2), dim=3),
    lambda L: L.nn.utils.parametrizations.spectral_norm(L.nn.Linear(2, 2), name="nope")])
def test_spectral_norm_errors_as_torch(call):
    same_error(call)
