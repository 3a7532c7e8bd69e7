"""OpInfo entries for the differentiable ops of ember.nn.functional (activations, layers,
normalization, pooling, attention and losses)."""
import numpy as np
from opinfo import OpInfo, Sample, _gen


def F(L):
    return L.nn.functional


def _activation_ops():
    real, _ = _gen("activation")
    samples = [Sample((real(3, 4) * 3,), "2d"), Sample((real(2, 3, 2) * 3,), "3d"),
               Sample((np.array([-40.0, -1.0, 0.5, 40.0]),), "large", fd=False),
               Sample((np.zeros((0, 3)),), "empty")]
    table = {
        "softmax": lambda L, x: F(L).softmax(x, dim=-1),
        "log_softmax": lambda L, x: F(L).log_softmax(x, dim=0),
        "softmin": lambda L, x: F(L).softmin(x, dim=-1),
        "gelu": lambda L, x: F(L).gelu(x), "gelu_tanh": lambda L, x: F(L).gelu(x, approximate="tanh"),
        "silu": lambda L, x: F(L).silu(x), "elu": lambda L, x: F(L).elu(x, alpha=0.7),
        "celu": lambda L, x: F(L).celu(x), "selu": lambda L, x: F(L).selu(x),
        "leaky_relu": lambda L, x: F(L).leaky_relu(x, 0.1), "softplus": lambda L, x: F(L).softplus(x),
        "mish": lambda L, x: F(L).mish(x), "hardtanh": lambda L, x: F(L).hardtanh(x),
        "relu6": lambda L, x: F(L).relu6(x), "logsigmoid": lambda L, x: F(L).logsigmoid(x),
        "hardsigmoid": lambda L, x: F(L).hardsigmoid(x), "hardswish": lambda L, x: F(L).hardswish(x),
        "softsign": lambda L, x: F(L).softsign(x), "tanhshrink": lambda L, x: F(L).tanhshrink(x),
        "softshrink": lambda L, x: F(L).softshrink(x, 0.5),
        "hardshrink": lambda L, x: F(L).hardshrink(x, 0.5),
        "threshold": lambda L, x: F(L).threshold(x, 0.1, -2.0),
        "glu": lambda L, x: F(L).glu(x, dim=-1),
        "normalize": lambda L, x: F(L).normalize(x, dim=-1),
    }
    ops = [OpInfo("F." + n, f, list(samples)) for n, f in table.items()]
    for op in ops:
        op.gradgrad = op.name != "F.hardsigmoid"  # torch has no double backward for it
        if op.name in ("F.glu",):  # needs an even last dim
            op.samples = [s for s in op.samples if s.tag in ("2d", "3d")]
        if op.name == "F.normalize":
            op.samples = op.samples[:2]
    return ops


def _layer_ops():
    real, _ = _gen("layers")
    return [
        OpInfo("F.linear", lambda L, x, w, b: F(L).linear(x, w, b),
               [Sample((real(2, 3), real(4, 3), real(4)), "2d"),
                Sample((real(2, 2, 3), real(4, 3), real(4)), "batched")]),
        OpInfo("F.bilinear", lambda L, x, y, w: F(L).bilinear(x, y, w),
               [Sample((real(2, 3), real(2, 2), real(2, 3, 2)), "2d")]),
        OpInfo("F.conv1d", lambda L, x, w, b: F(L).conv1d(x, w, b, padding=1),
               [Sample((real(2, 2, 5), real(3, 2, 3), real(3)), "pad1")]),
        OpInfo("F.conv2d", lambda L, x, w: F(L).conv2d(x, w, stride=2, padding=1),
               [Sample((real(1, 2, 5, 5), real(2, 2, 3, 3)), "stride2")]),
        OpInfo("F.conv2d_groups", lambda L, x, w: F(L).conv2d(x, w, groups=2, dilation=2),
               [Sample((real(1, 4, 5, 5), real(2, 2, 2, 2)), "groups")]),
        OpInfo("F.conv_transpose2d", lambda L, x, w: F(L).conv_transpose2d(x, w, stride=2),
               [Sample((real(1, 2, 3, 3), real(2, 1, 2, 2)), "stride2")]),
        OpInfo("F.conv_transpose1d", lambda L, x, w: F(L).conv_transpose1d(x, w, padding=1),
               [Sample((real(1, 2, 4), real(2, 3, 3)), "pad1")]),
        OpInfo("F.max_pool2d", lambda L, x: F(L).max_pool2d(x, 2),
               [Sample((real(1, 2, 4, 4),), "2x2")]),
        OpInfo("F.max_pool1d", lambda L, x: F(L).max_pool1d(x, 3, stride=2, padding=1),
               [Sample((real(2, 2, 7),), "pad")]),
        OpInfo("F.avg_pool2d", lambda L, x: F(L).avg_pool2d(x, 2, stride=1),
               [Sample((real(1, 2, 4, 4),), "stride1")]),
        OpInfo("F.adaptive_avg_pool2d", lambda L, x: F(L).adaptive_avg_pool2d(x, (2, 3)),
               [Sample((real(1, 2, 5, 4),), "uneven")]),
        OpInfo("F.embedding", lambda L, w: F(L).embedding(L.tensor([[0, 2], [2, 2]]), w),
               [Sample((real(4, 3),), "repeats")]),
        OpInfo("F.pad", lambda L, x: F(L).pad(x, (1, 2, 0, 1)), [Sample((real(2, 3),), "2d")]),
        OpInfo("F.pad_reflect", lambda L, x: F(L).pad(x, (2, 1), mode="reflect"),
               [Sample((real(1, 2, 4),), "reflect")]),
        OpInfo("F.cosine_similarity", lambda L, x, y: F(L).cosine_similarity(x, y),
               [Sample((real(3, 4), real(3, 4)), "2d")]),
        OpInfo("F.pairwise_distance", lambda L, x, y: F(L).pairwise_distance(x, y),
               [Sample((real(3, 4), real(3, 4)), "2d")]),
        OpInfo("F.prelu", lambda L, x, w: F(L).prelu(x, w),
               [Sample((real(2, 3, 2), real(3)), "channels")]),
        OpInfo("F.sdpa", lambda L, q, k, v: F(L).scaled_dot_product_attention(q, k, v),
               [Sample((real(1, 3, 4), real(1, 5, 4), real(1, 5, 2)), "cross")]),
        OpInfo("F.sdpa_causal", lambda L, q: F(L).scaled_dot_product_attention(
            q, q * 2, q, is_causal=True), [Sample((real(1, 2, 4, 3),), "self")],
               gradgrad=False),  # torch has no double backward for its fused CPU attention
    ]


