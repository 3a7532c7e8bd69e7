"""nn.utils.weight_norm / remove_weight_norm against torch: values, gradients, keys, errors."""
import numpy as np
import pytest
import torch

import ember
from ember.nn import utils

pytestmark = pytest.mark.filterwarnings("ignore::FutureWarning")


def _pair(make, seed=0):
    torch.manual_seed(seed)
    t_mod = make(torch)
    e_mod = make(ember)
    e_mod.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in
                           t_mod.state_dict().items()})
    return e_mod, t_mod


def _close(e, t, tol=1e-6):
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dim", [0, 1, None, -1, -2, 2])
def test_conv_forward_and_gradients_match_torch(dim):
    e_mod, t_mod = _pair(lambda lib: lib.nn.Conv1d(3, 4, 3))
    utils.weight_norm(e_mod, dim=dim)
    torch.nn.utils.weight_norm(t_mod, dim=dim)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    assert tuple(e_mod.weight_g.shape) == tuple(t_mod.weight_g.shape)
    x = np.random.default_rng(1).standard_normal((2, 3, 6)).astype(np.float32)
    for _ in range(2):  # the hook recomputes the weight after g and v change
        ye, yt = e_mod(ember.tensor(x)), t_mod(torch.tensor(x))
        _close(ye, yt, 1e-5)
        (ye ** 2).sum().backward()
        (yt ** 2).sum().backward()
        for name in ("weight_g", "weight_v", "bias"):
            _close(getattr(e_mod, name).grad, getattr(t_mod, name).grad, 1e-4)
        with ember.no_grad():
            e_mod.weight_g.mul_(1.5)
        with torch.no_grad():
            t_mod.weight_g.mul_(1.5)


def test_remove_folds_weight_back():
    e_mod, t_mod = _pair(lambda lib: lib.nn.Linear(5, 3))
    utils.weight_norm(e_mod)
    torch.nn.utils.weight_norm(t_mod)
    with ember.no_grad():
        e_mod.weight_v.add_(0.25)
    with torch.no_grad():
        t_mod.weight_v.add_(0.25)
    assert utils.remove_weight_norm(e_mod) is e_mod
    torch.nn.utils.remove_weight_norm(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    assert isinstance(e_mod.weight, ember.nn.Parameter)
    _close(e_mod.weight, t_mod.weight)
    assert not e_mod._forward_pre_hooks


def test_state_dict_round_trip_and_load_from_torch():
    e_mod, t_mod = _pair(lambda lib: lib.nn.Linear(4, 2))
    utils.weight_norm(e_mod, name="weight")
    torch.nn.utils.weight_norm(t_mod)
    with torch.no_grad():
        t_mod.weight_g.mul_(2.0)
    e_mod.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    x = np.ones((1, 4), np.float32)
    _close(e_mod(ember.tensor(x)), t_mod(torch.tensor(x)))


def test_warning_and_errors_as_torch():
    with pytest.warns(FutureWarning, match="torch.nn.utils.parametrizations.weight_norm"):
        e_mod = utils.weight_norm(ember.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks on the same "
                                           "parameter weight"):
        utils.weight_norm(e_mod)
    with pytest.raises(ValueError, match="weight_norm of 'bias' not found in Linear"):
        utils.remove_weight_norm(e_mod, "bias")
    utils.remove_weight_norm(e_mod)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        utils.remove_weight_norm(e_mod)


@pytest.mark.parametrize("dim", [2, -3])
def test_dim_out_of_range_leaves_module_intact(dim):
    e_mod, t_mod = _pair(lambda lib: lib.nn.Linear(3, 2))
    with pytest.raises(IndexError, match=r"Dimension out of range \(expected to be in range of "
                                         rf"\[-2, 1\], but got {dim}\)"):
        utils.weight_norm(e_mod, dim=dim)
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.nn.utils.weight_norm(t_mod, dim=dim)
    assert list(e_mod.state_dict()) == ["weight", "bias"]  # torch loses its weight here
