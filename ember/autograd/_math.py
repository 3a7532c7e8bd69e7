"""The two math namespaces backward formulas are written over: NumPy arrays, or ember tensors.

A formula such as ``g * m.cos(x)`` runs on arrays for an ordinary backward, and on tensors
(recording a graph) under ``create_graph=True``; each derivative is therefore written once.
"""
import numpy as np

from .. import _fp
from .._creation import as_tensor, zeros
from ._sparse_grad import SparseGrad


def _sum_to(g, shape):
    """Sum a broadcast gradient back to ``shape``."""
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and g.shape[i + lead] != 1)
    g = g.sum(axis=axes, keepdims=True) if axes else g
    return g.reshape(shape) if lead else g


_ONES = {np.dtype(t): np.ones((), t) for t in (np.float32, np.float64)}
# (NumPy's module has a __getattr__: CPython 3.11 does not specialize ``np.subtract`` reads)
_subtract, _multiply = np.subtract, np.multiply
_BOOL, _INT8 = np.dtype(np.bool_), np.dtype(np.int8)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_ONE32, _ONE64 = _ONES[_F32], _ONES[_F64]
# the same-width integer of each float type whose bits ``keep`` multiplies by a 0/1 mask
_BITS = {np.dtype(np.float32): np.dtype(np.int32), np.dtype(np.float64): np.dtype(np.int64),
         np.dtype(np.float16): np.dtype(np.int16)}


def fma(a, b, c):
    """a * b + c rounded once where torch's kernel computes a fused multiply-add (float32 and
    float64 arrays ``a``); other dtypes as NumPy computes a * b + c."""
    if _fused(a):
        return _fp.fma(a, b, c)
    return a * b + c


def _fused(a):
    return a.dtype.kind == "f" and a.dtype.itemsize >= 4


def rsqrt(x):
    """1 / sqrt(x), each step rounded: torch's rsqrt kernel (rsqrt's forward, and the derivatives
    torch writes with it: asin, acos, asinh, acosh)."""
    return 1 / np.sqrt(x)


def sign(x):
    """torch's sign: -1, 0 or 1, and 0 (not NaN) at NaN; a bool tensor is its own sign."""
    if x.dtype.kind == "b":
        return x.copy()
    out = np.sign(x)
    if out.dtype.kind == "f":
        out = np.asarray(out)
        np.copyto(out, 0, where=np.isnan(out))
    return out