def _norm_ops():
    real, pos = _gen("norms")
    return [
        OpInfo("F.layer_norm", lambda L, x, w, b: F(L).layer_norm(x, (4,), w, b),
               [Sample((real(3, 4), pos(4), real(4)), "affine")]),
        OpInfo("F.group_norm", lambda L, x, w, b: F(L).group_norm(x, 2, w, b),
               [Sample((real(2, 4, 3), pos(4), real(4)), "affine")]),
        OpInfo("F.batch_norm_train", lambda L, x, w, b: F(L).batch_norm(
            x, None, None, w, b, training=True), [Sample((real(4, 3), pos(3), real(3)), "2d"),
                                                  Sample((real(2, 3, 2), pos(3), real(3)), "3d")]),
        OpInfo("F.batch_norm_eval", lambda L, x: F(L).batch_norm(
            x, L.tensor([0.1, -0.2, 0.0], dtype=x.dtype), L.tensor([1.5, 0.5, 1.0], dtype=x.dtype),
            training=False), [Sample((real(4, 3),), "2d")]),
    ]


def _loss_ops():
    real, pos = _gen("losses")
    target = np.array([1, 0, 3])
    pair = [Sample((real(3, 4), real(3, 4)), "same")]
    probs = [Sample((pos(3, 4, low=0.1, high=0.9), pos(3, 4, low=0.0, high=1.0)), "probs")]
    ops = [
        OpInfo("F.cross_entropy", lambda L, x: F(L).cross_entropy(x, L.tensor(target)),
               [Sample((real(3, 4),), "2d"), Sample((real(3, 4) * 50,), "large", fd=False)]),
        OpInfo("F.cross_entropy_opts", lambda L, x: F(L).cross_entropy(
            x, L.tensor(target), label_smoothing=0.1, ignore_index=0), [Sample((real(3, 4),), "2d")]),
        OpInfo("F.cross_entropy_probs", lambda L, x, p: F(L).cross_entropy(x, F(L).softmax(p, -1)),
               pair),
        OpInfo("F.nll_loss", lambda L, x: F(L).nll_loss(x, L.tensor(target), reduction="sum"),
               [Sample((real(3, 4),), "2d")]),
        OpInfo("F.mse_loss", lambda L, x, y: F(L).mse_loss(x, y), pair),
        OpInfo("F.l1_loss", lambda L, x, y: F(L).l1_loss(x, y, reduction="sum"), pair),
        OpInfo("F.smooth_l1_loss", lambda L, x, y: F(L).smooth_l1_loss(x, y, beta=0.5), pair),
        OpInfo("F.huber_loss", lambda L, x, y: F(L).huber_loss(x, y, delta=0.7), pair),
        OpInfo("F.binary_cross_entropy", lambda L, x, y: F(L).binary_cross_entropy(x, y), probs),
        OpInfo("F.bce_with_logits", lambda L, x, y: F(L).binary_cross_entropy_with_logits(
            x, y.sigmoid()), pair),
        OpInfo("F.kl_div", lambda L, x, y: F(L).kl_div(F(L).log_softmax(x, -1), F(L).softmax(y, -1),
                                                      reduction="batchmean"), pair),
        OpInfo("F.margin_ranking_loss", lambda L, x, y: F(L).margin_ranking_loss(
            x, y, L.tensor([1.0, -1.0, 1.0], dtype=x.dtype), margin=0.1),
            [Sample((real(3), real(3)), "1d")]),
        OpInfo("F.cosine_embedding_loss", lambda L, x, y: F(L).cosine_embedding_loss(
            x, y, L.tensor([1.0, -1.0, 1.0], dtype=x.dtype)), [Sample((real(3, 4), real(3, 4)), "2d")]),
    ]
    return ops


NN_OPS = _activation_ops() + _layer_ops() + _norm_ops() + _loss_ops()
