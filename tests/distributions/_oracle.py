"""What the distribution tests share: build with ember and with torch from the same seed, compare
the results, and compare the exceptions raised."""
import numpy as np
import pytest
import torch

import ember


def run(lib, build):
    lib.manual_seed(0)
    return build(lib, lib.distributions)


def same(e, t):
    if isinstance(t, torch.Tensor):
        assert e.dtype.is_floating_point == t.dtype.is_floating_point and e.shape == t.shape
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=1e-6)  # float32 sums may differ in order
    elif isinstance(t, (tuple, list)):
        assert len(e) == len(t)
        for a, b in zip(e, t):
            same(a, b)
    else:
        assert e == t


def same_as_torch(build):
    same(run(ember, build), run(torch, build))


def raises_as_torch(bad):
    caught = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as info:
            bad(lib, lib.distributions)
        caught.append((type(info.value), str(info.value).replace("ember.", "torch.")))
    assert caught[0] == caught[1]
