"""torch.fft: discrete Fourier transforms (NumPy's pocketfft) with their gradients.

Three primitives, named as torch's nodes: complex-to-complex (fft, ifft, fftn, ...), real-to-
complex (rfft, and fft of a real tensor) and complex-to-real (irfft, hfft). Each transform is a
linear map A; its gradient in torch's convention is the adjoint A^H g: the opposite direction
with the dual normalization ("backward" <-> "forward", "ortho" stays).
"""
import numpy as np

from . import _dtype
from ._tensor import Tensor, wrap_dim
from .autograd.graph import Node
from .ops.api import to_dtype
from .ops.complex_ops import conj
from .ops.matrix_ops import roll
from .ops.pad_ops import ConstantPadNdBackward0

_DUAL = {"backward": "forward", "forward": "backward", "ortho": "ortho"}


class FftC2CBackward0(Node):
    """out = DFT of complex x over ``dims`` (inverse if not forward);  dx = A^H g."""

    complex_aware = True

    def forward(self, x, dims, norm, forward):
        self.dims, self.norm, self.forward_ = dims, norm, forward
        return (np.fft.fftn if forward else np.fft.ifftn)(x._data, axes=dims, norm=norm)

    def backward(self, m, g):
        if m.is_graph:
            return (FftC2CBackward0.apply(g, self.dims, _DUAL[self.norm], not self.forward_),)
        fn = np.fft.ifftn if self.forward_ else np.fft.fftn
        return (fn(g, axes=self.dims, norm=_DUAL[self.norm]),)


class FftR2CBackward0(Node):
    """out = DFT of real x over ``dims`` (only the n//2 + 1 non-negative frequencies of the
    last dim when onesided);  dx = Re(A^H g), g zero-padded to the full spectrum first."""

    complex_aware = True

    def forward(self, x, dims, norm, onesided):
        self.dims, self.norm, self.length = dims, norm, x._data.shape[dims[-1]]
        if onesided:
            return np.fft.rfftn(x._data, axes=dims, norm=norm)
        return np.fft.fftn(x._data, axes=dims, norm=norm).astype(_complex_of(x._data.dtype))

    def backward(self, m, g):
        last = self.dims[-1]
        missing = self.length - g.shape[last]
        if missing:
            g = _resize(m, g, last, self.length)
        if m.is_graph:
            return (FftC2CBackward0.apply(g, self.dims, _DUAL[self.norm], False).real,)
        return (np.fft.ifftn(g, axes=self.dims, norm=_DUAL[self.norm]).real,)


class FftC2RBackward0(Node):
    """out = the real signal of length ``length`` whose one-sided spectrum (Hermitian) is x;
    dx = rfft(g) with the dual normalization, the bins that stand for two doubled."""

    complex_aware = True

    def forward(self, x, dims, norm, length):
        self.dims, self.norm = dims, norm
        sizes = [x._data.shape[d] for d in dims[:-1]] + [length]
        return np.fft.irfftn(x._data, s=sizes, axes=dims, norm=norm)

    def backward(self, m, g):
        if m.is_graph:
            grad = FftR2CBackward0.apply(g, self.dims, _DUAL[self.norm], True)
        else:
            grad = np.fft.rfftn(g, axes=self.dims, norm=_DUAL[self.norm])
        last = self.dims[-1]
        doubled = g.shape[last] - grad.shape[last]
        if doubled > 0:
            scale = np.ones(grad.shape[last], _dtype.to_numpy_dtype(g.dtype))
            scale[1:1 + doubled] = 2
            scale = scale.reshape((-1,) + (1,) * (grad.ndim - 1 - last))
            grad = grad * (Tensor._make(scale) if m.is_graph else scale)
        return (grad,)


def _complex_of(np_dtype):
    return np.complex64 if np_dtype == np.float32 else np.complex128


