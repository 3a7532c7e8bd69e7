"""Padding primitives (ember/ops/pad_ops.py): constant padding (also negative, i.e. cropping) and
the index-based modes (reflect, replicate, circular) against torch, with gradients, second
derivatives and grad_fn names; bad pads raise torch's errors."""
import numpy as np
import pytest
import torch
from oracle import check

import ember

X3 = np.random.default_rng(0).standard_normal((2, 3, 5))
X4 = np.random.default_rng(1).standard_normal((1, 2, 4, 5))


def _pad(*args, **kwargs):
    return lambda L, x: L.nn.functional.pad(x, *args, **kwargs)


CASES = {
    "constant": (_pad((1, 2)), X3),
    "constant_value": (_pad((1, 0, 2, 1), value=-1.5), X4),
    "constant_crop": (_pad((-1, 2, 0, -1)), X4),
    "reflect1d": (_pad((2, 1), mode="reflect"), X3),
    "reflect2d": (_pad((1, 2, 3, 1), mode="reflect"), X4),
    "replicate1d": (_pad((3, 1), mode="replicate"), X3),
    "replicate2d": (_pad((1, 1, 2, 0), mode="replicate"), X4),
}
CIRCULAR = {
    "circular1d": (_pad((2, 2), mode="circular"), X3),
    "circular2d": (_pad((1, 2, 1, 0), mode="circular"), X4),
    "circular3d": (_pad((1, 1, 0, 2, 1, 0), mode="circular"),
                   np.random.default_rng(2).standard_normal((1, 2, 3, 4, 3))),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, x = CASES[name]
    check(fn, x)


@pytest.mark.parametrize("name", sorted(CIRCULAR))
def test_circular_matches_torch(name):
    fn, x = CIRCULAR[name]
    check(fn, x)


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.pad(L.ones(1, 2, 3), (3, 0), mode="reflect"),
    lambda L: L.nn.functional.pad(L.ones(1, 2, 3), (1, 2, 3)),
])
def test_bad_pads_raise_as_torch(call):
    errors = []
    for lib in (torch, ember):
        with pytest.raises(Exception) as info:
            call(lib)
        errors.append(info.type.__name__)
    assert errors[0] == errors[1]
