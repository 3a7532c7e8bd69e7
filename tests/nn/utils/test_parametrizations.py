"""nn.utils.parametrizations against torch: weight_norm (parameter names, state_dict keys,
outputs, gradients of g and v, removal; the hook-based weight_norm on a 1-D bias),
spectral_norm, and orthogonal (each map, with and without trivialization, initial weights,
training steps, batches, complex weights, assignment, errors)."""
import numpy as np
import pytest
import torch
from oracle import close, same_error

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


# ---------------------------------------------------------------- orthogonal

def _orthogonal_run(lib, shape, orthogonal_map, trivialization, steps=5):
    """Registered under manual_seed(0) (the Linear's init and the completion's randn), then
    ``steps`` SGD steps of a least-squares fit: the weights, buffers and parameter names."""
    lib.manual_seed(0)
    m = lib.nn.Linear(*shape)
    orth = lib.nn.utils.parametrizations.orthogonal
    orth(m, orthogonal_map=orthogonal_map, use_trivialization=trivialization)
    first = m.weight.detach().numpy().copy()
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    lib.manual_seed(1)
    x, y = lib.randn(8, shape[0]), lib.randn(8, shape[1])
    for _ in range(steps):
        opt.zero_grad()
        ((m(x) - y) ** 2).mean().backward()
        opt.step()
    return {"first": first, "last": m.weight.detach().numpy().copy(),
            "state": {k: v.detach().numpy().copy() for k, v in m.state_dict().items()},
            "names": sorted(n for n, _ in m.named_parameters())}


@pytest.mark.parametrize("trivialization", [True, False])
@pytest.mark.parametrize("orthogonal_map", [None, "matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("shape", [(3, 3), (4, 6), (6, 4)])
def test_orthogonal_as_torch(shape, orthogonal_map, trivialization):
    """The initial weight (Q of the QR with diag(R) >= 0, completed by torch's randn columns
    when not square; transposed when wider than tall), the buffer ``base``, and the weights
    after 5 SGD steps through each map."""
    e = _orthogonal_run(ember, shape, orthogonal_map, trivialization)
    t = _orthogonal_run(torch, shape, orthogonal_map, trivialization)
    assert e["names"] == t["names"] and list(e["state"]) == list(t["state"])
    for key in ("first", "last"):
        np.testing.assert_allclose(e[key], t[key], rtol=1e-5, atol=1e-5, err_msg=key)
    for key in t["state"]:
        np.testing.assert_allclose(e["state"][key], t["state"][key], rtol=1e-5, atol=1e-5,
                                   err_msg=key)


def _orthogonal_tensor(lib, data, orthogonal_map, assign):
    """A batch of (complex) matrices as a parametrized module's parameter; then ``assign``
    (a weight to set) and a gradient through it."""
    m = lib.nn.Module()
    m.weight = lib.nn.Parameter(lib.tensor(data))
    lib.nn.utils.parametrizations.orthogonal(m, orthogonal_map=orthogonal_map)
    first = m.weight.detach().clone()
    if assign is not None:
        m.weight = lib.tensor(assign)
    weight = m.weight
    loss = (weight * lib.tensor(np.arange(weight.numel()).reshape(weight.shape) % 3)).sum()
    loss.real.backward() if weight.is_complex() else loss.backward()
    original = m.parametrizations.weight.original
    return first, m.weight.detach(), m.parametrizations.weight[0].base, original.grad


R = np.random.default_rng(0)
_C = R.standard_normal((2, 3, 3)) + 1j * R.standard_normal((2, 3, 3))
_Q = np.linalg.qr(R.standard_normal((2, 5, 3)))[0].astype(np.float32)


@pytest.mark.parametrize("data,orthogonal_map,assign", [
    (R.standard_normal((2, 3, 3)).astype(np.float32), None, None),
    (R.standard_normal((2, 5, 3)), "householder", None),
    (R.standard_normal((2, 3, 5)), "cayley", None),
    (_C.astype(np.complex64), None, None), (_C, "cayley", None), (_C[:, :2], None, None),
    (R.standard_normal((2, 5, 3)).astype(np.float32), "householder", _Q),
    (R.standard_normal((2, 5, 3)).astype(np.float32), "matrix_exp", 2 * _Q),
    (R.standard_normal((2, 3, 5)).astype(np.float32), None, np.swapaxes(_Q, -1, -2).copy())],
    ids=["batch", "tall", "wide", "complex64", "complex_cayley", "complex_wide",
         "assign_orthogonal", "assign_any", "assign_wide"])
def test_orthogonal_batches_complex_and_assignment_as_torch(data, orthogonal_map, assign):
    """Batches, complex weights (unitary), and module.weight = Q: base becomes Q (or its
    orthogonalization; a non-square Q completed by torch's randn draws)."""
    got = []
    for lib in (ember, torch):
        lib.manual_seed(0)
        got.append(_orthogonal_tensor(lib, data, orthogonal_map, assign))
    for ours, theirs, what in zip(*got, ("first", "weight", "base", "grad")):
        close(ours, theirs, 1e-5, 1e-5, what)


def _complex_module(lib):
    module = lib.nn.Module()
    module.weight = lib.nn.Parameter(lib.ones(3, 3, dtype=lib.complex64))
    return module


def _orth(lib, module=None, **kwargs):
    module = module or lib.nn.Linear(3, 3)
    return lib.nn.utils.parametrizations.orthogonal(module, **kwargs)


@pytest.mark.parametrize("call", [
    lambda L: _orth(L, name="nope"), lambda L: _orth(L, name="bias"),
    lambda L: _orth(L, orthogonal_map="svd"),
    lambda L: _orth(L, _complex_module(L), orthogonal_map="householder"),
    lambda L: _orth(L, _complex_module(L), orthogonal_map="householder", name="bias"),
    lambda L: setattr(_orth(L), "weight", L.eye(4)),
    lambda L: setattr(_orth(L, use_trivialization=False), "weight", L.eye(3)),
    lambda L: _orth(L, L.nn.Linear(3, 3), orthogonal_map=3),
    lambda L: L.geqrf(_orth(L).weight).a.sum().backward()], ids=range(9))
def test_orthogonal_errors_as_torch(call):
    same_error(call)
