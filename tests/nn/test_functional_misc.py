"""nn.functional utilities: dropout, one_hot, pad, normalize, bilinear, cosine_similarity and
pairwise_distance against torch; dropout statistics; errors."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember

F = ember.nn.functional
rng = np.random.default_rng(0)


def test_dropout_statistics_and_scaling():
    ember.manual_seed(0)
    x = ember.ones(200, 500, requires_grad=True)
    y = F.dropout(x, p=0.3)
    values = np.unique(y.detach().numpy())
    np.testing.assert_allclose(values, [0.0, 1 / 0.7], rtol=1e-6)
    kept = (y.detach().numpy() != 0).mean()
    assert abs(kept - 0.7) < 0.01
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.detach().numpy())  # d/dx = mask / (1 - p)
    assert y.grad_fn.name() == "MulBackward0"


def test_dropout_eval_p0_p1_and_errors():
    x = ember.randn(4, 4)
    assert F.dropout(x, 0.5, training=False) is x and F.dropout(x, 0.0) is x
    assert not F.dropout(x, 1.0).numpy().any()
    m = ember.nn.Dropout(0.4)
    assert repr(m) == repr(torch.nn.Dropout(0.4))
    m.eval()
    assert m(x) is x
    for bad in (-0.1, 1.5):
        for lib in (ember, torch):
            with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, "
                               f"but got {bad}"):
                lib.nn.Dropout(bad)
    y = x.clone()
    assert F.dropout(y, 0.5, inplace=True) is y


def test_one_hot_matches_torch():
    idx = np.array([[0, 3], [2, 1]])
    for n in (-1, 5):
        e = F.one_hot(ember.tensor(idx), n)
        t = torch.nn.functional.one_hot(torch.tensor(idx), n)
        assert e.dtype == ember.int64
        np.testing.assert_array_equal(e.numpy(), t.numpy())
    for bad, n in (([0, -1], -1), ([0, 5], 3)):
        for lib in (ember, torch):
            with pytest.raises(RuntimeError, match="Class values must be"):
                lib.nn.functional.one_hot(lib.tensor(bad), n)
    with pytest.raises(RuntimeError, match="one_hot is only applicable to index tensor"):
        F.one_hot(ember.tensor([0.0]))


@pytest.mark.parametrize("pad,value", [((1, 2), 0.0), ((1, 1, 2, 0), 3.5), ((-1, 2), 0.0),
                                       ((0, 0, -1, -1, 1, 1), 1.0)], ids=str)
def test_constant_pad_matches_torch(pad, value):
    check(lambda lib, x: lib.nn.functional.pad(x, pad, value=value), rng.standard_normal((3, 4, 5)),
          rtol=1e-12)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("shape,pad", [((2, 3, 5), (2, 1)), ((1, 2, 4, 5), (1, 2, 2, 1))],
                         ids=str)
def test_index_pads_match_torch(mode, shape, pad):
    fn = lambda lib, x: lib.nn.functional.pad(x, pad, mode=mode)
    if mode == "circular":  # torch records circular padding as copies (CopySlices)
        e = fn(ember, ember.tensor(rng.standard_normal(shape), requires_grad=True))
        x = rng.standard_normal(shape)
        xe, xt = ember.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        ye, yt = fn(ember, xe), fn(torch, xt)
        np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-12)
        seed = rng.standard_normal(tuple(yt.shape))
        ye.backward(ember.tensor(seed))
        yt.backward(torch.tensor(seed))
        np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-12)
        assert e.shape == yt.shape
    else:
        check(fn, rng.standard_normal(shape), rtol=1e-12)


def test_pad_errors():
    with pytest.raises(RuntimeError, match="Padding length must be divisible by 2"):
        F.pad(ember.zeros(2, 3), (1,))
    with pytest.raises(RuntimeError, match="Padding size should be less than"):
        F.pad(ember.zeros(1, 2, 3), (3, 3), mode="reflect")


@pytest.mark.parametrize("p,dim", [(2.0, 1), (1.0, -1), (3.0, 0)])
def test_normalize_matches_torch(p, dim):
    check(lambda lib, x: lib.nn.functional.normalize(x, p=p, dim=dim),
          rng.standard_normal((4, 5)), rtol=1e-10, atol=1e-12)


def test_cosine_similarity_and_pairwise_distance_match_torch():
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    # "* 1": torch names its norm node NormBackward1, ember's is LinalgVectorNormBackward0
    check(lambda lib, x, y: lib.nn.functional.pairwise_distance(x, y) * 1, a, b, rtol=1e-10,
          atol=1e-12, second=False)
    e = F.cosine_similarity(ember.tensor(a), ember.tensor(b))
    t = torch.nn.functional.cosine_similarity(torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-10)


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("lead", [(4,), (2, 3)], ids=str)
def test_bilinear_matches_torch(bias, lead):
    x1, x2 = rng.standard_normal(lead + (3,)), rng.standard_normal(lead + (5,))
    w, b = rng.standard_normal((2, 3, 5)), rng.standard_normal(2)
    if bias:
        check(lambda lib, a, c, w, b: lib.nn.functional.bilinear(a, c, w, b), x1, x2, w, b,
              rtol=1e-10, atol=1e-12)
    else:
        check(lambda lib, a, c, w: lib.nn.functional.bilinear(a, c, w), x1, x2, w,
              rtol=1e-10, atol=1e-12, second=False)


@pytest.mark.parametrize("p", [0, -float("inf"), -1.0])
def test_pairwise_distance_of_order_zero_and_below_as_torch(p):
    """(p=0 raised ZeroDivisionError; p=-inf took the least gap without eps)"""
    results = []
    for lib in (torch, ember):
        a = lib.tensor([[0.0, 1.0], [0.0, 3.0]], requires_grad=True)
        out = lib.nn.functional.pairwise_distance(a, lib.tensor([[0.0, 2.0], [1.0, 3.0]]), p)
        out.sum().backward()
        grad = None if a.grad is None else a.grad.numpy()
        results.append((type(out.grad_fn).__name__, out.detach().numpy(), grad))
    (name, out, grad), (want_name, want, want_grad) = results[1], results[0]
    assert name == want_name and np.allclose(out, want, rtol=1e-5, atol=0)
    assert (grad is None) == (want_grad is None)
    assert grad is None or np.allclose(grad, want_grad, rtol=1e-5, atol=1e-9)


def test_normalize_out_as_torch():
    for lib in (torch, ember):
        x, o = lib.tensor([3.0, 4.0]), lib.empty(2)
        assert lib.nn.functional.normalize(x, dim=0, out=o) is o
        assert o.tolist() == [0.6000000238418579, 0.800000011920929]
        with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
            lib.nn.functional.normalize(lib.ones(2, requires_grad=True), dim=0, out=lib.empty(2))


@pytest.mark.parametrize("name", ["dropout", "dropout2d", "alpha_dropout", "feature_alpha_dropout"])
@pytest.mark.parametrize("dtype", ["int64", "bool", "uint8"])
def test_dropout_of_integer_tensors_raises_torch_error(name, dtype):
    # NumPy's UFuncTypeError leaked (alpha_dropout computed an int result)
    msgs = []
    for L in (torch, ember):
        x = L.ones(2, 3, 4, dtype=getattr(L, dtype))
        with pytest.raises(RuntimeError) as info:
            getattr(L.nn.functional, name)(x, 0.5, training=True)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]
    assert ember.nn.functional.dropout(ember.ones(3, dtype=ember.int64), training=False).dtype \
        == ember.int64  # eval: the input itself, as torch


@pytest.mark.parametrize("shape", [(1, 2, 5), (2, 5)])
@pytest.mark.parametrize("pad", [(-1, 1), (2, -1), (-2, 0), (-1, -1)])
def test_circular_pad_with_negative_pads_wraps_the_cropped_range(shape, pad):
    # ember wrapped the uncropped input: (-1, 1) gave [x1, x2, x3, x4, x0] (torch: ..., x1)
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    check(lambda L, a: L.nn.functional.pad(a, pad, mode="circular"), x)


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.pad(L.ones(2, 1, 4, 3), (1, 2), mode="reflect"),
    lambda L: L.nn.functional.pad(L.ones(3), (1, 2), mode="circular"),
    lambda L: L.nn.functional.pad(L.ones(1, 2, 5), (1, 1, 1, 1, 1, 1), mode="replicate"),
    lambda L: L.nn.functional.pad(L.ones(1, 1, 3, 3), (1, 1, 3, 0), mode="reflect"),
    lambda L: L.nn.functional.pad(L.ones(1, 1, 2, 3, 4), (1, 1, 1, 1, 2, 2), mode="reflect"),
    lambda L: L.nn.functional.pad(L.ones(2, 3), (-2, -2), mode="replicate"),
    lambda L: L.nn.functional.pad(L.ones(2, 3), (-1, -2), mode="reflect"),
    lambda L: L.nn.functional.pad(L.ones(2, 3), (-2, -2), mode="circular"),
    lambda L: L.nn.functional.pad(L.ones(2, 3), (-2, -2))])
def test_pad_errors_in_torch_words(call):
    same_error(call)


def test_circular_pad_2d_with_negative_pads():
    x = np.random.default_rng(1).standard_normal((1, 1, 4, 5)).astype(np.float32)
    check(lambda L, a: L.nn.functional.pad(a, (-1, 2, 1, -2), mode="circular"), x)
