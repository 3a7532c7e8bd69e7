"""torch.special: the special functions under torch's names. Most are the top-level ops under
another name (expit is sigmoid, gammaln is lgamma, ...); ndtr, entr, xlog1py and i1 are built
here from those ops, so their gradients come from the ops' own backward formulas; ndtri,
log_ndtr, erfcx, i0e, i1e, zeta and gammainc/gammaincc are nodes of ops/special_ops.py; the
orthogonal polynomials (ops/orthogonal_polynomials.py) and the Bessel and Airy functions
(ops/bessel.py) have no derivative in torch, and none here."""
import math

import numpy as np

import ember as _ember

from .autograd.graph import Node
from .ops import bessel as _bessel
from .ops import elementwise_extra as _X
from .ops import orthogonal_polynomials as _poly
from .ops import pointwise as _pointwise
from .ops import special_ops as _ops
from .ops.out import with_out as _with_out

__all__ = ["digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1",
           "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr",
           "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma",
           "psi", "round", "sinc", "softmax", "xlog1py", "xlogy", "zeta",
           *(f"{shift}chebyshev_polynomial_{kind}" for shift in ("", "shifted_")
             for kind in "tuvw"),
           "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
           "legendre_polynomial_p", "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0",
           "bessel_y1", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "spherical_bessel_j0"]

digamma = psi = _ember.digamma
erf, erfc, erfinv = _ember.erf, _ember.erfc, _ember.erfinv
exp2, expm1, log1p = _ember.exp2, _ember.expm1, _ember.log1p
expit = _ember.sigmoid
gammaln = _ember.lgamma
i0 = _ember.i0
logit, logsumexp, polygamma = _ember.logit, _ember.logsumexp, _ember.polygamma
multigammaln = _ember.mvlgamma
round, sinc, xlogy = _ember.round, _ember.sinc, _ember.xlogy


def softmax(input, dim, *, dtype=None):
    """softmax along ``dim`` (computed in ``dtype`` when given)."""
    return _ember.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim, *, dtype=None):
    """log_softmax along ``dim`` (computed in ``dtype`` when given)."""
    return _ember.log_softmax(input, dim, dtype=dtype)


def ndtr(input):
    """The standard normal CDF: (1 + erf(x / sqrt 2)) / 2."""
    return (1 + _ember.erf(input * (1 / math.sqrt(2)))) * 0.5


class SpecialEntrBackward0(Node):
    """y = -x log x (0 at 0, -inf for x < 0);  dx = -(1 + log x) g (inf at 0, as torch)."""

    def forward(self, a):
        x = a._data if a._data.dtype.kind == "f" else a._data.astype(
            _ember.get_default_dtype().np)
        self.save(a)
        with np.errstate(divide="ignore", invalid="ignore"):
            value = -x * np.log(x)
        return np.where(x == 0, 0, np.where(x < 0, -np.inf, value)).astype(x.dtype)

    def backward(self, m, g, x):
        return (-(m.log(x) + 1) * g,)


def entr(input):
    """-x log x elementwise: 0 at 0, -inf for x < 0 (torch's entr)."""
    return SpecialEntrBackward0.apply(input)


def xlog1py(input, other):
    """x * log1p(y), 0 where x is 0 (y not NaN), as torch."""
    _ops.refuse_operands("xlog1py_cpu", input, other, reduced=False)  # (no complex kernel)
    # a number in the floating dtype of the result (never cast into the other's integer or
    # bool dtype: a bool tensor's 2 stays 2)
    dtype = _ember.result_type(input, other)
    if not (dtype.is_floating_point or dtype.is_complex):
        dtype = _ember.get_default_dtype()
    if not isinstance(input, _ember.Tensor):
        input = _ember.tensor(input, dtype=dtype)
    if not isinstance(other, _ember.Tensor):
        other = _ember.tensor(other, dtype=dtype)
    # 0 * -inf and 0 * NaN (y < -1): 0, as torch, and so are both derivatives there
    zero = (input == 0) & (other <= -1)
    return input * _ember.log1p(_ember.where(zero, _ember.zeros_like(other), other))


def i1(input):
    """The modified Bessel function of the first kind, order 1."""
    return _X.SpecialI1Backward0.apply(input)


def _unary(name, node, kernel, reduced=True):
    """torch.special.<name>(input, *, out=None) over a unary node; ``kernel`` names torch's,
    which refuses complex (and, with ``reduced``, float16 and bfloat16) inputs."""
    def fn(input):
        _ops.refuse_dtype(kernel, input.dtype, reduced)
        return node.apply(input)
    fn.__name__, fn.__doc__ = name, node.__doc__
    return _with_out(fn, "special_" + name)


