"""Flatten and Unflatten (with Identity, from linear.py, in the same table): repr, values and
gradients against torch; Unflatten's argument error."""
import numpy as np
import pytest
import torch
from oracle import check

import ember

rng = np.random.default_rng(0)


def test_identity_flatten_unflatten_match_torch():
    x = rng.standard_normal((2, 3, 4, 5))
    for name, args in [("Identity", (7, "ignored")), ("Flatten", ()), ("Flatten", (0, 2)),
                       ("Unflatten", (1, (3, 1)))]:
        e_mod, t_mod = getattr(ember.nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(e_mod) == repr(t_mod)
        check(lambda lib, v: (e_mod if lib is ember else t_mod)(v), x, rtol=1e-12, second=False)
    with pytest.raises(TypeError, match="unflattened_size must be tuple of ints"):
        ember.nn.Unflatten(1, 3)
