"""Convolution layers: Conv1d, Conv2d, Conv3d and the transposed ConvTranspose1d, 2d, 3d."""
import math

from ... import _creation
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module


def _ntuple(value, n):
    if isinstance(value, (tuple, list)):
        return tuple(value)
    return (value,) * n


class _ConvNd(Module):
    """Shared construction, initialisation and repr of the convolution layers."""

    _dims = 2
    transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None,
                 output_padding=0):
        super().__init__()
        n = self._dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError("padding_mode must be one of {'replicate', 'circular', 'reflect', "
                             f"'zeros'}}, but got padding_mode='{padding_mode}'")
        if self.transposed and padding_mode != "zeros":
            raise ValueError('Only "zeros" padding mode is supported for '
                             f"{type(self).__name__}")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = _ntuple(kernel_size, n), _ntuple(stride, n)
        self.dilation, self.output_padding = _ntuple(dilation, n), _ntuple(output_padding, n)
        self.padding = self._check_padding(padding)
        self.padding_mode = padding_mode
        self._reversed_padding_repeated_twice = self._pad_pairs()
        shape = ((in_channels, out_channels // groups) if self.transposed else
                 (out_channels, in_channels // groups)) + self.kernel_size
        self.weight = Parameter(_creation.empty(shape, dtype=dtype))
        if bias:
            self.bias = Parameter(_creation.empty(out_channels, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def _check_padding(self, padding):
        if not isinstance(padding, str):
            return _ntuple(padding, self._dims)
        if padding not in ("valid", "same"):
            raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                             "{'valid', 'same'}")
        if padding == "same" and any(s != 1 for s in self.stride):
            raise ValueError("padding='same' is not supported for strided convolutions")
        return padding

    def _pad_pairs(self):
        """F.pad's (left, right, top, bottom) for a non-zeros padding_mode."""
        pairs = []
        for d in reversed(range(self._dims)):
            if self.padding == "same":
                total = self.dilation[d] * (self.kernel_size[d] - 1)
                pairs += [total // 2, total - total // 2]
            elif self.padding == "valid":
                pairs += [0, 0]
            else:
                pairs += [self.padding[d]] * 2
        return pairs

    def _conv(self, fn, input):
        if self.padding_mode == "zeros":
            return fn(input, self.weight, self.bias, self.stride, self.padding, self.dilation,
                      self.groups)
        padded = F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
        return fn(padded, self.weight, self.bias, self.stride, 0, self.dilation, self.groups)

    def reset_parameters(self):
        # kaiming_uniform with a=sqrt(5): U(-1/sqrt(fan_in), 1/sqrt(fan_in)), as torch
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0,) * len(self.kernel_size):
            text += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            text += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            text += f", output_padding={self.output_padding}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L); weight (C_out, C_in/groups, k)."""

    _dims = 1

    def forward(self, input):
        return self._conv(F.conv1d, input)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W); weight (C_out, C_in/groups, kh, kw)."""

    def forward(self, input):
        return self._conv(F.conv2d, input)


class Conv3d(_ConvNd):
    """3-D convolution over (N, C_in, D, H, W); weight (C_out, C_in/groups, kd, kh, kw)."""

    _dims = 3

    def forward(self, input):
        return self._conv(F.conv3d, input)


class _ConvTransposeNd(_ConvNd):
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, device, dtype, output_padding)

    def _check_padding(self, padding):
        if isinstance(padding, str):
            raise ValueError(f'padding="{padding}" is not supported for {type(self).__name__}')
        return _ntuple(padding, self._dims)

    def _output_padding(self, input, output_size):
        """The output_padding that makes the output ``output_size`` (torch's rule)."""
        if output_size is None:
            return self.output_padding
        n = self._dims
        size = list(output_size)[-n:]
        spatial = input.shape[-n:]
        result = []
        for d in range(n):
            least = ((spatial[d] - 1) * self.stride[d] - 2 * self.padding[d] +
                     self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            if not least <= size[d] < least + self.stride[d]:
                raise ValueError(f"requested an output size of {size}, but valid sizes range "
                                 f"from {least} to {least + self.stride[d] - 1} (for an input "
                                 f"of {list(spatial)})")
            result.append(size[d] - least)
        return tuple(result)


class ConvTranspose1d(_ConvTransposeNd):
    """Transposed 1-D convolution; weight (C_in, C_out/groups, k)."""

    _dims = 1

    def forward(self, input, output_size=None):
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    """Transposed 2-D convolution; weight (C_in, C_out/groups, kh, kw)."""

    def forward(self, input, output_size=None):
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)


class ConvTranspose3d(_ConvTransposeNd):
    """Transposed 3-D convolution; weight (C_in, C_out/groups, kd, kh, kw)."""

    _dims = 3

    def forward(self, input, output_size=None):
        return F.conv_transpose3d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups,
                                  self.dilation)
