"""CrossMapLRN2d vs torch: torch's legacy window and backward formula (not LocalResponseNorm's),
for odd and even sizes and more window than channels; repr, grad_fn name, errors."""
import numpy as np
import pytest
import torch

import ember


@pytest.mark.parametrize("size", [2, 3, 4, 5, 9])
def test_forward_and_legacy_backward_as_torch(size):
    x = np.random.default_rng(0).standard_normal((2, 7, 3, 3))
    g = np.random.default_rng(1).standard_normal((2, 7, 3, 3))
    got = []
    for lib in (ember, torch):
        t = lib.tensor(x, requires_grad=True)
        module = lib.nn.CrossMapLRN2d(size, alpha=0.5, beta=0.75, k=1.5)
        y = module(t)
        y.backward(lib.tensor(g))
        got.append((y.detach().numpy(), t.grad.numpy(), type(y.grad_fn).__name__, repr(module)))
    np.testing.assert_allclose(got[0][0], got[1][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(got[0][1], got[1][1], rtol=1e-12, atol=1e-14)
    assert got[0][2:] == got[1][2:]


def test_errors_as_torch():
    for lib in (ember, torch):
        with pytest.raises(ValueError, match="CrossMapLRN2d: Expected input to be 4D, got 3D"):
            lib.nn.CrossMapLRN2d(3)(lib.ones(2, 3, 4))
        x = lib.ones(1, 3, 2, 2, requires_grad=True)
        with pytest.raises(RuntimeError, match=r"start \(1\) \+ length \(3\) exceeds"):
            lib.nn.CrossMapLRN2d(1)(x).sum().backward()


def test_torch_import_path():
    from ember.nn.modules.normalization import CrossMapLRN2d
    assert CrossMapLRN2d is ember.nn.CrossMapLRN2d
