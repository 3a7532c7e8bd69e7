"""ember.nn functional conv/pool layers vs torch.nn.functional: values, gradients, 2nd order."""
import numpy as np
import pytest
import torch
import torch.nn.functional as TF
from oracle import check, close, same_error

import ember
from ember.nn import _functional_layers as EF


def F(lib):
    return EF if lib is ember else TF


def rand(*shape, dtype=np.float64, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


CONV2D_CASES = [
    # (input shape, weight shape, kwargs)
    ((2, 4, 9, 8), (6, 4, 3, 3), {}),
    ((2, 4, 9, 8), (6, 2, 3, 3), dict(stride=2, padding=1, dilation=2, groups=2)),
    ((1, 3, 5, 7), (3, 3, 2, 3), dict(stride=(2, 1), padding=(1, 2))),
    ((2, 3, 6, 6), (4, 3, 3, 2), dict(padding="same", dilation=(1, 2))),
    ((2, 3, 6, 6), (4, 3, 4, 4), dict(padding="same")),
    ((2, 3, 6, 6), (4, 3, 3, 3), dict(padding="valid")),
    ((3, 6, 6), (4, 3, 3, 3), {}),  # unbatched
    ((2, 6, 7, 7), (6, 1, 3, 3), dict(groups=6, padding=1)),  # depthwise
]


@pytest.mark.parametrize("xs,ws,kw", CONV2D_CASES)
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d(xs, ws, kw, bias):
    args = [rand(*xs), rand(*ws, seed=1)] + ([rand(ws[0], seed=2)] if bias else [])
    check(lambda lib, x, w, *b: F(lib).conv2d(x, w, *b, **kw), *args)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_conv2d_float32(dtype):
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == np.float32 else {}
    check(lambda lib, x, w, b: F(lib).conv2d(x, w, b, padding=1),
          rand(4, 3, 8, 8, dtype=dtype), rand(5, 3, 3, 3, dtype=dtype, seed=1),
          rand(5, dtype=dtype, seed=2), second=False, **tol)


@pytest.mark.parametrize("xs,ws,kw", [
    ((2, 4, 11), (6, 4, 3), {}),
    ((2, 4, 11), (6, 2, 3), dict(stride=2, padding=2, dilation=2, groups=2)),
    ((2, 4, 10), (5, 4, 4), dict(padding="same")),
    ((4, 9), (3, 4, 2), {}),
])
def test_conv1d(xs, ws, kw):
    check(lambda lib, x, w, b: F(lib).conv1d(x, w, b, **kw), rand(*xs), rand(*ws, seed=1),
          rand(ws[0], seed=2))


@pytest.mark.parametrize("xs,ws,kw", [
    ((2, 4, 5, 5), (4, 3, 3, 3), {}),
    ((2, 4, 5, 6), (4, 2, 3, 2), dict(stride=2, padding=1, output_padding=1, groups=2)),
    ((1, 2, 4, 4), (2, 3, 2, 2), dict(stride=(2, 3), dilation=2, output_padding=(1, 0))),
])
def test_conv_transpose2d(xs, ws, kw):
    check(lambda lib, x, w, b: F(lib).conv_transpose2d(x, w, b, **kw), rand(*xs),
          rand(*ws, seed=1), rand(ws[1] * kw.get("groups", 1), seed=2))


def test_conv_transpose1d():
    check(lambda lib, x, w: F(lib).conv_transpose1d(x, w, stride=2, padding=1), rand(2, 3, 6),
          rand(3, 4, 3, seed=1))


@pytest.mark.parametrize("call,message", [
    (lambda F, x: F.conv2d(x, x.new_zeros(6, 3, 3, 3)),
     "Given groups=1, weight of size [6, 3, 3, 3], expected input[2, 4, 8, 8] to have 3 "
     "channels, but got 4 channels instead"),
    (lambda F, x: F.conv2d(x[0, 0], x.new_zeros(6, 4, 3, 3)),
     "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [8, 8]"),
    (lambda F, x: F.conv2d(x, x.new_zeros(6, 4, 9, 9)), "Kernel size can't be greater"),
    (lambda F, x: F.conv2d(x, x.new_zeros(6, 4, 3, 3), stride=2, padding="same"),
     "padding='same' is not supported for strided convolutions"),
    (lambda F, x: F.conv2d(x, x.new_zeros(6, 4, 3, 3), padding="foo"),
     "Invalid padding string: 'foo'"),
    (lambda F, x: F.conv2d(x, x.new_zeros(6, 4, 3, 3), x.new_zeros(5)),
     "expected bias to be 1-dimensional with 6 elements, but got bias of size [5]"),
    (lambda F, x: F.conv_transpose2d(x, x.new_zeros(3, 4, 3, 3)),
     "Given transposed=1, weight of size [3, 4, 3, 3], expected input[2, 4, 8, 8] to have 3 "
     "channels, but got 4 channels instead"),
    (lambda F, x: F.max_pool2d(x, 2, padding=2), "pad should be at most half of effective "
     "kernel size, but got pad=2, kernel_size=2 and dilation=1"),
    (lambda F, x: F.avg_pool2d(x, 9), "Given input size: (4x8x8). Calculated output size: "
     "(4x0x0). Output size is too small"),
    (lambda F, x: F.max_pool2d(x[0, 0, 0], 2), "non-empty 3D or 4D (batch mode) tensor"),
])
def test_errors_match_torch(call, message):
    x = np.zeros((2, 4, 8, 8), np.float32)
    for lib, F_ in ((torch, TF), (ember, EF)):
        with pytest.raises(RuntimeError) as info:
            call(F_, lib.tensor(x))
        assert message in str(info.value).replace("torch.", "ember."), lib.__name__


def test_conv_dtype_mismatch():
    with pytest.raises(RuntimeError, match="should be the same"):
        EF.conv2d(ember.zeros(1, 2, 4, 4, dtype=ember.float64), ember.zeros(1, 2, 3, 3))


@pytest.mark.parametrize("kw", [
    dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), dict(kernel_size=(2, 3), stride=1),
    dict(kernel_size=2, dilation=2, stride=1), dict(kernel_size=3, stride=2, ceil_mode=True),
])
def test_max_pool2d(kw):
    check(lambda lib, x: F(lib).max_pool2d(x, **kw), rand(2, 3, 7, 8))
    x = torch.tensor(rand(2, 3, 7, 8))
    e_out, e_idx = EF.max_pool2d(ember.tensor(x.numpy()), return_indices=True, **kw)
    t_out, t_idx = TF.max_pool2d(x, return_indices=True, **kw)
    assert np.array_equal(e_idx.numpy(), t_idx.numpy()) and e_idx.dtype == ember.int64