def _resize(m, g, dim, size):
    """g zero-padded (or cut) to ``size`` along ``dim``: the gradient's own op on tensors."""
    if m.is_graph:
        return _pad_to(g, dim, size)
    widths = [(0, 0)] * g.ndim
    widths[dim] = (0, size - g.shape[dim])
    return np.pad(g, widths)


def _pad_to(x, dim, size):
    n = x._data.shape[dim]
    if n == size:
        return x
    pad = [0, 0] * (x.ndim - 1 - dim) + [0, size - n]
    return ConstantPadNdBackward0.apply(x, pad)


# ---------------------------------------------------------------- argument checks
def _norm(norm):
    norm = "backward" if norm is None else norm
    if norm not in _DUAL:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm


def _dims(input, dim, s, c2r=False):
    """The transformed dims (torch's defaults: the last len(s) dims, else all) and sizes
    (``c2r``: the last one's size is checked by the caller, from the input's)."""
    ndim = input._data.ndim
    if dim is None:
        dims = list(range(ndim - len(s), ndim)) if s is not None else list(range(ndim))
    else:
        dims = [dim] if isinstance(dim, int) else list(dim)
        if s is not None and len(s) != len(dims):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
        if ndim == 0 and dims:
            raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
        dims = [wrap_dim(d, ndim) for d in dims]
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    sizes = list(s) if s is not None else [None] * len(dims)
    for d, n in list(zip(dims, sizes))[:len(dims) - c2r]:
        n = input._data.shape[d] if n in (None, -1) else n  # (an empty dim too: not NumPy's
        if n < 1:  # ValueError)
            raise RuntimeError(f"Invalid number of data points ({n}) specified")
    return tuple(dims), sizes


def _floating(input, complex_result):
    """A float or complex input for the transform: integers as the default dtype."""
    kind = input._data.dtype.kind
    if input._data.dtype == np.float16 or input._data.dtype.kind == "V":
        raise RuntimeError(f"Unsupported dtype {input.dtype.scalar_name}")
    if kind in "biu":
        input = to_dtype(input, _dtype.get_default_dtype())
    if complex_result and input._data.dtype.kind == "f":
        input = to_dtype(input, input.dtype.to_complex())
    return input


def _resized(input, dims, sizes):
    for d, n in zip(dims, sizes):
        if n is not None and n != -1:
            input = _pad_to(input, d, n)
    return input


# ---------------------------------------------------------------- the transforms
def _c2c(input, s, dim, norm, forward):
    dims, sizes = _dims(input, dim, s)
    norm = _norm(norm)
    if input._data.dtype.kind != "c" and forward:  # a real signal: torch's r2c, two-sided
        input = _resized(_floating(input, False), dims, sizes)
        return FftR2CBackward0.apply(input, dims, norm, False)
    input = _resized(_floating(input, True), dims, sizes)
    return FftC2CBackward0.apply(input, dims, norm, forward)


def _r2c(input, s, dim, norm, name):
    if input._data.dtype.kind == "c":
        raise RuntimeError(f"{name} expects a real input tensor, but got "
                           f"{input.dtype.scalar_name}")
    dims, sizes = _dims(input, dim, s)
    input = _resized(_floating(input, False), dims, sizes)
    return FftR2CBackward0.apply(input, dims, _norm(norm), True)


