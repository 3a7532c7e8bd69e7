"""The ``torch.X`` forms of nn.functional's layers and losses (``torch.conv2d``,
``torch.layer_norm``, ``torch.dropout``, ...), loaded with nn.functional on first use.

Most are nn.functional's own functions under their torch name. Where torch's namespace form
takes other arguments than nn.functional's (``torch.batch_norm``'s order, ``torch.dropout``'s
required ``train``, ``torch.embedding``'s weight first, losses' integer ``reduction``), a thin
adapter maps them onto the one nn.functional implementation.
"""
import warnings

from . import functional as F
from ._functional_loss import _REDUCTIONS
from ._functional_norm import _channel_dropout
from .modules import rnn

# torch.X is nn.functional's function under the same name and argument order
SAME = ("conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
        "conv_transpose3d", "celu", "selu", "prelu", "hardshrink", "bilinear", "threshold",
        "rrelu", "adaptive_avg_pool1d", "avg_pool1d", "max_pool1d", "max_pool2d",
        "pdist", "channel_shuffle", "max_pool1d_with_indices", "rms_norm", "celu_", "selu_",
        "threshold_", "rrelu_", "max_pool3d", "conv_tbc")


def _reduction(value):
    """torch.X losses take reduction as torch's enum (0 none, 1 mean, 2 sum)."""
    if isinstance(value, str):
        return value
    if value not in (0, 1, 2):
        raise ValueError(f"{value} is not a valid value for reduction")
    return _REDUCTIONS[value]


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def dropout(input, p, train):
    return F.dropout(input, p, train)


def dropout_(input, p, train):
    return F.dropout(input, p, train, inplace=True)


def _feature_dropout(input, p, train, inplace):
    """Whole feature maps (every dim after the first two) zeroed together, as dropout2d."""
    if input.dim() < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _channel_dropout(input, p, train, inplace, "feature_dropout")


def feature_dropout(input, p, train):
    return _feature_dropout(input, p, train, False)


def feature_dropout_(input, p, train):
    return _feature_dropout(input, p, train, True)


def adaptive_max_pool1d(input, output_size):
    """torch.adaptive_max_pool1d: (values, indices), always."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def alpha_dropout(input, p, train):
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train):
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=1,
             zero_infinity=False):
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      _reduction(reduction), zero_infinity)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    padding = None if padding_idx is None or padding_idx < 0 else padding_idx
    return F.embedding(indices, weight, padding, scale_grad_by_freq=scale_grad_by_freq,
                       sparse=sparse)


def constant_pad_nd(input, pad, value=0):
    return F.pad(input, pad, "constant", value)


def kl_div(input, target, reduction=1, log_target=False):
    with warnings.catch_warnings():  # torch.kl_div's 'mean' is the op's own: no advice given
        warnings.simplefilter("ignore", UserWarning)
        return F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=1):
    return F.binary_cross_entropy_with_logits(input, target, weight,
                                              reduction=_reduction(reduction),
                                              pos_weight=pos_weight)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=1):
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_reduction(reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=1):
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=1):
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction=1):
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction(reduction))


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """torch.convolution: the conv (or transposed conv) of weight's rank, every argument given."""
    dims = weight.dim() - 2
    if dims < 1:
        raise RuntimeError("weight should have at least three dimensions")
    if dims > 3:
        raise RuntimeError(f"convolution: expected a 3D, 4D or 5D weight, got weight of size "
                           f"{list(weight.shape)}")
    if transposed:
        conv = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[dims - 1]
        return conv(input, weight, bias, stride, padding, output_padding, groups, dilation)
    conv = (F.conv1d, F.conv2d, F.conv3d)[dims - 1]
    return conv(input, weight, bias, stride, padding, dilation, groups)


def _cell(cell, input, hx, w_ih, w_hh, b_ih, b_hh):
    step = {"lstm": rnn._lstm_step, "gru": rnn._gru_step, "tanh": rnn._rnn_step,
            "relu": rnn._rnn_step}[cell]
    h = hx[0] if cell == "lstm" else hx
    gates = F.linear(input, w_ih, b_ih), F.linear(h, w_hh, b_hh)
    if cell == "lstm":
        return step(*gates, tuple(hx), "LSTM")[1]
    return step(*gates, hx, {"gru": "GRU", "tanh": "RNN_TANH", "relu": "RNN_RELU"}[cell])[0]


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step on 2-D input: (h', c') from hx = (h, c)."""
    return _cell("lstm", input, hx, w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _cell("gru", input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _cell("tanh", input, hx, w_ih, w_hh, b_ih, b_hh)


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return _cell("relu", input, hx, w_ih, w_hh, b_ih, b_hh)


for _name in SAME:
    globals()[_name] = getattr(F, _name)
native_channel_shuffle = F.native_channel_shuffle