def test_max_pool_ties_and_unbatched():
    x = np.ones((3, 4, 4))  # all ties: torch routes each window's gradient to its first element
    check(lambda lib, x: F(lib).max_pool2d(x, 2), x)
    check(lambda lib, x: F(lib).max_pool2d(x, 3, 1), x)


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=3, stride=2, ceil_mode=True)])
def test_max_pool1d(kw):
    check(lambda lib, x: F(lib).max_pool1d(x, **kw), rand(2, 3, 9))
    e_idx = EF.max_pool1d(ember.tensor(rand(2, 3, 9)), return_indices=True, **kw)[1]
    t_idx = TF.max_pool1d(torch.tensor(rand(2, 3, 9)), return_indices=True, **kw)[1]
    assert np.array_equal(e_idx.numpy(), t_idx.numpy())


@pytest.mark.parametrize("kw", [
    dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
    dict(kernel_size=3, stride=2, padding=1, count_include_pad=False),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
    dict(kernel_size=(2, 3), divisor_override=5),
])
def test_avg_pool2d(kw):
    check(lambda lib, x: F(lib).avg_pool2d(x, **kw), rand(2, 3, 7, 8))


def test_avg_pool1d():
    check(lambda lib, x: F(lib).avg_pool1d(x, 3, 2, 1), rand(2, 3, 9))


