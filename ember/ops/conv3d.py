"""3-D convolution as 2-D ones: the depth windows unfolded into channels, then conv.py's passes.

Channel c at depth tap j of a window becomes channel c*kD + j of a plane, one plane per output
depth, so a 3-D kernel (O, C/g, kD, kh, kw) reads as the 2-D kernel (O, C/g*kD, kh, kw) with the
same groups. Each pass of a 3-D convolution is then the matching 2-D pass between an unfold (or
its adjoint, the fold) and a reordering: conv.py's nodes run them through ``Geometry3d`` as they
run their own passes, so the graph, the bias, the transposed form and every order of derivative
are conv.py's.
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from .conv import Geometry, conv_forward, conv_grad_input, conv_grad_weight


class Geometry3d:
    """Depth stride, dilation and padding (front, back), and the 2-D Geometry of each plane."""

    lifted = True  # conv.py's passes hand a 3-D convolution to the methods below

    def __init__(self, stride, dilation, pad, groups):
        self.stride, self.dilation, self.pad = stride[0], dilation[0], pad[0]
        self.plane = Geometry(tuple(stride[1:]), tuple(dilation[1:]), tuple(pad[1:]), groups)

    def _out_depth(self, depth, k):
        return (depth + sum(self.pad) - self.dilation * (k - 1) - 1) // self.stride + 1

    def _unfold(self, x, k):
        """(N, C, D, H, W) -> (N*OD, C*k, H, W): each output depth's window as channels."""
        n, c, d, h, w = x.shape
        front, back = self.pad
        if front or back:
            padded = np.zeros((n, c, d + front + back, h, w), dtype=x.dtype)
            padded[:, :, front:front + d] = x
            x = padded
        od = self._out_depth(d, k)
        sn, sc, sd, sh, sw = x.strides
        windows = as_strided(x, (n, od, c, k, h, w),
                             (sn, sd * self.stride, sc, sd * self.dilation, sh, sw),
                             writeable=False)
        return windows.reshape(n * od, c * k, h, w)

    def _fold(self, planes, x_shape, k):
        """The adjoint of ``_unfold``: (N*OD, C*k, H, W) summed back onto (N, C, D, H, W)."""
        n, c, d, h, w = x_shape
        front, back = self.pad
        od = planes.shape[0] // n
        planes = planes.reshape(n, od, c, k, h, w)
        out = np.zeros((n, c, d + front + back, h, w), dtype=planes.dtype)
        reach = self.stride * (od - 1) + 1
        for j in range(k):
            start = j * self.dilation
            out[:, :, start:start + reach:self.stride] += planes[:, :, :, j].transpose(
                0, 2, 1, 3, 4)
        return np.ascontiguousarray(out[:, :, front:front + d])

    @staticmethod
    def _as_planes(a):
        """(N, O, OD, OH, OW) -> (N*OD, O, OH, OW)."""
        n, o, od, oh, ow = a.shape
        return a.transpose(0, 2, 1, 3, 4).reshape(n * od, o, oh, ow)

    @staticmethod
    def _as_volume(a, n):
        """(N*OD, O, OH, OW) -> (N, O, OD, OH, OW)."""
        rows = a.reshape((n, -1) + a.shape[1:])
        return np.ascontiguousarray(rows.transpose(0, 2, 1, 3, 4))

    @staticmethod
    def _plane_kernel(w_shape):
        o, cg, k = w_shape[:3]
        return (o, cg * k) + tuple(w_shape[3:])

    def forward(self, x, w, bias=None):
        """C(x, w) (+ bias)."""
        flat = w.reshape(self._plane_kernel(w.shape))
        y = conv_forward(self._unfold(x, w.shape[2]), flat, self.plane, bias=bias)
        return self._as_volume(y, x.shape[0])

    def grad_input(self, grad, w, x_shape):
        """C_x^T(grad; w)."""
        n, c, _, h, width = x_shape
        k, od = w.shape[2], grad.shape[2]
        flat = w.reshape(self._plane_kernel(w.shape))
        planes = conv_grad_input(self._as_planes(grad), flat, (n * od, c * k, h, width),
                                 self.plane)
        return self._fold(planes, x_shape, k)

    def grad_weight(self, x, grad, w_shape):
        """C_w^T(x; grad)."""
        planes = conv_grad_weight(self._unfold(x, w_shape[2]), self._as_planes(grad),
                                  self._plane_kernel(w_shape), self.plane)
        return planes.reshape(w_shape)
