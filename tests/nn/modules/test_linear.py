"""Linear, Bilinear modules: values and gradients (inputs and parameters) equal torch's with copied
weights; default initialisation bounds; errors naming the shapes."""
import math

import numpy as np
import pytest
import torch

import ember

rng = np.random.default_rng(0)


def _copy_module(t_mod, e_mod):
    e_mod.load_state_dict({k: ember.tensor(v.detach().numpy()) for k, v in
                           t_mod.state_dict().items()})


@pytest.mark.parametrize("bias", [True, False])
def test_linear_module_matches_torch(bias):
    t_mod = torch.nn.Linear(5, 4, bias=bias).double()
    e_mod = ember.nn.Linear(5, 4, bias=bias).double()
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    _copy_module(t_mod, e_mod)
    x = rng.standard_normal((3, 5))
    xe, xt = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ye, yt = e_mod(xe), t_mod(xt)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-12)
    seed = rng.standard_normal((3, 4))
    ye.backward(ember.tensor(seed))
    yt.backward(torch.tensor(seed))
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-12)
    for (name, pe), (_, pt) in zip(e_mod.named_parameters(), t_mod.named_parameters()):
        np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), rtol=1e-12, err_msg=name)


def test_linear_weight_transpose_is_not_copied_and_grad_fn_names():
    lin = ember.nn.Linear(3, 2)
    out = lin(ember.randn(4, 3, requires_grad=True))
    assert out.grad_fn.name() == "AddmmBackward0"
    assert ember.nn.Linear(3, 2, bias=False)(ember.randn(4, 3)).grad_fn.name() == "MmBackward0"
    assert lin(ember.randn(2, 4, 3)).grad_fn.name() == "ViewBackward0"


@pytest.mark.parametrize("fan_in,fan_out", [(3, 2), (100, 50), (784, 512)])
def test_linear_default_init_bounds_and_moments(fan_in, fan_out):
    ember.manual_seed(0)
    lin = ember.nn.Linear(fan_in, fan_out)
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform(a=sqrt(5)) reduces to this, as in torch
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    if w.size > 1000:  # U(-b, b): mean 0, variance b^2 / 3
        assert abs(w.mean()) < 0.05 * bound
        np.testing.assert_allclose(w.var(), bound ** 2 / 3, rtol=0.05)
    t_lin = torch.nn.Linear(fan_in, fan_out)
    assert np.abs(t_lin.weight.detach().numpy()).max() <= bound
    assert lin.weight.dtype == ember.float32 and lin.weight.requires_grad


def test_linear_seed_determinism_and_dtype():
    ember.manual_seed(3)
    a = ember.nn.Linear(4, 4)
    ember.manual_seed(3)
    b = ember.nn.Linear(4, 4)
    assert ember.equal(a.weight, b.weight) and ember.equal(a.bias, b.bias)
    assert ember.nn.Linear(2, 2, dtype=ember.float64).weight.dtype == ember.float64


def test_linear_shape_errors_match_torch():
    for shape, msg in [((4, 5), "(4x5 and 3x2)"), ((2, 4, 5), "(8x5 and 3x2)"),
                       ((5,), "(1x5 and 3x2)")]:
        for lib in (ember, torch):
            lin = lib.nn.Linear(3, 2)
            with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied "
                               + msg.replace("(", r"\(").replace(")", r"\)")):
                lin(lib.zeros(*shape))
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype"):
        ember.nn.Linear(3, 2)(ember.zeros(4, 3, dtype=ember.float64))


def test_bilinear_module():
    t_mod, e_mod = torch.nn.Bilinear(3, 4, 2), ember.nn.Bilinear(3, 4, 2)
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    bound = 1 / math.sqrt(3)
    assert np.abs(e_mod.weight.detach().numpy()).max() <= bound
    _copy_module(t_mod, e_mod)
    x1, x2 = rng.standard_normal((5, 3)).astype(np.float32), \
        rng.standard_normal((5, 4)).astype(np.float32)
    np.testing.assert_allclose(e_mod(ember.tensor(x1), ember.tensor(x2)).detach().numpy(),
                               t_mod(torch.tensor(x1), torch.tensor(x2)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)