def _c2r(input, s, dim, norm):
    dims, sizes = _dims(input, dim, s, c2r=True)
    norm = _norm(norm)
    input = _floating(input, True)
    last = sizes[-1] if sizes[-1] not in (None, -1) else 2 * (input._data.shape[dims[-1]] - 1)
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    input = _resized(input, dims, sizes[:-1] + [last // 2 + 1])
    return FftC2RBackward0.apply(input, dims, norm, last)


def _one(n):
    return None if n is None else (n,)


def fft(input, n=None, dim=-1, norm=None):
    """The 1-D discrete Fourier transform along ``dim`` (zero-padded or cut to ``n``)."""
    return _c2c(input, _one(n), (dim,), norm, True)


def ifft(input, n=None, dim=-1, norm=None):
    """The inverse of ``fft``."""
    return _c2c(input, _one(n), (dim,), norm, False)


def fft2(input, s=None, dim=(-2, -1), norm=None):
    """The 2-D transform over ``dim``."""
    return _c2c(input, s, dim, norm, True)


def ifft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of ``fft2``."""
    return _c2c(input, s, dim, norm, False)


def fftn(input, s=None, dim=None, norm=None):
    """The N-D transform over ``dim`` (default: the last len(s) dims, else all)."""
    return _c2c(input, s, dim, norm, True)


def ifftn(input, s=None, dim=None, norm=None):
    """The inverse of ``fftn``."""
    return _c2c(input, s, dim, norm, False)


def rfft(input, n=None, dim=-1, norm=None):
    """The transform of a real signal: the n//2 + 1 non-negative frequencies."""
    return _r2c(input, _one(n), (dim,), norm, "rfft")


def irfft(input, n=None, dim=-1, norm=None):
    """The real signal (length ``n``, default 2 (m - 1)) of a one-sided spectrum."""
    return _c2r(input, _one(n), (dim,), norm)


def rfft2(input, s=None, dim=(-2, -1), norm=None):
    """``rfftn`` over two dims."""
    return _r2c(input, s, dim, norm, "rfftn")


def irfft2(input, s=None, dim=(-2, -1), norm=None):
    """The inverse of ``rfft2``."""
    return _c2r(input, s, dim, norm)


def rfftn(input, s=None, dim=None, norm=None):
    """The N-D transform of a real signal, one-sided along the last of ``dim``."""
    return _r2c(input, s, dim, norm, "rfftn")


def irfftn(input, s=None, dim=None, norm=None):
    """The inverse of ``rfftn``."""
    return _c2r(input, s, dim, norm)


def hfft(input, n=None, dim=-1, norm=None):
    """The real spectrum of a Hermitian-symmetric signal given by its first half."""
    return _c2r(conj(_floating(input, True)), _one(n), (dim,), _DUAL[_norm(norm)])


def ihfft(input, n=None, dim=-1, norm=None):
    """The inverse of ``hfft``: the first half of a Hermitian signal's spectrum."""
    return conj(_r2c(input, _one(n), (dim,), _DUAL[_norm(norm)], "ihfft"))


# ---------------------------------------------------------------- helpers
def fftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    """The sample frequencies of an n-point transform: [0, 1, ..., -(n//2), ..., -1] / (d n)."""
    steps = np.arange(n)
    steps[(n + 1) // 2:] -= n
    return _frequencies(steps, n, d, dtype, requires_grad)


def rfftfreq(n, d=1.0, *, dtype=None, layout=None, device=None, requires_grad=False):
    """The non-negative sample frequencies of an n-point real transform."""
    return _frequencies(np.arange(n // 2 + 1), n, d, dtype, requires_grad)


def _frequencies(steps, n, d, dtype, requires_grad):
    npd = _dtype.to_numpy_dtype(dtype if dtype is not None else _dtype.get_default_dtype())
    out = Tensor._make(steps.astype(npd) * npd.type(1.0 / (n * d)))
    return out.requires_grad_(True) if requires_grad else out


def fftshift(input, dim=None):
    """Roll the zero frequency to the centre of ``dim`` (default: every dim)."""
    dims = range(input.ndim) if dim is None else [dim] if isinstance(dim, int) else dim
    dims = [wrap_dim(d, input.ndim) for d in dims]
    return roll(input, [input.shape[d] // 2 for d in dims], dims)


def ifftshift(input, dim=None):
    """The inverse of ``fftshift``."""
    dims = range(input.ndim) if dim is None else [dim] if isinstance(dim, int) else dim
    dims = [wrap_dim(d, input.ndim) for d in dims]
    return roll(input, [(input.shape[d] + 1) // 2 for d in dims], dims)