@pytest.mark.parametrize("size", [1, 3, (2, 5), (None, 3), (7, 8)])
def test_adaptive_avg_pool2d(size):
    check(lambda lib, x: F(lib).adaptive_avg_pool2d(x, size), rand(2, 3, 7, 8))


def test_adaptive_avg_pool1d():
    check(lambda lib, x: F(lib).adaptive_avg_pool1d(x, 4), rand(2, 3, 9))


def test_max_pool_propagates_nan():
    x = rand(1, 1, 4, 4)
    x[0, 0, 1, 1] = np.nan
    close(EF.max_pool2d(ember.tensor(x), 2), TF.max_pool2d(torch.tensor(x), 2))


@pytest.mark.parametrize("stride", [1, 2])
def test_conv_weight_gradient_without_cached_columns(monkeypatch, stride):
    from ember.ops import conv
    monkeypatch.setattr(conv, "_CACHE_LIMIT", 0)  # big convolutions recompute im2col
    check(lambda lib, x, w: F(lib).conv2d(x, w, stride=stride, padding=1), rand(2, 3, 7, 7),
          rand(4, 3, 3, 3, seed=1), grad_inputs=[False, True], second=False)


@pytest.mark.parametrize("call", [
    lambda F, L: F.max_pool2d(L.zeros(0, 1, 4, 4), 2), lambda F, L: F.avg_pool2d(L.zeros(0, 1, 4, 4), 2),
    lambda F, L: F.max_pool1d(L.zeros(0, 2, 4), 2), lambda F, L: F.avg_pool1d(L.zeros(0, 2, 4), 2),
    lambda F, L: F.max_pool2d(L.zeros(0, 1, 4, 4), 2, return_indices=True)[1]])
def test_pools_take_an_empty_batch_as_torch(call):
    assert tuple(call(ember.nn.functional, ember).shape) == tuple(call(TF, torch).shape)


@pytest.mark.parametrize("call", [
    lambda F, L: F.max_pool2d(L.zeros(1, 0, 4, 4), 2), lambda F, L: F.max_pool2d(L.zeros(0, 4, 4), 2),
    lambda F, L: F.max_pool1d(L.zeros(2, 0, 4), 2), lambda F, L: F.avg_pool2d(L.zeros(1, 1, 0, 4), 2)])
def test_pools_refuse_other_empty_dims_as_torch(call):
    caught = []
    for F, lib in ((TF, torch), (ember.nn.functional, ember)):
        with pytest.raises(RuntimeError) as info:
            call(F, lib)
        caught.append(str(info.value))
    assert caught[1] == caught[0]


def test_conv_tbc():
    rng = np.random.default_rng(0)
    check(lambda lib, x, w, b: lib.nn.functional.conv_tbc(x, w, b, 1),
          rng.standard_normal((5, 2, 3)), rng.standard_normal((2, 3, 4)),
          rng.standard_normal(4), same_grad_fn=False)
    for shapes in [((5, 2, 3), (2, 3, 4), (2,)), ((2, 3), (2, 3, 4), (4,)),
                   ((5, 2, 3), (2, 2, 4), (4,))]:
        same_error(lambda lib: lib.nn.functional.conv_tbc(*[lib.zeros(*s) for s in shapes]))


@pytest.mark.parametrize("call", [
    lambda F, L: F.conv2d(L.zeros(2, 64, 5, 6), L.zeros(5, 32, 3, 3), groups=2),
    lambda F, L: F.conv1d(L.zeros(2, 64, 5), L.zeros(5, 32, 3), groups=2),
    lambda F, L: F.conv_transpose2d(L.zeros(2, 64, 5, 6), L.zeros(63, 3, 3, 3), groups=2),
    lambda F, L: F.conv2d(L.zeros(2, 64, 5, 6), L.zeros(6, 30, 3, 3), groups=2)])
