"""nn.functional's composed pieces against torch: rms_norm, pdist, channel_shuffle,
local_response_norm, alpha dropout (torch's random stream), upsample_* and *_with_indices."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember

R = np.random.default_rng(1)


def _x(*shape):
    return R.standard_normal(shape)


@pytest.mark.parametrize("shape,norm", [((4, 6), (6,)), ((2, 3, 4, 5), (4, 5)), ((3, 5), [5])])
def test_rms_norm(shape, norm):
    x = _x(*shape)
    w = _x(*norm)
    check(lambda m, x: m.nn.functional.rms_norm(x, norm), x)
    check(lambda m, x, w: m.nn.functional.rms_norm(x, norm, w, 1e-3), x, w)


def test_rms_norm_default_eps_float32_bit_exact():
    x = R.standard_normal((16, 64)).astype(np.float32) * 1e-4
    e = ember.nn.functional.rms_norm(ember.tensor(x), (64,)).numpy()
    t = torch.nn.functional.rms_norm(torch.tensor(x), (64,)).numpy()
    np.testing.assert_allclose(e, t, rtol=2e-7, atol=0)


def test_rms_norm_errors():
    same_error(lambda m: m.nn.functional.rms_norm(m.ones(3, 4), 4))
    same_error(lambda m: m.nn.functional.rms_norm(m.ones(3, 4), (5,)))
    same_error(lambda m: m.nn.functional.rms_norm(m.ones(3, 4), (4,), m.ones(3)))


@pytest.mark.parametrize("p", [1, 2, 3])
def test_pdist(p):
    check(lambda m, x: m.nn.functional.pdist(x, p), _x(5, 3), second=False,
          same_grad_fn=False)


def test_pdist_errors():
    same_error(lambda m: m.nn.functional.pdist(m.ones(2, 3, 4)))


def test_channel_shuffle():
    x = _x(2, 6, 3, 2)
    check(lambda m, x: m.nn.functional.channel_shuffle(x, 3), x, same_grad_fn=False)
    check(lambda m, x: m.channel_shuffle(x, 2), x, same_grad_fn=False)
    same_error(lambda m: m.nn.functional.channel_shuffle(m.ones(2, 5, 3), 2))
    same_error(lambda m: m.nn.functional.channel_shuffle(m.ones(2, 6), 2))


@pytest.mark.parametrize("shape", [(2, 7, 5), (2, 6, 4, 3), (1, 5, 2, 3, 2)])
@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_local_response_norm(shape, size):
    check(lambda m, x: m.nn.functional.local_response_norm(x, size, 0.01, 0.75, 2.0), _x(*shape),
          second=False)


def test_local_response_norm_rejects_2d():
    for lib in (torch, ember):  # torch's message holds a run of spaces (a line continuation)
        with pytest.raises(ValueError, match=r"Expected 3D or higher dimensionality +input "
                                             r"\(got 2 dimensions\)"):
            lib.nn.functional.local_response_norm(lib.ones(3, 4), 2)


@pytest.mark.parametrize("name", ["alpha_dropout", "feature_alpha_dropout"])
@pytest.mark.parametrize("p", [0.2, 0.5, 1.0])
def test_alpha_dropout_matches_torch_stream(name, p):
    x = R.standard_normal((4, 5, 3)).astype(np.float32)
    out = {}
    for lib in (ember, torch):
        lib.manual_seed(11)
        t = lib.tensor(x, requires_grad=True)
        y = getattr(lib.nn.functional, name)(t, p, True)
        (y * lib.arange(60.0).reshape(4, 5, 3)).sum().backward()
        out[lib.__name__] = (y.detach().numpy(), t.grad.numpy())
        assert getattr(lib.nn.functional, name)(t, p, False) is t
    np.testing.assert_array_equal(out["ember"][0], out["torch"][0])
    np.testing.assert_array_equal(out["ember"][1], out["torch"][1])


def test_alpha_dropout_bad_p():
    same_error(lambda m: m.nn.functional.alpha_dropout(m.ones(3), 1.5, True))


def test_upsample_deprecated_forms():
    x = _x(1, 2, 3, 4)
    with pytest.warns(UserWarning, match="upsample_nearest` is deprecated"):
        check(lambda m, x: m.nn.functional.upsample_nearest(x, scale_factor=2), x,
              same_grad_fn=False)
    with pytest.warns(UserWarning, match="upsample_bilinear` is deprecated"):
        check(lambda m, x: m.nn.functional.upsample_bilinear(x, size=(5, 7)), x, second=False,
              same_grad_fn=False)
    with pytest.warns(UserWarning, match="upsample` is deprecated"):
        check(lambda m, x: m.nn.functional.upsample(x, scale_factor=2, mode="bilinear",
                                                    align_corners=False), x, second=False,
              same_grad_fn=False)


def test_max_pool_with_indices():
    x = _x(2, 3, 6, 6)
    out = {}
    for lib in (ember, torch):
        v, i = lib.nn.functional.max_pool2d_with_indices(lib.tensor(x), 3, 2, 1)
        v1, i1 = lib.nn.functional.max_pool1d_with_indices(lib.tensor(x[0]), 2)
        out[lib.__name__] = [a.numpy() for a in (v, i, v1, i1)]
    for a, b in zip(out["ember"], out["torch"]):
        np.testing.assert_array_equal(a, b)
