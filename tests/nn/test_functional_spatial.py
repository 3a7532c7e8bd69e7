"""interpolate, pixel_shuffle/unshuffle and unfold/fold (ember/nn/_functional_spatial.py)
against torch: values, gradients (first and second order) and errors."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember

R = np.random.default_rng(0)
X3 = R.standard_normal((2, 3, 5))
X4 = R.standard_normal((2, 3, 5, 4))
X5 = R.standard_normal((1, 2, 3, 4, 3))


def _f(lib):
    return lib.nn.functional


INTERPOLATE = [
    (X4, dict(scale_factor=2)), (X4, dict(size=(7, 3))), (X4, dict(scale_factor=(1.5, 0.75))),
    (X3, dict(size=11)), (X5, dict(scale_factor=2)), (X4, dict(size=(9, 6), mode="nearest-exact")),
    (X4, dict(scale_factor=1.7, recompute_scale_factor=True)),
    (X4, dict(scale_factor=2, mode="bilinear")), (X4, dict(size=(3, 7), mode="bilinear")),
    (X4, dict(size=(8, 9), mode="bilinear", align_corners=True)),
    (X4, dict(scale_factor=(0.5, 1.5), mode="bilinear")), (X3, dict(size=9, mode="linear")),
    (X3, dict(scale_factor=3, mode="linear", align_corners=True)),
    (X5, dict(size=(4, 5, 2), mode="trilinear")),
    (X4, dict(size=(1, 1), mode="bilinear", align_corners=True)),
    (X4, dict(scale_factor=2, mode="bicubic")), (X4, dict(size=(3, 7), mode="bicubic")),
    (X4, dict(size=(9, 6), mode="bicubic", align_corners=True)),
    (X4, dict(scale_factor=(0.5, 1.5), mode="bicubic")), (X4, dict(size=1, mode="bicubic")),
    (X3, dict(size=3, mode="area")), (X4, dict(scale_factor=0.5, mode="area")),
    (X4, dict(size=(7, 3), mode="area")), (X5, dict(size=(2, 3, 2), mode="area")),
]


@pytest.mark.parametrize("x, kw", INTERPOLATE)
def test_interpolate_matches_torch(x, kw):
    check(lambda L, x: _f(L).interpolate(x, **kw), x, same_grad_fn=False)
    check(lambda L, x: _f(L).interpolate(x, **kw), x.astype(np.float32), rtol=1e-5, atol=1e-5,
          same_grad_fn=False)


def test_bicubic_node_is_torch():
    check(lambda L, x: _f(L).interpolate(x, scale_factor=1.5, mode="bicubic"), X4)


@pytest.mark.parametrize("fn", [
    lambda L, x: _f(L).pixel_shuffle(x, 2), lambda L, x: L.pixel_shuffle(x[0], 2),
    lambda L, x: _f(L).pixel_unshuffle(x, 2), lambda L, x: L.pixel_unshuffle(x[:, :1], 4),
    lambda L, x: _f(L).unfold(x, 3), lambda L, x: _f(L).unfold(x[0], (2, 3), 2, 1, (1, 2)),
    lambda L, x: _f(L).fold(_f(L).unfold(x, 3, padding=1), (8, 8), 3, padding=1),
    lambda L, x: _f(L).fold(x.reshape(2, -1)[:, :168].reshape(2, 8, 21), (9, 7), (2, 2),
                            stride=(1, 2), dilation=(2, 1)),
    lambda L, x: _f(L).fold(x.reshape(-1)[:100].reshape(4, 25), 6, 2, padding=2, stride=2),
])
def test_rearranging_matches_torch(fn):
    x = R.standard_normal((2, 4, 8, 8))
    check(fn, x, same_grad_fn=False)


@pytest.mark.parametrize("call, error", [
    (lambda L: _f(L).interpolate(L.ones(1, 1, 4, 4)), ValueError),
    (lambda L: _f(L).interpolate(L.ones(1, 1, 4, 4), size=2, scale_factor=2), ValueError),
    (lambda L: _f(L).interpolate(L.ones(1, 1, 4, 4), size=2, align_corners=True), ValueError),
    (lambda L: _f(L).interpolate(L.ones(1, 1, 4, 4), size=2, mode="area", align_corners=True),
     ValueError),
    (lambda L: _f(L).interpolate(L.ones(1, 1, 4, 4), size=(2, 2, 2)), ValueError),
    (lambda L: _f(L).interpolate(L.ones(1, 1, 4, 4), size=2, antialias=True), ValueError),
    (lambda L: _f(L).interpolate(L.ones(1, 1, 4), size=2, mode="linear", antialias=True),
     ValueError),
    (lambda L: _f(L).interpolate(L.ones(2, 0, 4), size=2), RuntimeError),
    (lambda L: _f(L).interpolate(L.ones(0, 0, 4, 4), size=2, mode="bicubic"), RuntimeError),
    (lambda L: _f(L).interpolate(L.ones(2, 0, 4, 4), size=2, mode="bilinear", antialias=True),
     RuntimeError),
    (lambda L: _f(L).interpolate(L.ones(2, 0, 4, 4, 4), size=2, mode="trilinear"),
     RuntimeError),
    (lambda L: _f(L).pixel_shuffle(L.ones(1, 3, 4, 4), 2), RuntimeError),
    (lambda L: _f(L).pixel_unshuffle(L.ones(1, 1, 5, 4), 2), RuntimeError),
    (lambda L: _f(L).fold(L.ones(1, 4, 5), (4, 4), 2), RuntimeError),
])
def test_errors_as_torch(call, error):
    messages = []
    for lib in (torch, ember):
        with pytest.raises(error) as info:
            call(lib)
        messages.append(str(info.value))
    assert messages[1] == messages[0]


XA = R.standard_normal((2, 3, 10, 11))
ANTIALIAS = [dict(scale_factor=0.5), dict(scale_factor=1 / 3.3), dict(size=(4, 7)),
             dict(scale_factor=1.5), dict(scale_factor=(0.3, 1.7)), dict(size=(1, 20)),
             dict(scale_factor=0.33, recompute_scale_factor=True), dict(size=(10, 5))]


@pytest.mark.parametrize("mode, align_corners", [
    ("bilinear", False), ("bilinear", True), ("bicubic", False), ("bicubic", True),
    ("lanczos", False)])
@pytest.mark.parametrize("kw", ANTIALIAS)
def test_antialias_matches_torch(mode, align_corners, kw):
    def fn(L, x):
        return _f(L).interpolate(x, mode=mode, align_corners=align_corners, antialias=True, **kw)
    check(fn, XA)
    check(fn, XA.astype(np.float32), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
def test_antialias_keeps_channels_last(mode):
    grads, outs = [], []
    for lib in (torch, ember):
        x = lib.tensor(XA, requires_grad=True)
        y = _f(lib).interpolate(x.contiguous(memory_format=lib.channels_last), size=(4, 7),
                                mode=mode, antialias=True)
        y.backward(lib.tensor(R.standard_normal((2, 3, 4, 7))))
        outs.append(y)
        grads.append(x.grad)
    assert outs[1].stride() == outs[0].stride()
    assert grads[1].stride() == grads[0].stride()
    np.testing.assert_allclose(outs[1].detach().numpy(), outs[0].detach().numpy(), atol=1e-12)


def test_separable_results_are_contiguous_as_torch():
    x = R.standard_normal((2, 3, 5, 4))
    for lib in (torch, ember):
        y = _f(lib).interpolate(lib.tensor(x), size=(3, 7), mode="bicubic")
        assert y.is_contiguous() and y.stride() == (63, 21, 7, 1)


@pytest.mark.parametrize("call, error", [
    (lambda L: _f(L).interpolate(L.ones(1, 1, 8, 8), size=3, mode="area", antialias=True),
     ValueError),
    (lambda L: _f(L).interpolate(L.ones(1, 8, 8), size=3, mode="bilinear", antialias=True),
     ValueError),
    (lambda L: _f(L).interpolate(L.ones(1, 1, 2, 8, 8), size=3, mode="bicubic",
                                 antialias=True), ValueError),
    (lambda L: _f(L).interpolate(L.ones(1, 1, 8, 8), size=3, mode="lanczos"), ValueError),
    (lambda L: _f(L).interpolate(L.ones(1, 1, 8, 8), size=3, mode="lanczos", antialias=True,
                                 align_corners=True), ValueError),
    (lambda L: _f(L).interpolate(L.ones(1, 1, 8), size=3, mode="lanczos"), NotImplementedError),
    (lambda L: _f(L).interpolate(L.ones(1, 1, 8, 8, dtype=L.float16), size=3, mode="bilinear",
                                 antialias=True), NotImplementedError),
    (lambda L: _f(L).interpolate(L.ones(1, 1, 8, 8, dtype=L.int64), size=3, mode="bicubic",
                                 antialias=True), NotImplementedError),
    (lambda L: _f(L).interpolate(L.ones(1, 1, 8, 8, dtype=L.complex64), size=3,
                                 mode="lanczos", antialias=True), NotImplementedError),
])
def test_antialias_errors_as_torch(call, error):
    test_errors_as_torch(call, error)


@pytest.mark.parametrize("mode, align_corners", [
    ("bilinear", False), ("bilinear", True), ("bicubic", False), ("bicubic", True),
    ("lanczos", False)])
@pytest.mark.parametrize("kw", ANTIALIAS + [dict(size=(33, 29))])
@pytest.mark.parametrize("channels_last", [False, True])
def test_antialias_uint8_is_torch_exactly(mode, align_corners, kw, channels_last):
    """torch resamples uint8 in fixed point, rounding after each axis: ember must agree to the
    last bit, and keep the layout."""
    x = R.integers(0, 256, (2, 3, 10, 11), dtype=np.uint8)
    outs = []
    for lib in (torch, ember):
        t = lib.tensor(x)
        t = t.contiguous(memory_format=lib.channels_last) if channels_last else t
        outs.append(_f(lib).interpolate(t, mode=mode, align_corners=align_corners,
                                        antialias=True, **kw))
    assert outs[1].dtype == ember.uint8 and outs[1].stride() == outs[0].stride()
    np.testing.assert_array_equal(outs[1].numpy(), outs[0].numpy())


@pytest.mark.parametrize("mode", ["bilinear", "bicubic", "lanczos"])
def test_antialias_to_one_column_resamples_each_row(mode):
    """torch 2.13's float kernels repeat the first row when the output is one column wide and
    the height changes (its uint8 kernel does not); ember resamples each row, as torch does on
    two equal columns."""
    x = R.standard_normal((1, 2, 6, 11))

    def resample(lib, t, size):
        return _f(lib).interpolate(t, size=size, mode=mode, antialias=True)
    column = resample(torch, torch.tensor(x), (6, 1))
    expected = resample(torch, column.repeat(1, 1, 1, 2), (12, 2))[..., :1]
    got = resample(ember, ember.tensor(x), (12, 1))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "bool", "uint8"])
@pytest.mark.parametrize("mode, shape", [("nearest", (1, 1, 2, 2)), ("nearest", (1, 1, 2)),
                                         ("bilinear", (1, 1, 2, 2)), ("linear", (1, 1, 2)),
                                         ("nearest-exact", (1, 1, 2)),
                                         ("trilinear", (1, 1, 2, 2, 2))])
def test_interpolate_of_integer_tensors_as_torch(dtype, mode, shape):
    # ember resampled integer tensors torch refuses (only uint8 images resample in torch)
    def run(L):
        return L.nn.functional.interpolate(L.ones(shape, dtype=getattr(L, dtype)),
                                           scale_factor=2, mode=mode)
    try:
        expected = run(torch)
    except NotImplementedError:
        same_error(run)
        return
    assert run(ember).tolist() == expected.tolist()


@pytest.mark.parametrize("size", [(0, 2), (2, 0), (0, 0)])
def test_area_interpolation_to_an_empty_size_as_torch(size):
    """area is adaptive average pooling, which makes an empty output (ember refused it with the
    resampling modes' 'sizes should be greater than 0')"""
    check(lambda L, x: L.nn.functional.interpolate(x, size=size, mode="area"), X4, grad=False)
    check(lambda L, x: L.nn.functional.interpolate(x, size=size[0], mode="area"), X3,
          grad=False)
    check(lambda L, x: L.nn.functional.interpolate(x, scale_factor=0.1, mode="area"), X4,
          grad=False)

    def backward(L):  # (torch's backward refuses the empty gradient)
        x = L.ones(2, 3, 5, 4, requires_grad=True)
        L.nn.functional.interpolate(x, size=size, mode="area").sum().backward()
    same_error(backward)


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.interpolate(L.ones(1, 1, 0, 0), size=(2, 2), mode="area"),
    lambda L: L.nn.functional.interpolate(L.ones(1, 1, 4), size=-1, mode="area"),
    lambda L: L.nn.functional.interpolate(L.ones(1, 1, 4, 4), size=(0, 2), mode="bilinear")])
def test_area_interpolation_refusals_as_torch(call):
    same_error(call)
