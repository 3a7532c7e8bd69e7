"""Conv1d/Conv2d/ConvTranspose1d/2d modules vs torch: outputs, gradients, state, init, errors."""
import math

import numpy as np
import pytest
import torch
from layer_oracle import check_init_bounds, check_module, rand

import ember


@pytest.mark.parametrize("args,kw,shape", [
    ((3, 6, 3), {}, (2, 3, 8, 7)),
    ((4, 6, (3, 2)), dict(stride=2, padding=1, dilation=(2, 1), groups=2), (2, 4, 9, 9)),
    ((3, 4, 3), dict(padding="same", bias=False), (2, 3, 6, 6)),
    ((3, 4, 3), dict(padding="valid"), (3, 6, 6)),
])
def test_conv2d(args, kw, shape):
    check_module(lambda lib: lib.nn.Conv2d(*args, **kw).double(), rand(*shape))


@pytest.mark.parametrize("args,kw", [((3, 6, 3), {}), ((4, 2, 3), dict(stride=2, padding=2,
                                                                       groups=2))])
def test_conv1d(args, kw):
    check_module(lambda lib: lib.nn.Conv1d(*args, **kw).double(), rand(2, args[0], 11))


@pytest.mark.parametrize("kw", [{}, dict(stride=2, padding=1, output_padding=1),
                                dict(stride=2, groups=2, dilation=2, bias=False)])
def test_conv_transpose2d(kw):
    check_module(lambda lib: lib.nn.ConvTranspose2d(4, 6, 3, **kw).double(), rand(2, 4, 5, 5))


def test_conv_transpose2d_output_size():
    check_module(lambda lib: _OutputSize(lib), rand(2, 4, 5, 5))
    with pytest.raises(ValueError, match="requested an output size of"):
        ember.nn.ConvTranspose2d(4, 6, 3, stride=2)(ember.zeros(1, 4, 5, 5), output_size=[20, 20])


class _OutputSize:
    def __new__(cls, lib):
        class Wrap(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.up = lib.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1).double()

            def forward(self, x):
                return self.up(x, output_size=[10, 10])
        return Wrap()


def test_conv_transpose1d():
    check_module(lambda lib: lib.nn.ConvTranspose1d(3, 2, 3, stride=2).double(), rand(2, 3, 6))


def test_conv2d_float32():
    check_module(lambda lib: lib.nn.Conv2d(3, 8, 5, padding=2), rand(4, 3, 12, 12,
                 dtype=np.float32), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("cls,args", [("Conv2d", (6, 8, (3, 5))), ("Conv1d", (4, 6, 3)),
                                      ("ConvTranspose2d", (6, 4, 3))])
def test_default_init_bounds(cls, args):
    ember.manual_seed(0)
    layer = getattr(ember.nn, cls)(*args)
    fan_in = layer.weight.shape[1] * math.prod(layer.weight.shape[2:])
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform(a=sqrt(5)) gives the same bound as bias
    check_init_bounds(layer.weight, bound)
    assert np.abs(layer.bias.detach().numpy()).max() <= bound
    assert layer.weight.shape == getattr(torch.nn, cls)(*args).weight.shape


def test_repr_matches_torch():
    for args, kw in [((1, 6, 5), {}), ((4, 6, 3), dict(stride=2, padding=1, groups=2,
                                                      bias=False, dilation=2))]:
        assert repr(ember.nn.Conv2d(*args, **kw)) == repr(torch.nn.Conv2d(*args, **kw))
    assert repr(ember.nn.ConvTranspose2d(4, 6, 3, stride=2, output_padding=1)) == \
        repr(torch.nn.ConvTranspose2d(4, 6, 3, stride=2, output_padding=1))


def test_wrong_channel_count():
    with pytest.raises(RuntimeError, match=r"Given groups=1, weight of size \[6, 3, 5, 5\], "
                                           r"expected input\[2, 4, 8, 8\] to have 3 channels, "
                                           "but got 4 channels instead"):
        ember.nn.Conv2d(3, 6, 5)(ember.zeros(2, 4, 8, 8))


@pytest.mark.parametrize("kw,message", [
    (dict(groups=2, in_channels=3), "in_channels must be divisible by groups"),
    (dict(padding="full"), "Invalid padding string 'full'"),
    (dict(stride=2, padding="same"), "padding='same' is not supported for strided"),
])
def test_constructor_errors(kw, message):
    args = dict(in_channels=4, out_channels=6, kernel_size=3) | kw
    for lib in (torch, ember):
        with pytest.raises(ValueError, match=message):
            lib.nn.Conv2d(**args)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("padding", [1, (2, 1), "same"])
def test_padding_modes(mode, padding):
    e_mod, t_mod = check_module(lambda lib: lib.nn.Conv2d(2, 3, 3, padding=padding,
                                                          padding_mode=mode).double(),
                                rand(2, 2, 6, 7))
    assert repr(e_mod) == repr(t_mod)


def test_padding_mode_errors():
    with pytest.raises(ValueError, match="padding_mode must be one of"):
        ember.nn.Conv2d(2, 3, 3, padding_mode="foo")
    with pytest.raises(ValueError, match='Only "zeros" padding mode is supported for '
                                         "ConvTranspose2d"):
        ember.nn.ConvTranspose2d(2, 3, 3, padding_mode="reflect")


@pytest.mark.parametrize("kw", [{}, dict(stride=(1, 2, 2), padding=(1, 0, 2), dilation=2),
                                dict(padding="same", groups=2, bias=False),
                                dict(padding=1, padding_mode="reflect"),
                                dict(padding=(1, 2, 1), padding_mode="replicate"),
                                dict(padding="same", padding_mode="circular")])
def test_conv3d(kw):
    e_mod, t_mod = check_module(lambda lib: lib.nn.Conv3d(4, 6, 3, **kw).double(),
                                rand(2, 4, 5, 6, 7))
    assert repr(e_mod) == repr(t_mod)


def test_conv3d_float32():
    check_module(lambda lib: lib.nn.Conv3d(3, 4, (2, 3, 3), padding=1), rand(
        2, 3, 4, 6, 6, dtype=np.float32), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("kw", [{}, dict(stride=2, padding=1, output_padding=1),
                                dict(stride=(2, 1, 2), groups=2, dilation=(1, 2, 1),
                                     bias=False)])
def test_conv_transpose3d(kw):
    e_mod, t_mod = check_module(lambda lib: lib.nn.ConvTranspose3d(4, 6, 3, **kw).double(),
                                rand(2, 4, 3, 4, 3))
    assert repr(e_mod) == repr(t_mod)


def test_conv3d_init_bounds_and_output_size():
    ember.manual_seed(0)
    layer = ember.nn.Conv3d(4, 6, (2, 3, 3))
    bound = 1 / math.sqrt(4 * 2 * 3 * 3)
    check_init_bounds(layer.weight, bound)
    assert layer.weight.shape == torch.nn.Conv3d(4, 6, (2, 3, 3)).weight.shape
    up = ember.nn.ConvTranspose3d(2, 3, 3, stride=2, padding=1)
    assert up(ember.zeros(1, 2, 4, 4, 4), output_size=[8, 8, 8]).shape == (1, 3, 8, 8, 8)
