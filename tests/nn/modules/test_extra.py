"""RMSNorm, LocalResponseNorm, AlphaDropout, FeatureAlphaDropout, ChannelShuffle and the
Upsampling*2d layers against torch's: parameters, repr, values and gradients."""
import numpy as np
import pytest
import torch

import ember

R = np.random.default_rng(2)


def _run(make, x, train=False, seed=0):
    out = {}
    for lib in (ember, torch):
        lib.manual_seed(seed)
        layer = make(lib.nn)
        layer.train(train)
        t = lib.tensor(x, requires_grad=True)
        y = layer(t)
        (y * lib.tensor(np.cos(np.arange(y.numel())).reshape(tuple(y.shape)).astype(x.dtype))
         ).sum().backward()
        grads = [p.grad.numpy() for p in layer.parameters()]
        out[lib.__name__] = (repr(layer), y.detach().numpy(), t.grad.numpy(), grads)
    e, t = out["ember"], out["torch"]
    assert e[0] == t[0]
    for a, b in zip((e[1], e[2], *e[3]), (t[1], t[2], *t[3])):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("make", [
    lambda nn: nn.RMSNorm(6),
    lambda nn: nn.RMSNorm([3, 6], eps=1e-4),
    lambda nn: nn.RMSNorm(6, elementwise_affine=False),
    lambda nn: nn.LocalResponseNorm(3),
    lambda nn: nn.LocalResponseNorm(2, alpha=0.1, beta=0.5, k=2.0),
    lambda nn: nn.ChannelShuffle(2),
])
def test_layers(make):
    _run(make, R.standard_normal((2, 4, 3, 6)).astype(np.float32))


@pytest.mark.parametrize("make", [lambda nn: nn.AlphaDropout(0.3),
                                  lambda nn: nn.FeatureAlphaDropout(0.4)])
@pytest.mark.parametrize("train", [True, False])
def test_alpha_dropout_layers(make, train):
    _run(make, R.standard_normal((3, 4, 5)).astype(np.float32), train=train, seed=4)


@pytest.mark.parametrize("make", [lambda nn: nn.UpsamplingNearest2d(scale_factor=2),
                                  lambda nn: nn.UpsamplingBilinear2d(size=(5, 4))])
def test_upsampling_layers(make):
    _run(make, R.standard_normal((1, 2, 3, 2)).astype(np.float32))


def test_rms_norm_state_dict_keys():
    assert list(ember.nn.RMSNorm(4).state_dict()) == list(torch.nn.RMSNorm(4).state_dict())
    assert list(ember.nn.RMSNorm(4, elementwise_affine=False).state_dict()) == []
