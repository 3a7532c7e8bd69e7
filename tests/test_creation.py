"""ember/_creation.py: factories take the shape as sizes or as torch's ``size=`` keyword."""
import pytest
import torch

import ember


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
@pytest.mark.parametrize("size", [(2, 3), [4], ()])
def test_size_keyword(name, size):
    # pytorch/examples gat: torch.empty(size=(in_features, out_features))
    e, t = getattr(ember, name)(size=size), getattr(torch, name)(size=size)
    assert e.shape == tuple(t.shape) and e.dtype is ember.float32