def test_conv_weight_not_divisible_by_groups_named_as_torch(call):
    """(it said "expected ... to have 64 channels, but got 64 channels" before)"""
    caught = []
    for F, lib in ((TF, torch), (ember.nn.functional, ember)):
        with pytest.raises(RuntimeError) as info:
            call(F, lib)
        caught.append(str(info.value))
    assert caught[1] == caught[0]


_X1, _X2, _X3 = (np.random.default_rng(0).standard_normal(s).astype(np.float32)
                 for s in ((1, 3, 5), (1, 3, 5, 5), (1, 1, 4, 4, 4)))
_BAD_GEOMETRY = [
    lambda F, t: F.conv2d(t(_X2), t(_X2[:, :, :3, :3].repeat(2, 0)), stride=0),
    lambda F, t: F.conv2d(t(_X2), t(_X2[:, :, :3, :3]), padding=-1),
    lambda F, t: F.conv2d(t(_X2), t(_X2[:, :, :3, :3]), dilation=0),
    lambda F, t: F.conv1d(t(_X1), t(_X1[:, :, :3]), dilation=0),
    lambda F, t: F.conv1d(t(_X1), t(_X1[:, :, :3]), stride=-1),
    lambda F, t: F.conv3d(t(_X3), t(_X3[:, :, :2, :2, :2]), dilation=0),
    lambda F, t: F.conv_transpose2d(t(_X2), t(_X2[0, :, :3, :3, None].transpose(0, 3, 1, 2)
                                              .repeat(3, 0)[:3]), stride=0),
    lambda F, t: F.conv_transpose1d(t(_X1), t(_X1[0, :, None, :3]), dilation=0),
    lambda F, t: F.conv_transpose1d(t(_X1), t(_X1[0, :, None, :3]), padding=-1),
    lambda F, t: F.max_pool2d(t(_X2), 0), lambda F, t: F.max_pool2d(t(_X2), 2, stride=-1),
    lambda F, t: F.max_pool2d(t(_X2), 2, padding=-1),
    lambda F, t: F.max_pool2d(t(_X2), 2, dilation=0), lambda F, t: F.avg_pool2d(t(_X2), 0),
    lambda F, t: F.avg_pool1d(t(_X1), 2, stride=0),
    lambda F, t: F.avg_pool3d(t(_X3), 2, stride=0), lambda F, t: F.max_pool3d(t(_X3), 2, 0),
    lambda F, t: F.interpolate(t(_X1), size=0), lambda F, t: F.interpolate(t(_X2), size=(0, 2)),
    lambda F, t: F.interpolate(t(_X2), size=(2, -1), mode="bilinear"),
    lambda F, t: F.interpolate(t(_X1), scale_factor=0.1),
    lambda F, t: F.pad(t(_X1), (6, 0), mode="circular"),
    lambda F, t: F.pad(t(_X1), (0, 6), mode="circular")]


