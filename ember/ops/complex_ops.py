"""Complex numbers: real/imag views, view_as_real/view_as_complex, complex, polar, conj, angle.

Their backward formulas follow torch's convention (see ember.autograd._complex): the gradient
with respect to z = x + iy is dL/dx + i dL/dy. Ops with a complex output from real inputs set
``complex_aware``: their backward receives torch's gradient as it is.
"""
import numpy as np

from .._dtype import of_numpy
from .._tensor import Tensor
from ..autograd.graph import Node
from . import reduction as R
from .api import clone, to_dtype
from .shape import as_view

_ITEM_REAL = {np.dtype(np.complex64): np.dtype(np.float32),
              np.dtype(np.complex128): np.dtype(np.float64)}
_ITEM_COMPLEX = {v: k for k, v in _ITEM_REAL.items()}


class _Interface:
    """An array-interface holder: NumPy builds a view of any dtype and strides over its memory,
    keeping ``owner`` (the array whose memory it is) alive."""

    def __init__(self, owner, dtype, shape, strides):
        self.owner = owner
        self.__array_interface__ = {
            "shape": shape, "typestr": dtype.str, "strides": strides, "version": 3,
            "data": (owner.__array_interface__["data"][0], not owner.flags.writeable)}


def _reinterpret(array, dtype, shape, strides):
    return np.asarray(_Interface(array, np.dtype(dtype), tuple(shape), tuple(strides)))


def _name(array):
    return of_numpy(array.dtype).scalar_name


def _is_conj(t):
    return t.__dict__.get("_conj", False) if isinstance(t, Tensor) else False


# ---------------------------------------------------------------- real and imaginary parts
class RealBackward0(Node):
    """out = Re z (a view);  dz = g + 0i."""

    complex_aware = True

    def forward(self, z):
        self.dtype = z._data.dtype
        return z._data.real

    def backward(self, m, g):
        return (g.astype(self.dtype) if not m.is_graph else m.complex(g, m.zeros_like(g)),)


class ImagBackward0(Node):
    """out = Im z (a view);  dz = 0 + ig."""

    complex_aware = True

    def forward(self, z):
        self.dtype = z._data.dtype
        return z._data.imag

    def backward(self, m, g):
        if m.is_graph:
            return (m.complex(m.zeros_like(g), g),)
        out = np.zeros(g.shape, self.dtype)
        out.imag = g
        return (out,)


def complex_var(input, dim, correction, keepdim, root=False):
    """var (std with ``root``) of a complex tensor: the variances of its real and imaginary
    parts added (|z - mean|^2 summed), a real result as torch's."""
    parts = [R.VarBackward0.apply(part, dim=dim, correction=correction, keepdim=keepdim)
             for part in (real(input), imag(input))]
    total = parts[0] + parts[1]
    return total.sqrt() if root else total


def complex_logsumexp(input, dim, keepdim=False):
    """log(sum(exp(z))) of complex z, shifted by the largest real part for stability."""
    top = input.real.detach().amax(dim, keepdim=True)
    top = top.where(top.isfinite(), top.new_zeros(()))
    out = (input - top).exp().sum(dim, keepdim=True).log() + top
    return out if keepdim else out.squeeze(dim)


def real(input):
    """The real part of a complex tensor, as a view (writes reach the tensor); a real tensor
    is returned as it is."""
    if input._data.dtype.kind != "c":
        return input
    return as_view(RealBackward0.apply(input), input)


def imag(input):
    """The imaginary part of a complex tensor, as a view."""
    if input._data.dtype.kind != "c":
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return as_view(ImagBackward0.apply(input), input)


# ---------------------------------------------------------------- views between the two
class ViewAsRealBackward0(Node):
    """out[..., 0] = Re z, out[..., 1] = Im z (a view);  dz = g[..., 0] + i g[..., 1]."""

    complex_aware = True

    def forward(self, z):
        x = z._data
        part = x.real
        return _reinterpret(x, part.dtype, x.shape + (2,), x.strides + (part.itemsize,))

    def backward(self, m, g):
        if m.is_graph:
            return (m.view_as_complex(g.contiguous()),)
        return (_as_complex(np.ascontiguousarray(g)),)


