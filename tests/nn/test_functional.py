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


_DTYPES = [("float64", "float32", None), ("float64", "float32", "float32"), ("float64", "float64", "float32"),
           ("float32", "float32", "float64"), ("float16", "float32", None), ("float16", "float32", "float32"),
           ("float32", "float16", "float16"), ("bfloat16", "float32", "float32"), ("float32", "float32", "float16"),
           ("int64", "float32", "float32")]


@pytest.mark.parametrize("dtypes", _DTYPES, ids=str)
@pytest.mark.parametrize("shape", [(3,), (4, 3), (2, 4, 3)], ids=str)
def test_linear_refuses_operands_of_different_dtypes(dtypes, shape):
    # float16/bfloat16 operands were widened before the node's dtype check (a float32 result),
    # and a bias of another dtype was added silently
    import torch

    import ember
    msgs = []
    for L in (torch, ember):
        x = L.ones(shape, dtype=getattr(L, dtypes[0]))
        w = L.ones(2, 3, dtype=getattr(L, dtypes[1]))
        b = None if dtypes[2] is None else L.ones(2, dtype=getattr(L, dtypes[2]))
        with pytest.raises(RuntimeError) as info:
            L.nn.functional.linear(x, w, b)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