@pytest.mark.parametrize("case", range(len(_BAD_GEOMETRY)))
def test_non_positive_strides_sizes_and_negative_padding_raise_as_torch(case):
    # ember divided by zero (ZeroDivisionError), leaked NumPy's broadcast error, or computed
    # silently (dilation 0, circular padding that wraps twice)
    same_error(lambda lib: _BAD_GEOMETRY[case](lib.nn.functional, lib.tensor))


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.avg_pool1d(L.tensor([[[1, 0, 1, 1]]]).bool(), 2),
    lambda L: L.nn.functional.avg_pool1d(L.tensor([[[1, 0, 1, 1]]]).int(), 2),
    lambda L: L.nn.functional.avg_pool2d(L.tensor([[[1, 0, 1, 1]]]).to(L.uint8), (1, 2)),
    lambda L: L.nn.functional.max_pool1d(L.tensor([[[1, 0, 1, 1]]]), 2), lambda L: L.nn.functional.max_pool1d(L.tensor([[[1, 0, 1, 1]]]).bool(), 2),
    lambda L: L.nn.MaxPool1d(2)(L.tensor([[[1, 0, 1, 1]]])), lambda L: L.nn.functional.max_pool2d(L.tensor([[[1, 0, 1, 1]]]).bool(), (1, 2)),
    lambda L: L.nn.functional.max_pool1d(L.tensor([[[1, 0, 1, 1]]]).bool(), 2, return_indices=True),
    lambda L: L.nn.functional.adaptive_max_pool1d(L.tensor([[[1, 0, 1, 1]]]), 2),
    lambda L: L.nn.functional.adaptive_max_pool2d(L.tensor([[[1, 0, 1, 1]]]).bool(), 2)])
def test_pools_refuse_the_dtypes_torch_has_no_kernel_for(call):
    """(NumPy's UFuncTypeError leaked from avg_pool of int/bool; max_pool1d computed on int)"""
    same_error(call)


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.avg_pool1d(L.tensor([[[1, 0, 1, 1]]]) * 3, 2),
    lambda L: L.nn.functional.avg_pool1d(-L.tensor([[[1, 0, 1, 1]]]) * 3, 2),
    lambda L: L.nn.functional.avg_pool1d(L.tensor([[[1, 0, 1, 1]]]) * 3, 3, 1, 1, count_include_pad=False),
    lambda L: L.nn.functional.avg_pool1d(L.tensor([[[1, 0, 1, 1]]]) * 5, 2, stride=3, ceil_mode=True),
    lambda L: L.nn.functional.avg_pool2d(L.tensor([[[1, 0, 1, 1]]]) * 3, (1, 2), divisor_override=3),
    lambda L: L.nn.functional.max_pool1d(L.tensor([[[1, 0, 1, 1]]]), 2, return_indices=True)[0],
    lambda L: L.nn.functional.max_pool2d(L.tensor([[[1, 0, 1, 1]]]), (1, 2))])
def test_int64_pools_compute_as_torch(call):
    """(avg_pool of int64 leaked NumPy's UFuncTypeError; torch divides truncating)"""
    e, t = call(ember), call(torch)
    assert str(e.dtype)[6:] == str(t.dtype)[6:] and e.tolist() == t.tolist()


@pytest.mark.parametrize("kernel, stride, padding, dilation, ceil", [
    (2, 1, 1, 1, False), (3, 2, 1, 1, True), (3, 1, 1, 2, False), (2, 2, 1, 2, True)])
def test_max_pool_of_a_minus_inf_window_points_at_its_first_element_as_torch(
        kernel, stride, padding, dilation, ceil):
    """torch's scan starts at the window's first element; ember's -inf padding tied the -inf
    elements and won (index -1, the gradient lost)"""
    def call(L):
        inf = float("inf")
        x = L.tensor([[[-inf, -inf, 3.0, -inf, -inf, -inf, 1.0, -inf]]], requires_grad=True)
        out, index = L.nn.functional.max_pool1d(x, kernel, stride, padding, dilation,
                                                ceil_mode=ceil, return_indices=True)
        out.sum().backward()
        return index.tolist(), x.grad.tolist()
    assert call(ember) == call(torch)


def test_max_pool2d_of_minus_inf_windows_as_torch():
    def call(L):
        x = L.full((1, 1, 3, 4), -float("inf"))
        x[0, 0, 2, 3] = 1.0
        return L.nn.functional.max_pool2d(x, (3, 2), (2, 1), (1, 1), dilation=(1, 2),
                                          return_indices=True)[1].tolist()
    assert call(ember) == call(torch)
