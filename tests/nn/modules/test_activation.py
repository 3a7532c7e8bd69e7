"""Activation modules: reprs, state_dict keys and outputs against torch."""
import numpy as np
import pytest
import torch
from oracle import check
from oracle import kinkless as _input

import ember

MODULES = [
    ("ReLU", (), {}), ("ReLU", (), {"inplace": True}), ("LeakyReLU", (0.2,), {}),
    ("LeakyReLU", (), {"inplace": True}), ("ELU", (0.5,), {}), ("CELU", (), {}),
    ("SELU", (), {}), ("GELU", (), {}), ("GELU", (), {"approximate": "tanh"}), ("SiLU", (), {}),
    ("Mish", (), {}), ("Sigmoid", (), {}), ("Tanh", (), {}), ("Softplus", (2.0, 10.0), {}),
    ("Softmax", (1,), {}), ("LogSoftmax", (-1,), {}), ("Softmin", (1,), {}),
    ("Hardtanh", (-2.0, 2.0), {}), ("ReLU6", (), {}), ("Threshold", (0.1, 20.0), {}),
    ("LogSigmoid", (), {}), ("Hardsigmoid", (), {}), ("Hardswish", (), {}),
    ("Hardshrink", (), {}), ("Softshrink", (0.2,), {}), ("Softsign", (), {}),
    ("Tanhshrink", (), {}), ("GLU", (), {}), ("PReLU", (), {}),
]


@pytest.mark.parametrize("name,args,kwargs", MODULES, ids=[m[0] for m in MODULES])
def test_modules_match_torch(name, args, kwargs):
    e_mod = getattr(ember.nn, name)(*args, **kwargs)
    t_mod = getattr(torch.nn, name)(*args, **kwargs)
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    x = _input((3, 4), seed=1).astype(np.float32)
    e_out = e_mod(ember.tensor(x))
    t_out = t_mod(torch.tensor(x))
    np.testing.assert_allclose(e_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-6,
                               atol=1e-7)


def test_rrelu_softmax2d_and_distance_modules_match_torch():
    for args in ((), (0.1, 0.3, True)):
        assert repr(ember.nn.RReLU(*args)) == repr(torch.nn.RReLU(*args))
    check(lambda lib, x: lib.nn.functional.rrelu(x, 0.1, 0.3, training=False), _input((3, 4)),
          rtol=1e-10, atol=1e-12, second=False)
    x = _input((3, 4), seed=5)
    y = ember.nn.functional.rrelu(ember.tensor(x), 0.1, 0.3, training=True).numpy()
    neg = x < 0
    assert np.all(y[~neg] == x[~neg])
    ratio = y[neg] / x[neg]
    assert np.all((ratio >= 0.1 - 1e-12) & (ratio <= 0.3 + 1e-12))
    check(lambda lib, v: (lib.nn.Softmax2d())(v), _input((2, 3, 2, 2)), rtol=1e-10, atol=1e-12)
    for name in ("CosineSimilarity", "PairwiseDistance"):
        e_mod, t_mod = getattr(ember.nn, name)(), getattr(torch.nn, name)()
        assert repr(e_mod) == repr(t_mod)
        a, b = _input((4, 5), seed=6), _input((4, 5), seed=7)
        np.testing.assert_allclose(e_mod(ember.tensor(a), ember.tensor(b)).numpy(),
                                   t_mod(torch.tensor(a), torch.tensor(b)).numpy(), rtol=1e-10)