class array_math:
    """Backward math on ndarrays (the fast path).

    A namespace, never instantiated: its functions are plain class attributes, not staticmethods,
    since CPython 3.11 specializes ``m.name(...)`` on a class only for a plain function (a
    staticmethod read is a generic lookup, in every backward formula that calls one)."""

    exp, log, sqrt, sin, cos, abs = np.exp, np.log, np.sqrt, np.sin, np.cos, np.abs
    sign = sgn = sign  # NumPy's sign of complex z is torch's sgn: z / |z|
    zeros_like, ones_like, matmul = np.zeros_like, np.ones_like, np.matmul
    tanh, log1p, maximum, minimum = np.tanh, np.log1p, np.maximum, np.minimum
    sinh, cosh = np.sinh, np.cosh
    real, imag, conj, angle = np.real, np.imag, np.conj, np.angle
    transpose, flip, broadcast_to = np.swapaxes, np.flip, np.broadcast_to
    is_graph = False

    def data(x):
        return x

    def where(cond, x, y):
        """np.where(cond, x, y). Branch-free where cond is a boolean array and x, y arrays of
        one float type: y's bits xor ((x's bits xor y's) times the 0/1 mask), the same bits
        (np.where mispredicts a branch per element of a mixed mask: 3.8 ms against 0.39 ms on
        1M float32)."""
        bits = _BITS.get(x.dtype) if type(x) is np.ndarray else None
        if bits is None or type(y) is not np.ndarray or y.dtype != x.dtype or \
                type(cond) is not np.ndarray or cond.dtype != np.bool_ or not cond.ndim:
            return np.where(cond, x, y)
        ybits = y.view(bits)
        out = np.multiply(np.bitwise_xor(x.view(bits), ybits), cond.view(np.int8), dtype=bits)
        return np.bitwise_xor(out, ybits, out=out).view(x.dtype)

    def keep(mask, g, out=None):
        """g where ``mask`` (a boolean array), else +0.0: torch's masked gradients select,
        where ``g * mask`` would give -0.0 for a negative g (and NaN for an infinite one).
        Branch-free on float arrays: g's bits times the 0/1 mask, the same bits as np.where
        (which mispredicts a branch per element of a mixed mask: 3.8 ms against 0.18 ms on
        1M float32). ``out``: an array of g's dtype to write into (e.g. a strided view)."""
        bits = _BITS.get(g.dtype) if type(g) is np.ndarray else None
        kind = getattr(mask, "dtype", None)
        if bits is None or kind is not _BOOL and kind != np.bool_:  # (identity first: cheap)
            kept = np.where(mask, g, np.zeros((), g.dtype))
            if out is None:
                return kept
            np.copyto(out, kept)
            return out
        return _multiply(g.view(bits), mask.view(_INT8), dtype=bits,
                         out=None if out is None else out.view(bits)).view(g.dtype)

    def tie(value, x):
        """``value``; the tensor math puts ``x`` in its graph at a zero gradient."""
        return value

    fma, rsqrt = fma, rsqrt
    vector_sum = _fp.vector_sum

    def one_minus(x):
        """1 - x; a cached 0-d one skips NumPy's slower Python-scalar cast (same bits)."""
        dt = x.dtype
        one = _ONE32 if dt is _F32 else _ONES.get(dt)  # (float32 without hashing its dtype)
        return 1 - x if one is None else _subtract(one, x)

    def one_minus_square(y):
        """1 - y*y rounded once (torch's fma(-y, y, 1)). float32: computed in float64 and
        rounded, which is that fma exactly: y*y is exact in float64, 1 - y*y too for |y| >=
        1/8, and below that the float64 result cannot land on a float32 rounding tie (squares
        of 24-bit integers lie too far from the ties' multiples of 2^-25); 4 NumPy calls
        against the general fma's dozen (tanh's backward is in every RNN step)."""
        if y.dtype is _F32:  # (module-level names: a NumPy attribute read is a slow lookup)
            w = y.astype(_F64)
            _multiply(w, w, out=w)
            _subtract(_ONE64, w, out=w)  # (a 0-d one: no cast of a Python float per call)
            return w.astype(_F32)
        return fma(-y, y, 1)

    def conform(g, shape, dtype):
        if not isinstance(g, np.ndarray):  # (a NumPy scalar; a meta placeholder stays one)
            g = np.asarray(g)
        if g.shape != shape:
            if np.dtype(dtype).char in "eE" and g.dtype == np.float32:  # float16, bfloat16:
                g = g.astype(dtype).astype(np.float32)  # torch rounds the gradient, then sums
            g = _sum_to(g, shape) if g.ndim >= len(shape) else np.broadcast_to(g, shape)
        if g.dtype != dtype:
            if g.dtype.kind == "c" and dtype.kind != "c":  # a real input's part of a complex grad
                g = g.real
            g = g.astype(dtype)
        return g

    def sum(x, dims, keepdim=False):
        return np.sum(x, axis=dims, keepdims=keepdim)

    def reshape(x, shape):
        # (np.reshape calls this very method through two Python layers: ~3x the cost)
        return x.reshape(shape) if type(x) is np.ndarray else np.reshape(x, shape)

    def expand(x, shape):
        if type(x) is np.ndarray and x.size == 1 and x.ndim <= len(shape):
            # one value everywhere (a full reduction's gradient): the read-only zero-stride view
            # np.broadcast_to makes, without its nditer (7.8k against 24.8k instructions)
            out = np.ndarray(shape, x.dtype, x, 0, (0,) * len(shape))
            out.flags.writeable = False
            return out
        return np.broadcast_to(x, shape)

    def unsqueeze(x, dim):
        return np.expand_dims(x, dim)

    def squeeze(x, dim):
        return np.squeeze(x, dim)

    def mT(x):
        return np.swapaxes(x, -1, -2)

    def permute(x, dims):
        return np.transpose(x, dims)

    def index_into_zeros(g, shape, index, accumulate):
        """zeros(shape) with g placed (or, for repeated indices, summed) at ``index``."""
        out = np.zeros(shape, dtype=g.dtype)
        if accumulate:
            np.add.at(out, index, g)
        else:
            out[index] = g
        return out

    def index(x, index):
        return x[index]

    def cat(xs, dim):
        return np.concatenate(xs, axis=dim)

    def stack(xs, dim):
        return np.stack(xs, axis=dim)

    def gather(x, dim, index):
        # as torch's gather: only index.shape[d] entries are read along the other dims
        part = tuple(slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape))
        return np.take_along_axis(x[part], index, axis=dim)

    def scatter_add_zeros(g, shape, dim, index):
        out = np.zeros(shape, dtype=g.dtype)
        idx = list(np.indices(index.shape, sparse=True))
        idx[dim] = index
        np.add.at(out, tuple(idx), g)
        return out

    def cumprod(x, dim):
        return np.cumprod(x, axis=dim)


