"""nn.utils: clip_grad_norm_/clip_grad_value_/get_total_norm/clip_grads_with_norm_ against torch on
the same gradients."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember
from ember.nn import utils

rng = np.random.default_rng(0)


def _pairs(scale=1.0, dtype=np.float32):
    """Parameters with equal gradients in ember and torch."""
    shapes = [(3, 4), (4,), (2, 2, 2)]
    e_params, t_params = [], []
    for s in shapes:
        v, g = rng.standard_normal(s).astype(dtype), (rng.standard_normal(s) * scale).astype(dtype)
        pe, pt = ember.nn.Parameter(ember.tensor(v)), torch.nn.Parameter(torch.tensor(v))
        pe.grad, pt.grad = ember.tensor(g), torch.tensor(g)
        e_params.append(pe)
        t_params.append(pt)
    return e_params, t_params


@pytest.mark.parametrize("max_norm", [0.5, 100.0])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf, 3])
def test_clip_grad_norm_matches_torch(max_norm, norm_type):
    e_params, t_params = _pairs(scale=2.0)
    total_e = utils.clip_grad_norm_(e_params, max_norm, norm_type)
    total_t = torch.nn.utils.clip_grad_norm_(t_params, max_norm, norm_type)
    np.testing.assert_allclose(total_e.numpy(), total_t.numpy(), rtol=1e-5)
    assert total_e.dtype == ember.float32
    for pe, pt in zip(e_params, t_params):
        np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), rtol=1e-5, atol=1e-7)


def test_clip_grad_norm_single_tensor_no_grads_and_nonfinite():
    e_params, t_params = _pairs()
    total = utils.clip_grad_norm_(e_params[0], 0.1)
    expected = torch.nn.utils.clip_grad_norm_(t_params[0], 0.1)
    np.testing.assert_allclose(total.numpy(), expected.numpy(), rtol=1e-5)
    assert utils.clip_grad_norm_([ember.nn.Parameter(ember.ones(2))], 1.0).item() == 0.0
    p = ember.nn.Parameter(ember.ones(2))
    p.grad = ember.tensor([float("inf"), 1.0])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from "
                       "`parameters` is non-finite"):
        utils.clip_grad_norm_([p], 1.0, error_if_nonfinite=True)


@pytest.mark.parametrize("bad", [float("inf"), float("nan"), 3e38])
@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf])
def test_nonfinite_gradients_clip_as_torch_without_numpy_warnings(bad, norm_type):
    """An inf/NaN (or overflowing) gradient: torch returns the non-finite norm and scales every
    gradient by it (to 0 or NaN) without a word; NumPy's RuntimeWarnings must not leak."""
    e_params, t_params = _pairs()
    for params in (e_params, t_params):
        params[1].grad[0] = bad
        params[2].grad[0, 0, 0] = bad
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        total_e = utils.clip_grad_norm_(e_params, 1.0, norm_type)
    total_t = torch.nn.utils.clip_grad_norm_(t_params, 1.0, norm_type)
    np.testing.assert_array_equal(total_e.numpy(), total_t.numpy())
    for pe, pt in zip(e_params, t_params):
        np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), rtol=1e-6)


def test_clip_grad_value_matches_torch():
    e_params, t_params = _pairs(scale=3.0)
    utils.clip_grad_value_(e_params, 1.5)
    torch.nn.utils.clip_grad_value_(t_params, 1.5)
    for pe, pt in zip(e_params, t_params):
        np.testing.assert_array_equal(pe.grad.numpy(), pt.grad.numpy())


def test_get_total_norm_and_clip_grads_with_norm_match_torch():
    e_params, t_params = _pairs(scale=2.0)
    for norm_type in (2.0, 1.0, math.inf):
        e = utils.get_total_norm([p.grad for p in e_params], norm_type)
        t = torch.nn.utils.get_total_norm([p.grad for p in t_params], norm_type)
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-5)
    total_e = utils.get_total_norm([p.grad for p in e_params])
    total_t = torch.nn.utils.get_total_norm([p.grad for p in t_params])
    utils.clip_grads_with_norm_(e_params, 0.5, total_e)
    torch.nn.utils.clip_grads_with_norm_(t_params, 0.5, total_t)
    for pe, pt in zip(e_params, t_params):
        np.testing.assert_allclose(pe.grad.numpy(), pt.grad.numpy(), rtol=1e-5, atol=1e-7)
