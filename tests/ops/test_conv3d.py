"""3-D convolution (ember/ops/conv3d.py: depth unfolded onto conv.py's 2-D passes) against
torch: conv3d and conv_transpose3d with stride, padding (also 'same'/'valid'), dilation, groups
and bias; values, input/weight/bias gradients and second derivatives in float64 and float32."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

R = np.random.default_rng(0)


def _f(lib):
    return lib.nn.functional


CASES = {
    "plain": (lambda L, x, w, b: _f(L).conv3d(x, w, b), (2, 3, 4, 5, 4), (4, 3, 2, 3, 2), (4,)),
    "stride_pad": (lambda L, x, w, b: _f(L).conv3d(x, w, b, stride=2, padding=1),
                   (1, 2, 5, 6, 5), (3, 2, 3, 3, 3), (3,)),
    "mixed": (lambda L, x, w, b: _f(L).conv3d(x, w, b, stride=(1, 2, 3), padding=(2, 0, 1),
                                              dilation=(2, 1, 2), groups=2),
              (2, 4, 6, 5, 7), (6, 2, 3, 2, 3), (6,)),
    "same": (lambda L, x, w, b: _f(L).conv3d(x, w, b, padding="same", dilation=(1, 2, 1)),
             (1, 2, 4, 6, 5), (2, 2, 2, 3, 4), (2,)),
    "valid": (lambda L, x, w, b: _f(L).conv3d(x, w, b, padding="valid"),
              (1, 2, 4, 4, 4), (3, 2, 2, 2, 2), (3,)),
    "transposed": (lambda L, x, w, b: _f(L).conv_transpose3d(x, w, b),
                   (2, 3, 3, 4, 3), (3, 2, 2, 3, 2), (2,)),
    "transposed_mixed": (
        lambda L, x, w, b: _f(L).conv_transpose3d(x, w, b, stride=(2, 1, 2), padding=(1, 0, 1),
                                                  output_padding=(1, 0, 1), groups=2,
                                                  dilation=(1, 2, 1)),
        (1, 4, 3, 3, 4), (4, 3, 3, 2, 3), (6,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch_float64(name):
    fn, *shapes = CASES[name]
    out = check(fn, *[R.standard_normal(s) for s in shapes])
    assert type(out.grad_fn).__name__ == "ConvolutionBackward0"


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch_float32(name):
    fn, *shapes = CASES[name]
    check(fn, *[R.standard_normal(s).astype(np.float32) for s in shapes], rtol=1e-4, atol=1e-5)


def test_unbatched_and_without_bias():
    check(lambda L, x, w: _f(L).conv3d(x, w, stride=(2, 1, 1)),
          R.standard_normal((3, 5, 4, 4)), R.standard_normal((2, 3, 2, 2, 2)))


def test_weight_only_gradient():
    """A frozen input: only the weight gradient runs (its pass alone)."""
    check(lambda L, w: _f(L).conv3d(L.tensor(np.arange(2 * 2 * 4 * 4 * 3.0).reshape(
        2, 2, 4, 4, 3)), w, padding=1), R.standard_normal((3, 2, 2, 3, 2)))


@pytest.mark.parametrize("call", [
    lambda L: _f(L).conv3d(L.ones(1, 3, 5, 5), L.ones(2, 3, 3, 3, 3)),
    lambda L: _f(L).conv3d(L.ones(1, 3, 5, 5, 5), L.ones(2, 4, 3, 3, 3)),
    lambda L: _f(L).conv3d(L.ones(1, 3, 2, 5, 5), L.ones(2, 3, 3, 3, 3)),
    lambda L: _f(L).conv3d(L.ones(1, 3, 5, 5, 5), L.ones(2, 3, 3, 3, 3), stride=(1, 2)),
    lambda L: _f(L).conv3d(L.ones(1, 3, 5, 5, 5), L.ones(2, 3, 3, 3, 3), stride=2,
                           padding="same"),
    lambda L: _f(L).conv3d(L.ones(1, 3, 5, 5, 5), L.ones(2, 3, 3, 3, 3), L.ones(3)),
])
def test_errors_match_torch(call):
    with pytest.raises(RuntimeError):
        call(torch)
    same_error(call)