class _TensorMath:
    """Backward math on ember tensors, so that the backward pass itself is differentiable."""

    is_graph = True

    def __getattr__(self, name):
        import ember  # late binding up: the tensor math is the public API built on autograd
        alias = {"maximum": "maximum", "broadcast_to": "broadcast_to", "transpose": "transpose"}
        fn = getattr(ember, alias.get(name, name))
        setattr(self, name, fn)
        return fn

    @staticmethod
    def data(x):
        return x._data if hasattr(x, "_data") else x

    @staticmethod
    def keep(mask, g):
        from .. import where  # late binding up: the tensor math is the public API
        return where(as_tensor(mask), g, g.new_zeros(()))

    @staticmethod
    def maximum(a, b):
        from .. import maximum  # late binding up: the tensor math is the public API
        return maximum(a, b if hasattr(b, "_data") else a.new_tensor(b))  # (a number bound)

    @staticmethod
    def minimum(a, b):
        from .. import minimum  # late binding up: the tensor math is the public API
        return minimum(a, b if hasattr(b, "_data") else a.new_tensor(b))

    @staticmethod
    def tie(value, x):
        """``value``, with ``x`` in its graph at a zero gradient: torch's double backward of a
        piecewise-linear function gives zeros for x rather than leaving x unused."""
        from .. import where  # late binding up: the tensor math is the public API
        if not x._data.size:
            return value
        return where(as_tensor(np.ones(value._data.shape, bool)), value, x)

    @staticmethod
    def one_minus(x):
        return 1 - x

    @staticmethod
    def one_minus_square(y):
        return _TensorMath.fma(-y, y, 1)

    @staticmethod
    def vector_sum(x):
        """sum(x, -1), kept, in the graph, its value the array math's (torch's vectorized row
        reduction's order)."""
        out = x.sum(-1, keepdim=True)
        out._data = _fp.vector_sum(x._data).astype(out._data.dtype, copy=False)
        return out

    @staticmethod
    def fma(a, b, c):
        """a * b + c in the graph (each factor's gradient the other), its value the array
        math's: rounded once as torch's fused kernel (which its double backward differentiates)."""
        out = a * b + c
        if _fused(a._data) and out._data.dtype == a._data.dtype:
            out._data = _fp.fma(a._data, b._data if hasattr(b, "_data") else b,
                                c._data if hasattr(c, "_data") else c)
        return out

    @staticmethod
    def conform(g, shape, dtype):
        if type(g) is SparseGrad:  # reaching an interior node: its dense form, a constant
            g = as_tensor(g.dense())
        if g._data.shape != shape:
            g = g.sum_to_size(shape) if g.ndim >= len(shape) else g.expand(shape)
        if g._data.dtype != dtype:
            if g._data.dtype.kind == "c" and dtype.kind != "c":  # a real input's part
                g = g.real
            from ..ops.api import to_dtype  # late binding up: ops build on autograd
            g = to_dtype(g, dtype)
        return g

    @staticmethod
    def sum(x, dims, keepdim=False):
        return x.sum(dims, keepdim=keepdim) if dims is not None else x.sum()

    @staticmethod
    def expand(x, shape):
        return x.expand(shape)

    @staticmethod
    def mT(x):
        return x.transpose(-1, -2)

    @staticmethod
    def index_into_zeros(g, shape, index, accumulate):
        from ..ops.indexing import IndexPutZerosBackward  # late binding up: ops build on autograd
        return IndexPutZerosBackward.apply(g, shape=shape, index=index, accumulate=accumulate)

    @staticmethod
    def index(x, index):
        return x[index]

    @staticmethod
    def scatter_add_zeros(g, shape, dim, index):
        return zeros(shape, dtype=g.dtype).scatter_add(dim, as_tensor(index), g)

    @staticmethod
    def gather(x, dim, index):
        return x.gather(dim, as_tensor(index))


tensor_math = _TensorMath()
