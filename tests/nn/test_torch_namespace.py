"""torch.X forms of nn.functional's layers and losses: same values, gradients and errors as
torch's, with torch's own argument order (torch.batch_norm, torch.embedding, integer reduction)."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

import ember
from ember.nn import _torch_namespace

R = np.random.default_rng(0)


def _x(*shape):
    return R.standard_normal(shape)


def test_every_namespace_function_is_reachable_as_ember_attribute():
    names = [n for n in dir(_torch_namespace) if not n.startswith("_") and n != "F"
             and callable(getattr(_torch_namespace, n))]
    lazy = {n for n, where in ember._LAZY_ATTRS.items() if where == "nn._torch_namespace"}
    assert set(names) - {"SAME"} == lazy
    for name in lazy:
        assert hasattr(torch, name), name
        assert getattr(ember, name) is getattr(_torch_namespace, name)


@pytest.mark.parametrize("fn", [
    lambda m, x, w, b: m.conv1d(x, w, b, 1, 1),
    lambda m, x, w, b: m.convolution(x, w, b, [2], [1], [1], False, [0], 1),
    lambda m, x, w, b: m.conv_transpose1d(x, w.transpose(0, 1), b, 2, 1, 1),
    lambda m, x, w, b: m.convolution(x, w.transpose(0, 1), b, [2], [1], [1], True, [1], 1),
])
def test_conv1d_and_convolution(fn):
    check(fn, _x(2, 3, 7), _x(4, 3, 3), _x(4), second=False)


def test_conv2d_and_convolution_2d():
    x, w, b = _x(2, 3, 6, 6), _x(4, 3, 3, 3), _x(4)
    check(lambda m, x, w, b: m.conv2d(x, w, b, padding=1), x, w, b, second=False)
    check(lambda m, x, w, b: m.convolution(x, w, b, [1, 1], [1, 1], [1, 1], False, [0, 0], 1),
          x, w, b, second=False)


def test_convolution_rejects_weight_rank():
    same_error(lambda m: m.convolution(m.ones(2, 3, 4), m.ones(3), None, [1], [0], [1], False,
                                       [0], 1))


def test_layer_group_batch_norm():
    x, w, b = _x(4, 6, 5), _x(6), _x(6)
    check(lambda m, x, w, b: m.layer_norm(x, [5], w[:5], b[:5], 1e-5, True), x, w, b)
    check(lambda m, x, w, b: m.group_norm(x, 3, w, b, 1e-5, True), x, w, b)
    rm, rv = np.zeros(6), np.ones(6)
    check(lambda m, x, w, b, rm, rv: m.batch_norm(x, w, b, rm, rv, True, 0.1, 1e-5, True),
          x, w, b, rm, rv, grad_inputs=[True, True, True, False, False])
    check(lambda m, x, w, b, rm, rv: m.batch_norm(x, w, b, rm, rv, False, 0.1, 1e-5, True),
          x, w, b, rm, rv + 0.5, grad_inputs=[True, True, True, False, False])


def test_batch_norm_updates_running_stats_as_torch():
    x = _x(8, 3)
    stats = {}
    for lib in (ember, torch):
        rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        lib.batch_norm(lib.tensor(x), None, None, rm, rv, True, 0.3, 1e-5, False)
        stats[lib.__name__] = (rm.numpy(), rv.numpy())
    np.testing.assert_allclose(stats["ember"][0], stats["torch"][0], rtol=1e-12)
    np.testing.assert_allclose(stats["ember"][1], stats["torch"][1], rtol=1e-12)


@pytest.mark.parametrize("name", ["dropout", "feature_dropout"])
def test_dropout_draws_torchs_stream(name):
    x = np.ones((4, 6, 3), np.float32)
    out = {}
    for lib in (ember, torch):
        lib.manual_seed(3)
        out[lib.__name__] = getattr(lib, name)(lib.tensor(x), 0.4, True).numpy()
        assert getattr(lib, name)(lib.tensor(x), 0.4, False).numpy().tolist() == x.tolist()
    np.testing.assert_array_equal(out["ember"], out["torch"])


@pytest.mark.parametrize("name", ["dropout_", "feature_dropout_"])
def test_inplace_dropout_writes_the_input(name):
    out = {}
    for lib in (ember, torch):
        lib.manual_seed(5)
        x = lib.ones(3, 4, 2)
        assert getattr(lib, name)(x, 0.5, True) is x
        out[lib.__name__] = x.numpy()
    np.testing.assert_array_equal(out["ember"], out["torch"])


def test_feature_dropout_needs_two_dims():
    same_error(lambda m: m.feature_dropout(m.ones(5), 0.5, True))


def test_embedding_weight_first_and_padding_idx():
    w, idx = _x(6, 3), np.array([[0, 2, 5], [2, 2, 1]])
    check(lambda m, w, i: m.embedding(w, i), w, idx, second=False)
    check(lambda m, w, i: m.embedding(w, i, 2), w, idx, second=False)


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_losses_take_integer_reduction(reduction):
    a, b, y = _x(5, 4), _x(5, 4), np.sign(_x(5))
    check(lambda m, a, b: m.kl_div(a.log_softmax(1), b.softmax(1), reduction), a, b)
    check(lambda m, a, b: m.binary_cross_entropy_with_logits(a, b.sigmoid(), None, None,
                                                             reduction), a, b)
    check(lambda m, a, b, y: m.cosine_embedding_loss(a, b, y, 0.1, reduction), a, b, y,
          grad_inputs=[True, True, False], second=False)
    check(lambda m, a, b, y: m.margin_ranking_loss(a[:, 0], b[:, 0], y, 0.2, reduction), a, b,
          y, grad_inputs=[True, True, False])
    check(lambda m, a, y: m.hinge_embedding_loss(a[:, 0], y, 1.0, reduction), a, y,
          grad_inputs=[True, False])
    check(lambda m, a, b: m.triplet_margin_loss(a, b, a.flip(0), 1.0, 2, 1e-6, False,
                                                reduction), a, b, second=False)
    check(lambda m, a, b: m.poisson_nll_loss(a, b.abs(), True, False, 1e-8, reduction), a, b)


def test_bad_integer_reduction():
    with pytest.raises(ValueError, match="reduction"):
        ember.kl_div(ember.ones(2), ember.ones(2), 3)


@pytest.mark.parametrize("name,count", [("lstm_cell", 4), ("gru_cell", 3),
                                        ("rnn_tanh_cell", 1), ("rnn_relu_cell", 1)])
def test_cells(name, count):
    x, h, c = _x(3, 5), _x(3, 4), _x(3, 4)
    wi, wh, bi, bh = _x(4 * count, 5), _x(4 * count, 4), _x(4 * count), _x(4 * count)
    if name == "lstm_cell":
        fn = lambda m, x, h, c, wi, wh, bi, bh: m.stack(  # noqa: E731
            m.lstm_cell(x, (h, c), wi, wh, bi, bh))
        check(fn, x, h, c, wi, wh, bi, bh, second=False, same_grad_fn=False)
        return
    fn = lambda m, x, h, wi, wh, bi, bh: getattr(m, name)(x, h, wi, wh, bi, bh)  # noqa: E731
    check(fn, x, h, wi, wh, bi, bh, second=False, same_grad_fn=False)


def test_same_name_forms():
    x = _x(2, 3, 8)
    check(lambda m, x: m.max_pool1d(x, 2), x, second=False)
    check(lambda m, x: m.avg_pool1d(x, 3, 2, 1), x)
    check(lambda m, x: m.adaptive_avg_pool1d(x, 3), x)
    check(lambda m, x: m.max_pool1d_with_indices(x, 3, 2)[0], x, second=False)
    check(lambda m, x: m.celu(x, 0.7), x)
    check(lambda m, x: m.selu(x), x)
    check(lambda m, x: m.hardshrink(x, 0.3), x, second=False)
    check(lambda m, x: m.threshold(x, 0.1, -2.0), x, second=False)
    check(lambda m, x: m.constant_pad_nd(x, [1, 2], 0.5), x)
    idx = {}
    for lib in (ember, torch):
        idx[lib.__name__] = lib.max_pool1d_with_indices(lib.tensor(x), 3, 2)[1].numpy()
    np.testing.assert_array_equal(idx["ember"], idx["torch"])


@pytest.mark.parametrize("fn", [
    lambda m, x: m.adaptive_max_pool1d(x, 3)[0],  # torch.X gives (values, indices) always
    lambda m, x: m.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
    lambda m, x: m.alpha_dropout(x, 0.5, False),
    lambda m, x: m.feature_alpha_dropout(x, 0.5, False),
])
def test_more_torch_forms_of_functional(fn):
    check(fn, _x(2, 3, 6), second=False, same_grad_fn=False)  # (ember composes some)
    check(lambda m, x, w, b: m.conv_tbc(x, w, b, 1), _x(6, 2, 3), _x(3, 3, 4), _x(4),
          second=False, same_grad_fn=False)


def test_adaptive_max_pool1d_indices_max_pool3d_and_ctc_loss_integer_reduction():
    x = _x(2, 3, 6)
    assert ember.adaptive_max_pool1d(ember.tensor(x), 3)[1].tolist() == \
        torch.adaptive_max_pool1d(torch.tensor(x), 3)[1].tolist()
    check(lambda m, x: m.max_pool3d(x, 2), _x(1, 2, 4, 4, 4), second=False)
    lp = _x(5, 2, 4)
    for reduction in (0, 1, 2):
        check(lambda m, lp: m.ctc_loss(lp.log_softmax(2), m.tensor([[1, 2], [3, 1]]),
                                       m.tensor([5, 5]), m.tensor([2, 2]), 0, reduction),
              lp, second=False)
