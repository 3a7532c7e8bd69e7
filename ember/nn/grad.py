"""torch.nn.grad: the gradients of a convolution with respect to its input or its weight, given
the output's gradient (the convolution's own backward, read through autograd)."""
import ember

from . import functional as F

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _conv_grad(conv, input, weight, grad_output, options, size):
    """The gradient of conv(input, weight) applied to grad_output, with respect to the operand
    given as None (its ``size`` given instead): conv is linear in each, so zeros serve there."""
    with ember.enable_grad():
        zero = ember.zeros(tuple(size), dtype=grad_output.dtype, requires_grad=True)
        other = weight if input is None else input
        out = conv(zero, weight, None, *options) if input is None else \
            conv(input, zero, None, *options)
        graph = other.requires_grad or grad_output.requires_grad
        return ember.autograd.grad(out, zero, grad_output, create_graph=graph)[0]


def _input_grad(conv, input_size, weight, grad_output, options):
    return _conv_grad(conv, None, weight, grad_output, options, input_size)


def _weight_grad(conv, input, weight_size, grad_output, options):
    return _conv_grad(conv, input, None, grad_output, options, weight_size)


def conv1d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv1d with respect to its input."""
    return _input_grad(F.conv1d, input_size, weight, grad_output,
                       (stride, padding, dilation, groups))


def conv1d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv1d with respect to its weight."""
    return _weight_grad(F.conv1d, input, weight_size, grad_output,
                        (stride, padding, dilation, groups))


def conv2d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv2d with respect to its input."""
    return _input_grad(F.conv2d, input_size, weight, grad_output,
                       (stride, padding, dilation, groups))


def conv2d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv2d with respect to its weight."""
    return _weight_grad(F.conv2d, input, weight_size, grad_output,
                        (stride, padding, dilation, groups))


def conv3d_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv3d with respect to its input."""
    return _input_grad(F.conv3d, input_size, weight, grad_output,
                       (stride, padding, dilation, groups))


def conv3d_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
    """The gradient of conv3d with respect to its weight."""
    return _weight_grad(F.conv3d, input, weight_size, grad_output,
                        (stride, padding, dilation, groups))
