"""torch.nn.grad (ember/nn/grad.py): convolution input and weight gradients against torch's,
for 1-3 spatial dims with stride, padding, dilation and groups; differentiable again."""
import numpy as np
import pytest
import torch

import ember


@pytest.mark.parametrize("ndim,shape,weight,options", [
    (1, (2, 4, 9), (6, 2, 3), (2, 1, 1, 2)),
    (2, (2, 4, 7, 6), (6, 2, 3, 2), (2, 1, 1, 2)),
    (2, (1, 3, 6, 6), (2, 3, 3, 3), (1, 2, 2, 1)),
    (3, (1, 2, 5, 4, 6), (3, 2, 2, 2, 3), (1, 0, 1, 1)),
])
def test_input_and_weight_gradients_match_torch(ndim, shape, weight, options):
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(shape), rng.standard_normal(weight)
    conv = f"conv{ndim}d"
    out_shape = tuple(getattr(torch.nn.functional, conv)(torch.tensor(x), torch.tensor(w), None,
                                                         *options).shape)
    g = rng.standard_normal(out_shape)
    got = []
    for lib in (ember, torch):
        grads = getattr(lib.nn.grad, f"{conv}_input")(shape, lib.tensor(w), lib.tensor(g),
                                                        *options)
        gradw = getattr(lib.nn.grad, f"{conv}_weight")(lib.tensor(x), weight, lib.tensor(g),
                                                         *options)
        got.append((grads.numpy(), gradw.numpy()))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-10, atol=1e-12)
    assert ember.nn.functional.grad is ember.nn.grad


def test_gradient_is_differentiable_in_grad_output():
    rng = np.random.default_rng(1)
    w = rng.standard_normal((2, 3, 2, 2))
    g = rng.standard_normal((1, 2, 4, 4))
    got = []
    for lib in (ember, torch):
        go = lib.tensor(g, requires_grad=True)
        lib.nn.grad.conv2d_input((1, 3, 5, 5), lib.tensor(w), go).pow(2).sum().backward()
        got.append(go.grad.numpy())
    np.testing.assert_allclose(got[0], got[1], rtol=1e-10)
