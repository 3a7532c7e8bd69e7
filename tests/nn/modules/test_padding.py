"""Padding modules (Zero/Constant/Reflection/Replication/Circular, 1d-3d): repr, values and
input gradients against torch."""
import numpy as np
import pytest
import torch

import ember

rng = np.random.default_rng(0)


@pytest.mark.parametrize("name,args", [
    ("ZeroPad1d", (2,)), ("ZeroPad2d", ((1, 2, 3, 0),)), ("ConstantPad1d", (2, 3.5)),
    ("ConstantPad2d", (1, -1.0)), ("ConstantPad3d", (1, 2.0)), ("ReflectionPad1d", (2,)),
    ("ReflectionPad2d", ((1, 1, 2, 0),)), ("ReplicationPad1d", (1,)),
    ("ReplicationPad2d", (2,)), ("ReplicationPad3d", (1,)), ("CircularPad1d", (1,)),
    ("CircularPad2d", (1,)), ("ZeroPad3d", (1,)), ("ReflectionPad3d", (1,))])
def test_padding_modules_match_torch(name, args):
    e_mod, t_mod = getattr(ember.nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(e_mod) == repr(t_mod)
    dims = int(name[-2])
    x = rng.standard_normal((2, 3, 4, 5, 6)[:dims + 2])
    xe, xt = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ye, yt = e_mod(xe), t_mod(xt)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-12)
    seed = rng.standard_normal(tuple(yt.shape))
    ye.backward(ember.tensor(seed))
    yt.backward(torch.tensor(seed))
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-12)