class ViewAsComplexBackward0(Node):
    """out = x[..., 0] + i x[..., 1] (a view);  dx = [Re g, Im g] stacked last."""

    complex_aware = True

    def forward(self, x):
        return _as_complex(x._data)

    def backward(self, m, g):
        if m.is_graph:
            return (m.view_as_real(g),)
        return (_as_real(g),)


def _as_real(x):
    part = x.real
    return _reinterpret(x, part.dtype, x.shape + (2,), x.strides + (part.itemsize,))


def _as_complex(x):
    return _reinterpret(x, _ITEM_COMPLEX[x.dtype], x.shape[:-1], x.strides[:-1])


def view_as_real(input):
    """A real view of a complex tensor with a last dimension of 2: (real, imaginary)."""
    if input._data.dtype.kind != "c":
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if _is_conj(input):
        raise RuntimeError(
            "view_as_real doesn't work on unresolved conjugated tensors.  To resolve the "
            "conjugate tensor so you can view it as real, use self.resolve_conj(); however, be "
            "warned that the resulting tensor will NOT alias the original.")
    return as_view(ViewAsRealBackward0.apply(input), input)


def view_as_complex(input):
    """A complex view of a float tensor whose last dimension (of 2) holds (real, imaginary)."""
    _check_complex_view(input)
    return as_view(ViewAsComplexBackward0.apply(input), input)


def _check_complex_view(input):
    x = input._data
    if x.dtype not in _ITEM_COMPLEX:
        raise RuntimeError(f"view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: {_name(x)}")
    if x.ndim == 0 or x.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    item = x.itemsize
    if x.strides[-1] != item:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(s % (2 * item) for n, s in zip(x.shape[:-1], x.strides[:-1]) if n > 1):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if input.storage_offset() % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")


# ---------------------------------------------------------------- building complex tensors
def _check_parts(a, b, what):
    x, y = a._data, b._data
    if x.dtype.kind != "f" or y.dtype.kind != "f":  # (bfloat16's kind is "V")
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but "
                           f"got {_name(x)} and {_name(y)}")
    if x.dtype != y.dtype:
        raise RuntimeError(f"Expected object of scalar type {_name(x)} but got scalar type "
                           f"{_name(y)} for second argument")
    if x.dtype not in _ITEM_COMPLEX:
        if what == "polar":  # (torch has no polar kernel for Half)
            raise NotImplementedError("\"polar_cpu\" not implemented for 'Half'")
        raise TypeError(f"{what}: ember has no complex32 (ComplexHalf) tensors; use float32 "
                        "parts")


class ComplexBackward0(Node):
    """out = re + i im;  dre = Re g, dim = Im g."""

    complex_aware = True

    def forward(self, re, im):
        x, y = re._data, im._data
        out = np.empty(np.broadcast_shapes(x.shape, y.shape), _ITEM_COMPLEX[x.dtype])
        out.real, out.imag = x, y
        return out

    def backward(self, m, g):
        return m.real(g), m.imag(g)


class PolarBackward0(Node):
    """out = r e^{iθ};  dr = Re(conj(g) sgn(out)), dθ = Re(conj(g) (i out)): torch's form, in
    the output (so 0 for r at r = 0, the sign flipped for r < 0, and its derivatives as torch's
    where these differ from the plain e^{iθ} and -r Im(conj(g) e^{iθ}))."""

    complex_aware = True
    saves_output = True

    def forward(self, r, theta):
        rd, td = np.broadcast_arrays(r._data, theta._data)
        return _polar(rd, td)

    def backward(self, m, g, out):
        gc = m.conj(g)
        return m.real(gc * m.sgn(out)), m.real(gc * (out * 1j))


def _polar(r, theta):
    out = np.empty(np.broadcast_shapes(r.shape, theta.shape), _ITEM_COMPLEX[r.dtype])
    out.real, out.imag = r * np.cos(theta), r * np.sin(theta)
    return out