ndtri = _unary("ndtri", _ops.SpecialNdtriBackward0, "ndtri_cpu")
log_ndtr = _unary("log_ndtr", _ops.SpecialLogNdtrBackward0, "log_ndtr_cpu")
erfcx = _unary("erfcx", _ops.SpecialErfcxBackward0, "erfcx_cpu")
i0e = _unary("i0e", _ops.SpecialI0EBackward0, "i0e_cpu", reduced=False)
i1e = _unary("i1e", _ops.SpecialI1EBackward0, "i1e_cpu", reduced=False)


def _gamma(name, node, kernel):
    fn = _pointwise._float_kernel("special_" + name, node, kernel)
    fn.__name__ = name
    return _with_out(fn, kernel[:-len("_cpu")])  # (torch's out= error names igamma/igammac)


gammainc = _gamma("gammainc", _ops.IgammaBackward0, "igamma_cpu")
gammaincc = _gamma("gammaincc", _ops.IgammacBackward0, "igammac_cpu")


def zeta(input, other):
    """The Hurwitz zeta function sum_k (other + k)^-input (either argument may be a number)."""
    tensors = [isinstance(v, _ember.Tensor) for v in (input, other)]
    if not any(tensors):
        raise TypeError(f"special_zeta() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}), but expected one "
                        "of: (Tensor input, Tensor other), (Number self, Tensor other), "
                        "(Tensor self, Number other)")
    _ops.refuse_operands("zeta_cpu", input, other)
    if not tensors[0]:  # (a number input: torch's wrapped number)
        return _ops.SpecialZetaBackward1.apply(_pointwise._as_tensor(input), other)
    return (_ops.SpecialZetaBackward0 if tensors[1] else _ops.SpecialZetaBackward2).apply(
        input, other)


zeta = _with_out(zeta, "special_zeta")


def _polynomial(name, compute):
    """torch.special.<name>(input, n, *, out=None): no derivative (as torch)."""
    def fn(input, n):
        return _ops.without_derivative(name, compute, input, n)
    fn.__name__, fn.__doc__ = name, compute.__doc__
    return _with_out(fn, "special_" + name, differentiable=False)


for _kind in "tuvw":
    for _shifted in (False, True):
        _name = f"{'shifted_' * _shifted}chebyshev_polynomial_{_kind}"
        globals()[_name] = _polynomial(_name, lambda x, n, k=_kind, s=_shifted: _poly.chebyshev(
            k, x, n, s))
hermite_polynomial_h = _polynomial("hermite_polynomial_h", _poly.hermite_h)
hermite_polynomial_he = _polynomial("hermite_polynomial_he", _poly.hermite_he)
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l", _poly.laguerre_l)
legendre_polynomial_p = _polynomial("legendre_polynomial_p", _poly.legendre_p)


def _without_derivative(name, compute):
    """torch.special.<name>(input, *, out=None): no derivative (as torch)."""
    def fn(input):
        return _ops.unary_without_derivative(name, compute, input)
    fn.__name__, fn.__doc__ = name, compute.__doc__
    return _with_out(fn, "special_" + name, differentiable=False)


airy_ai = _without_derivative("airy_ai", _bessel.airy_ai)
bessel_j0 = _without_derivative("bessel_j0", _bessel.j0)
bessel_j1 = _without_derivative("bessel_j1", _bessel.j1)
bessel_y0 = _without_derivative("bessel_y0", _bessel.y0)
bessel_y1 = _without_derivative("bessel_y1", _bessel.y1)
modified_bessel_i0 = _without_derivative("modified_bessel_i0", _bessel.modified_i0)
modified_bessel_i1 = _without_derivative("modified_bessel_i1", _bessel.modified_i1)
modified_bessel_k0 = _without_derivative("modified_bessel_k0", _bessel.k0)
modified_bessel_k1 = _without_derivative("modified_bessel_k1", _bessel.k1)
scaled_modified_bessel_k0 = _without_derivative("scaled_modified_bessel_k0", _bessel.k0e)
scaled_modified_bessel_k1 = _without_derivative("scaled_modified_bessel_k1", _bessel.k1e)
spherical_bessel_j0 = _without_derivative("spherical_bessel_j0", _bessel.spherical_j0)


# torch's out= forms of the functions defined above
ndtr, entr, xlog1py, i1 = (_with_out(fn, "special_" + fn.__name__)
                           for fn in (ndtr, entr, xlog1py, i1))
