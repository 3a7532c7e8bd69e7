"""nn.functional.linear (the one function defined in ember/nn/functional.py; the rest are
re-exports, tested at their own modules): values and derivatives against torch."""
import numpy as np
import pytest
from oracle import check

rng = np.random.default_rng(0)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shape", [(4, 3), (3,), (2, 5, 3), (2, 2, 2, 3)], ids=str)
def test_linear_functional_matches_torch(shape, bias):
    x, w, b = rng.standard_normal(shape), rng.standard_normal((2, 3)), rng.standard_normal(2)
    if bias:
        check(lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), x, w, b,
              rtol=1e-10, atol=1e-12)
    else:
        check(lambda lib, x, w: lib.nn.functional.linear(x, w), x, w, rtol=1e-10, atol=1e-12)


def test_linear_float32_matches_torch():
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((128, 784), (512, 784), (512,)))
    check(lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), x, w, b, rtol=1e-4, atol=1e-4,
          second=False)
