"""The convolution primitive (ember/ops/conv.py): ConvolutionBackward0 for 1- and 2-D with
stride, padding (also 'same'), dilation and groups, against torch: values, gradients of input,
weight and bias, second derivatives (through the input- and weight-gradient nodes) and errors."""
import numpy as np
import pytest
import torch
from oracle import check

import ember

R = np.random.default_rng(0)


def _f(lib):
    return lib.nn.functional


CASES = {
    "conv1d": (lambda L, x, w, b: _f(L).conv1d(x, w, b, stride=2, padding=1),
               (2, 3, 9), (4, 3, 3), (4,)),
    "conv2d": (lambda L, x, w, b: _f(L).conv2d(x, w, b), (2, 3, 6, 5), (4, 3, 3, 2), (4,)),
    "conv2d_stride_pad_dilation": (
        lambda L, x, w, b: _f(L).conv2d(x, w, b, stride=(2, 1), padding=(1, 2), dilation=2),
        (1, 2, 7, 6), (3, 2, 3, 3), (3,)),
    "conv2d_groups": (lambda L, x, w, b: _f(L).conv2d(x, w, b, groups=2),
                      (2, 4, 5, 5), (6, 2, 3, 3), (6,)),
    "conv2d_same": (lambda L, x, w, b: _f(L).conv2d(x, w, b, padding="same"),
                    (1, 2, 5, 6), (2, 2, 3, 4), (2,)),
    # output planes of >= 512 positions run one GEMM per sample (forward, weight gradient)
    "conv2d_large_plane": (lambda L, x, w, b: _f(L).conv2d(x, w, b, padding=1),
                           (3, 2, 23, 24), (4, 2, 3, 3), (4,)),
    # 8+ samples: the bias added against a per-channel operand a sample long (_spread)
    "conv2d_large_plane_batch": (lambda L, x, w, b: _f(L).conv2d(x, w, b, padding=1),
                                 (8, 2, 23, 24), (3, 2, 3, 3), (3,)),
    "conv2d_large_plane_stride_dilation": (
        lambda L, x, w: _f(L).conv2d(x, w, stride=(1, 2), dilation=(2, 1), padding=(2, 0)),
        (2, 1, 40, 50), (3, 1, 5, 4)),
    "conv2d_large_plane_groups": (lambda L, x, w, b: _f(L).conv2d(x, w, b, groups=2),
                                  (2, 4, 26, 25), (4, 2, 3, 2), (4,)),
    # stride 1, output the input's size, planes above 64 positions: the input gradient's GEMM
    # runs over the input's width (no padding columns) and adds into (N, C, H, W) directly
    "conv2d_same_groups_dilation": (
        lambda L, x, w, b: _f(L).conv2d(x, w, b, groups=2, dilation=2, padding=2),
        (2, 4, 10, 11), (6, 2, 3, 3), (6,)),
    "conv2d_same_even_kernel": (lambda L, x, w, b: _f(L).conv2d(x, w, b, padding="same"),
                                (1, 2, 9, 10), (3, 2, 4, 2), (3,)),
    # (the left padding not a multiple of the dilation: the padded-width pass)
    "conv2d_same_odd_left_pad": (
        lambda L, x, w: _f(L).conv2d(x, w, dilation=2, padding="same"), (1, 2, 9, 10),
        (2, 2, 2, 2)),
    "conv1d_long": (lambda L, x, w, b: _f(L).conv1d(x, w, b, padding=2), (2, 3, 600), (5, 3, 5),
                    (5,)),
    "conv_transpose2d_large_plane": (
        lambda L, x, w, b: _f(L).conv_transpose2d(x, w, b, padding=1), (2, 3, 24, 24),
        (3, 2, 3, 3), (2,)),
    # C*kh*kw >= 100 on small planes: the GEMMs run positions first (channels-last columns)
    "conv2d_many_channels": (lambda L, x, w, b: _f(L).conv2d(x, w, b, padding=1),
                             (2, 12, 7, 6), (5, 12, 3, 3), (5,)),
    "conv2d_many_channels_stride_dilation": (
        lambda L, x, w: _f(L).conv2d(x, w, stride=(2, 1), dilation=(1, 2), padding=(1, 2)),
        (2, 8, 11, 10), (3, 8, 3, 5)),
    "conv2d_many_channels_dilation": (
        lambda L, x, w, b: _f(L).conv2d(x, w, b, dilation=(2, 1), padding=(2, 1)),
        (2, 8, 9, 10), (3, 8, 3, 5), (3,)),
    "conv1d_many_channels_dilation": (lambda L, x, w: _f(L).conv1d(x, w, dilation=2, padding=3),
                                      (2, 40, 12), (3, 40, 3)),
    "conv1d_many_channels": (lambda L, x, w, b: _f(L).conv1d(x, w, b, stride=2, padding=1),
                             (2, 40, 9), (3, 40, 3), (3,)),
    "conv2d_many_channels_groups": (lambda L, x, w, b: _f(L).conv2d(x, w, b, groups=2),
                                    (2, 24, 6, 6), (4, 12, 3, 3), (4,)),
    "conv_transpose2d_many_channels": (
        lambda L, x, w, b: _f(L).conv_transpose2d(x, w, b, stride=2, padding=1),
        (2, 5, 4, 4), (5, 12, 3, 3), (12,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, *shapes = CASES[name]
    check(fn, *[R.standard_normal(s) for s in shapes])


def test_without_bias():
    check(lambda L, x, w: _f(L).conv2d(x, w, stride=2), R.standard_normal((2, 3, 6, 6)),
          R.standard_normal((2, 3, 2, 2)))


@pytest.mark.parametrize("call", [
    lambda L: _f(L).conv2d(L.ones(1, 3, 5, 5), L.ones(2, 4, 3, 3)),
    lambda L: _f(L).conv2d(L.ones(1, 3, 2, 2), L.ones(2, 3, 3, 3)),
])
def test_errors_match_torch(call):
    errors = []
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as info:
            call(lib)
        errors.append(str(info.value))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("c,hw", [(3, 32), (32, 8)])  # per-sample GEMMs; positions first
def test_float32_training_step_matches_torch(c, hw):
    x = R.standard_normal((4, c, hw, hw)).astype(np.float32)
    w = R.standard_normal((8, c, 3, 3)).astype(np.float32)
    g = R.standard_normal((4, 8, hw, hw)).astype(np.float32)
    results = []
    for lib in (torch, ember):
        wt, bt = lib.tensor(w, requires_grad=True), lib.zeros(8, requires_grad=True)
        xt = lib.tensor(x, requires_grad=True)
        out = _f(lib).conv2d(xt, wt, bt, padding=1)
        out.backward(lib.tensor(g))
        results.append((out.detach().numpy(), xt.grad.numpy(), wt.grad.numpy(),
                        bt.grad.numpy()))
    for e, t in zip(results[1], results[0]):
        assert e.dtype == np.float32
        np.testing.assert_allclose(e, t, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("make,shape", [
    (lambda nn: nn.Conv2d(2, 3, 3), (0, 2, 5, 5)), (lambda nn: nn.Conv1d(2, 3, 3), (0, 2, 5)),
    (lambda nn: nn.Conv3d(2, 3, 3), (0, 2, 5, 5, 5)),
    (lambda nn: nn.ConvTranspose2d(4, 6, 3, groups=2), (0, 4, 5, 5)),
    (lambda nn: nn.Conv2d(4, 6, 3, groups=2, stride=2, padding=1), (0, 4, 5, 5))])
def test_an_empty_batch_gives_an_empty_output_and_zero_gradients(make, shape):
    """torch convolves an empty batch (NumPy's reshape error leaked before)."""
    got = []
    for lib in (torch, ember):
        lib.manual_seed(0)
        conv = make(lib.nn)
        x = lib.zeros(shape, requires_grad=True)
        y = conv(x)
        y.sum().backward()
        got.append((tuple(y.shape), y.grad_fn.name(), tuple(x.grad.shape),
                    conv.weight.grad.abs().sum().item(), tuple(conv.bias.grad.shape)))
    assert got[1] == got[0]


@pytest.mark.parametrize("layout", ["none", "input", "weight", "both"])
def test_channels_last_input_or_weight_gives_channels_last_output_like_torch(layout):
    rng = np.random.default_rng(3)
    xs, ws = rng.standard_normal((2, 3, 6, 6)), rng.standard_normal((4, 3, 3, 3))
    seen = []
    for lib in (ember, torch):
        x, w = lib.tensor(xs, dtype=lib.float32), lib.tensor(ws, dtype=lib.float32)
        if layout in ("input", "both"):
            x = x.to(memory_format=lib.channels_last)
        if layout in ("weight", "both"):
            w = w.to(memory_format=lib.channels_last)
        y = lib.nn.functional.conv2d(x, w, padding=1)
        seen.append((y.stride(), y.detach().numpy()))
    assert seen[0][0] == seen[1][0]
    np.testing.assert_allclose(seen[0][1], seen[1][1], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("n,stride,dilation,padding,output_padding,groups", [
    (2, 1, 2, 0, 1, 1), (2, 1, 3, 2, 2, 1), (2, 1, 3, 1, 2, 1), (2, 2, 3, 0, 2, 1),
    (2, (1, 2), (2, 1), (1, 0), (1, 0), 1), (2, 1, 2, 1, 1, 2), (1, 1, 3, 0, 2, 1),
    (3, 1, 2, 0, 1, 1), (2, 3, 1, 2, 2, 1)])
def test_conv_transpose_output_padding_at_or_past_the_stride(n, stride, dilation, padding,
                                                           output_padding, groups):
    """output_padding >= stride (allowed below the dilation): torch's extra trailing rows.
    ember ignored them at stride 1 (a smaller output), raised NumPy's matmul error, or gave
    other values."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4) + (5, 4, 3)[:n]).astype(np.float64)
    w = rng.standard_normal((4, 3) + (2, 3, 2)[:n]).astype(np.float64)
    b = rng.standard_normal(3 * groups).astype(np.float64)
    fn = {1: "conv_transpose1d", 2: "conv_transpose2d", 3: "conv_transpose3d"}[n]
    check(lambda L, x, w, b: getattr(L.nn.functional, fn)(
        x, w, b, stride=stride, padding=padding, output_padding=output_padding, groups=groups,
        dilation=dilation), x, w, b, rtol=1e-9, atol=1e-9, same_grad_fn=False)
