"""nn.utils.spectral_norm / remove_spectral_norm against torch: the seeded u, v draws, power
iteration in training only, values, gradients, state_dict keys, errors."""
import numpy as np
import pytest
import torch

import ember
from ember.nn import utils


def _pair(make, **kwargs):
    """The same seed on both sides: module init and the u, v draws follow torch's stream."""
    mods = []
    for lib, apply in ((ember, utils.spectral_norm), (torch, torch.nn.utils.spectral_norm)):
        lib.manual_seed(0)
        mods.append(apply(make(lib), **kwargs))
    return mods


def _close(e, t, tol=1e-5):
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


CASES = [
    (lambda lib: lib.nn.Linear(5, 3), {}, (4, 5)),
    (lambda lib: lib.nn.Conv2d(3, 4, 3), {"n_power_iterations": 3}, (2, 3, 5, 5)),
    (lambda lib: lib.nn.ConvTranspose2d(3, 2, 3), {}, (1, 3, 4, 4)),
    (lambda lib: lib.nn.Conv1d(2, 6, 2), {"dim": 2, "eps": 1e-3}, (2, 2, 5)),
]


@pytest.mark.parametrize("make, kwargs, shape", CASES)
def test_training_and_eval_match_torch(make, kwargs, shape):
    e_mod, t_mod = _pair(make, **kwargs)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    for key in ("weight_u", "weight_v"):
        _close(getattr(e_mod, key), getattr(t_mod, key), 1e-6)
    x = np.random.default_rng(2).standard_normal(shape).astype(np.float32)
    for _ in range(3):
        ye, yt = e_mod(ember.tensor(x)), t_mod(torch.tensor(x))
        _close(ye, yt)
        (ye ** 2).sum().backward()
        (yt ** 2).sum().backward()
        _close(e_mod.weight_orig.grad, t_mod.weight_orig.grad, 1e-4)
        for key in ("weight_u", "weight_v", "weight"):
            _close(getattr(e_mod, key), getattr(t_mod, key))
    e_mod.eval()
    t_mod.eval()
    u_before = e_mod.weight_u.numpy().copy()
    _close(e_mod(ember.tensor(x)), t_mod(torch.tensor(x)))
    np.testing.assert_array_equal(e_mod.weight_u.numpy(), u_before)  # no iteration in eval


def test_remove_and_load_state_dict_from_torch():
    e_mod, t_mod = _pair(lambda lib: lib.nn.Linear(4, 3))
    t_mod(torch.ones(1, 4))
    e_mod.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    _close(e_mod.weight_u, t_mod.weight_u, 0)
    assert utils.remove_spectral_norm(e_mod) is e_mod
    torch.nn.utils.remove_spectral_norm(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict()) == ["bias", "weight"]
    assert isinstance(e_mod.weight, ember.nn.Parameter) and not e_mod._forward_pre_hooks
    _close(e_mod.weight, t_mod.weight)


def test_errors_as_torch():
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but got "
                                         "n_power_iterations=0"):
        utils.spectral_norm(ember.nn.Linear(2, 2), n_power_iterations=0)
    e_mod = utils.spectral_norm(ember.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks on the "
                                           "same parameter weight"):
        utils.spectral_norm(e_mod)
    with pytest.raises(ValueError, match="`SpectralNorm` cannot be applied as parameter "
                                         "`bias` is None"):
        utils.spectral_norm(ember.nn.Linear(2, 2, bias=False), name="bias")
    with pytest.raises(ValueError, match="spectral_norm of 'bias' not found in Linear"):
        utils.remove_spectral_norm(e_mod, "bias")


@pytest.mark.parametrize("dim", [2, -1])
def test_dim_outside_0_to_ndim_fails_as_torch(dim):
    e_mod, t_mod = ember.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    with pytest.raises(RuntimeError, match="input.dim\\(\\) = 2 is not equal to len\\(dims\\) = 3"):
        torch.nn.utils.spectral_norm(t_mod, dim=dim)
    with pytest.raises(RuntimeError, match="input.dim\\(\\) = 2 is not equal to len\\(dims\\) = 3"):
        utils.spectral_norm(e_mod, dim=dim)
    assert list(e_mod.state_dict()) == ["weight", "bias"]