def complex(real, imag):
    """The complex tensor real + i imag (both float32 or both float64; broadcast)."""
    _check_parts(real, imag, "complex")
    return ComplexBackward0.apply(real, imag)


def polar(abs, angle):
    """The complex tensor abs * (cos(angle) + i sin(angle))."""
    _check_parts(abs, angle, "polar")
    return PolarBackward0.apply(abs, angle)


# ---------------------------------------------------------------- conjugation, angle
class ConjBackward0(Node):
    """out = conj z;  dz = conj g."""

    complex_aware = True

    def forward(self, z):
        return np.conj(z._data)

    def backward(self, m, g):
        return (m.conj(g),)


class ConjPhysicalBackward0(ConjBackward0):
    """out = conj z, materialized;  dz = conj g."""


def conj(input):
    """The complex conjugate. torch returns a lazy view (``is_conj()`` True); ember conjugates
    at once and keeps the flag, so writes into the result do not reach ``input``."""
    if input._data.dtype.kind != "c":
        return input
    out = ConjBackward0.apply(input)
    if not _is_conj(input):
        out._conj = True
    return out


def conj_physical(input):
    """The complex conjugate as a new tensor (``is_conj()`` False)."""
    if input._data.dtype.kind != "c":
        return input
    return ConjPhysicalBackward0.apply(input)


def resolve_conj(input):
    """``input`` itself unless its conjugate bit is set; then a tensor without the bit."""
    if not _is_conj(input):
        return input
    return clone(input)


def is_conj(input):
    """Whether the tensor carries torch's conjugate bit (set by ``conj()`` on complex tensors)."""
    return _is_conj(input)


def resolve_neg(input):
    """``input``: ember has no lazy negation bit."""
    return input


def is_neg(input):
    """False: ember has no lazy negation bit."""
    return False


class AngleBackward0(Node):
    """out = atan2(Im z, Re z);  dz = g i z / |z|² (0 at z = 0; 0 for real z)."""

    complex_aware = True

    def forward(self, z):
        x = z._data
        self.save(z)
        if x.dtype.kind == "c":
            return np.angle(x)
        out = np.where(x < 0, np.pi, 0.0).astype(x.dtype if x.dtype.kind == "f" else
                                                 np.float32)
        return np.where(np.isnan(x), x, out) if x.dtype.kind == "f" else out

    def backward(self, m, g, z):
        if m.data(z).dtype.kind != "c":
            return (m.zeros_like(z) * g,)
        size = m.real(z) ** 2 + m.imag(z) ** 2
        turned = m.complex(-m.imag(z), m.real(z)) if m.is_graph else z * 1j
        return (m.where(size == 0, 0, g / m.where(size == 0, 1, size)) * turned,)


def angle(input):
    """The argument (phase) of each element: in (-π, π]; 0 or π for real inputs."""
    return AngleBackward0.apply(input)


def _set_real(self, value):
    real(self).copy_(value) if self._data.dtype.kind == "c" else self.copy_(value)


def _set_imag(self, value):
    imag(self).copy_(value)


def _install():
    """Bind the Tensor methods and properties (real, imag, conj, angle, cfloat, ...)."""
    for fn in (conj, conj_physical, resolve_conj, is_conj, resolve_neg, is_neg, angle):
        setattr(Tensor, fn.__name__, fn)
    Tensor.real = property(real, _set_real)
    Tensor.imag = property(imag, _set_imag)
    Tensor.cfloat = lambda self, memory_format=None: to_dtype(self, np.complex64)
    Tensor.cdouble = lambda self, memory_format=None: to_dtype(self, np.complex128)
    Tensor.chalf = lambda self, memory_format=None: to_dtype(self, "complex32")


NAMESPACE = ("real", "imag", "view_as_real", "view_as_complex", "complex", "polar", "conj",
             "conj_physical", "resolve_conj", "is_conj", "resolve_neg", "is_neg", "angle")
