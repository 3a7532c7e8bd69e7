"""More element-wise primitives with their derivatives: inverse hyperbolics, special functions
(erfc, erfinv, lgamma, digamma, polygamma, i0), sinc, frac, exp2, logit, sgn, degree
conversions, and the binary ops atan2, hypot, fmod, copysign, fmax/fmin, logaddexp(2), xlogy,
ldexp, nextafter, heaviside, gcd/lcm and the bit shifts.

Unary ops are rows of one table made by ``elementwise._unary`` (the same maker as exp's or
sin's); binary ops share ``_Binary``'s forward (torch's type promotion, then one ufunc)."""
import math

import numpy as np

from .. import _dtype
from ..autograd import _opmath
from ..autograd.graph import Node
from . import _bf16, special
from . import elementwise as E

_SQRT_PI = math.sqrt(math.pi)
_LN2 = math.log(2.0)


def _through(m, node, np_fn, *args):
    """``np_fn`` on arrays; on tensors (create_graph) the differentiable ``node``."""
    if m.is_graph:
        return lambda x: node.apply(x, *args)
    return (lambda x: np_fn(x, *args)) if args else np_fn


def _frac(x):
    if x.dtype.kind != "f":  # torch's frac has no integer kernel
        raise NotImplementedError(f"\"frac_cpu\" not implemented for "
                                  f"'{_dtype.of_numpy(x.dtype).scalar_name}'")
    return x - np.trunc(x)


def _sinc_grad(m, g, x):
    """d sinc / dx = (cos(pi x) - sinc(x)) / x, masked to 0 at x = 0 as torch's formula (whose
    second derivative is NaN there, 0/0 behind the mask: the same here)."""
    slope = (m.cos(x * math.pi) - _through(m, SincBackward0, np.sinc)(x)) / x
    return g * m.where(m.data(x) == 0, 0.0, slope)


E._INTEGER_OK.update({"SgnBackward0", "FracBackward0"})
_u = E._unary
AcoshBackward0 = _u("AcoshBackward0", np.arccosh, lambda m, g, x: g * m.rsqrt(x * x - 1))
AsinhBackward0 = _u("AsinhBackward0", np.arcsinh, lambda m, g, x: g * m.rsqrt(x * x + 1))
AtanhBackward0 = _u("AtanhBackward0", np.arctanh, lambda m, g, x: g / m.one_minus(x * x))
ErfcBackward0 = _u("ErfcBackward0", special.erfc,
                   lambda m, g, x: m.exp(-(x * x)) * (-2 / _SQRT_PI) * g, doc="y = 1 - erf(x)")
ErfinvBackward0 = _u("ErfinvBackward0", special.erfinv,
                     lambda m, g, y: m.exp(y * y) * (_SQRT_PI / 2) * g, "output", "erf(y) = x")
LgammaBackward0 = _u("LgammaBackward0", special.lgamma, lambda m, g, x: g * _through(
    m, DigammaBackward0, special.digamma)(x), doc="y = log|Gamma(x)|; dx = g * digamma(x)")
DigammaBackward0 = _u("DigammaBackward0", special.digamma, lambda m, g, x: g * _through(
    m, PolygammaBackward0, special.polygamma, 1)(x), doc="dx = g * polygamma(1, x)")
I0Backward0 = _u("I0Backward0", special.i0, lambda m, g, x: g * _through(
    m, SpecialI1Backward0, special.i1)(x), doc="modified Bessel I0; dx = g * I1(x)")
SincBackward0 = _u("SincBackward0", np.sinc, _sinc_grad, doc="sin(pi x) / (pi x), 1 at 0")
FracBackward0 = _u("FracBackward0", _frac, lambda m, g: g, None, "x - trunc(x); dx = g")
Exp2Backward0 = _u("Exp2Backward0", np.exp2, lambda m, g, y: g * y * _LN2, "output")
def _sgn_grad(m, g, x):
    """Real x: 0. Complex z (s = z/|z|): dz = (g - Re(g conj(s)) s) / |z|, 0 at z = 0."""
    if m.data(x).dtype.kind != "c":
        return m.zeros_like(g)
    size = m.abs(x)
    s = m.sgn(x)
    return m.where(m.data(size) == 0, 0, (g - m.real(g * m.conj(s)) * s) / size)


SgnBackward0 = _u("SgnBackward0", E._sign, _sgn_grad,
                  doc="sign of reals, z/|z| of complex; saves its input, as torch")
SgnBackward0.complex_aware = True
Deg2RadBackward0 = _u("Deg2RadBackward0", lambda x: x * (math.pi / 180),
                      lambda m, g: g * (math.pi / 180), None)
Rad2DegBackward0 = _u("Rad2DegBackward0", lambda x: x * (180 / math.pi),
                      lambda m, g: g * (180 / math.pi), None)

for _cls in (AcoshBackward0, AsinhBackward0, AtanhBackward0, ErfcBackward0, ErfinvBackward0,
             LgammaBackward0, DigammaBackward0, I0Backward0, SincBackward0, FracBackward0,
             Exp2Backward0, SgnBackward0, Deg2RadBackward0, Rad2DegBackward0):
    _cls.__module__ = __name__  # (made by elementwise's maker, defined here)


def _inplace_without_derivative(base, name):
    """torch's node for ``asinh_``/``atanh_``: no derivative (backward raises)."""
    def backward(self, m, g, *saved):
        raise NotImplementedError(f"the derivative for 'inplace version of {name}' is not "
                                  "implemented.")
    cls = type(base.__name__[:-1] + "1", (base,), {"backward": backward})
    cls.__module__ = __name__
    return cls


AsinhBackward1 = _inplace_without_derivative(AsinhBackward0, "asinh")
AtanhBackward1 = _inplace_without_derivative(AtanhBackward0, "atanh")


def tiny_and_safe(m, x):
    """(|x| <= eps or NaN, x with those replaced by eps): torch's I1 and I1e derivatives take
    1/2 there (their formulas divide by x)."""
    data = m.data(x)
    eps = float(np.finfo(data.dtype).eps)
    tiny = ~(np.abs(data) > eps)
    return tiny, m.where(tiny, eps, x)


class SpecialI1Backward0(Node):
    """y = I1(x);  dx = g * (I0(x) - I1(x) / x), 1/2 where |x| <= eps (and NaN), as torch."""

    def forward(self, a):
        self.save(a)
        return special.i1(_float(a))

    def backward(self, m, g, x):
        tiny, safe = tiny_and_safe(m, x)
        i0 = _through(m, I0Backward0, special.i0)(safe)
        i1 = _through(m, SpecialI1Backward0, special.i1)(safe)
        return (g * m.where(tiny, 0.5, i0 - i1 / safe),)


def _float(a):
    x = a._data
    return x if x.dtype.kind == "f" else x.astype(_dtype.get_default_dtype().np)


class PolygammaBackward0(Node):
    """y = psi^(n)(x);  dx = g * psi^(n+1)(x)."""

    def forward(self, a, n):
        if n < 0:
            raise RuntimeError("polygamma(n, x) does not support negative n.")
        _dtype.refuse_complex(a._data.dtype, ("digamma", "trigamma")[n] if n < 2 else "polygamma")
        self.save(a)
        self.n = n
        return special.polygamma(_float(a), n)

    def backward(self, m, g, x):
        return (g * _through(m, PolygammaBackward0, special.polygamma, self.n + 1)(x),)


class MvlgammaBackward0(Node):
    """y = sum_i<p lgamma(x - i/2) + p (p-1)/4 log(pi);  dx = g * sum_i digamma(x - i/2)."""

    def forward(self, a, p):
        if p < 1:
            raise RuntimeError("p has to be greater than or equal to 1")
        self.save(a)
        self.p = p
        x = _float(a)
        out = sum(special.lgamma(x - x.dtype.type(i / 2)) for i in range(p))
        return np.asarray(out + x.dtype.type(p * (p - 1) / 4 * math.log(math.pi)), x.dtype)

    def backward(self, m, g, x):
        digamma = _through(m, DigammaBackward0, special.digamma)
        return (g * sum(digamma(x - i / 2) for i in range(self.p)),)


class LogitBackward0(Node):
    """y = log(z / (1 - z)), z = x clamped to [eps, 1 - eps];  dx = g / (x (1 - x)) inside,
    0 outside (NaN outside [0, 1] without eps)."""

    def forward(self, a, eps=None):
        E._check_complex("LogitBackward0", a._data.dtype)
        x = _float(a)
        self.save(a)
        self.eps = eps
        z = x if eps is None else np.clip(x, eps, 1 - eps)
        if _opmath.source(a) is not None:  # torch's low-dtype kernel: each op rounded
            return _bf16.steps(lambda z: np.log(z / (1 - z)), z)
        return np.log(z / (1 - z))

    def backward(self, m, g, x):
        v = m.data(x)
        grad = g / (x * m.one_minus(x))
        if self.eps is None:
            return (m.where((v < 0) | (v > 1), math.nan, grad),)
        return (m.where((v < self.eps) | (v > 1 - self.eps), 0.0, grad),)


# ---------------------------------------------------------------- binary
class _Binary(Node):
    """out = ufunc(a, b) after torch's type promotion. ``integers``: "float" (integer inputs
    give the default float dtype), "keep" (computed as integers), or the name of torch's kernel
    that refuses them; ``floats`` and ``bools``: likewise for floating (and complex) and bool
    inputs."""

    integers = "float"
    floats = None
    bools = None  # None: as integers
    saves_output = False
    saves_inputs = True  # False: a backward that needs neither (fmod by a number)

    def forward(self, a, b):
        x, y = E._operands(a, b)
        kind = np.result_type(x, y).kind
        refused = self.floats if kind in "fVc" else self.integers if kind in "iu" else \
            (self.bools or self.integers) if kind == "b" else None
        if kind == "c":  # (the ops built here that have no complex kernel in torch)
            if type(self).__name__ in E.COMPLEX_KERNELS:  # (a kernel's refusal: after the
                E.refuse_unbroadcastable(x, y)  # shapes, as torch)
            E._check_complex(type(self).__name__, np.result_type(x, y))
        if refused not in (None, "float", "keep"):
            E.refuse_unbroadcastable(x, y)
            dt = _dtype.of_numpy(np.result_type(x, y))
            raise NotImplementedError(f'"{refused}" not implemented for \'{dt.scalar_name}\'')
        if refused == "float":  # each operand as given (a number or a 0-d tensor never
            dt = _dtype.get_default_dtype().np  # wrapped into the other's integer dtype first)
            x, y = (E.float_operand(v, converted, dt) for v, converted in ((a, x), (b, y)))
        if self.saves_inputs:
            self.save(a, b)
        return self.compute(x, y)


def _binary(name, compute, backward, **options):
    """A _Binary subclass named as torch's node, with its forward ufunc and backward formula."""
    cls = type(name, (_Binary,), {"compute": staticmethod(compute), "backward": backward,
                                  "__doc__": backward.__doc__, **options})
    cls.__module__ = __name__
    return cls


def _needs(node):
    return E._needs(node, 0), E._needs(node, 1)


def _atan2_grad(self, m, g, a, b):
    """r = 1 / (a^2 + b^2) (0 where a = b = 0);  da = (g b) r, db = (g (-a)) r, as torch."""
    total = a * a + b * b
    recip = m.where(m.data(total) == 0, 0.0, 1 / total)
    return g * b * recip, g * -a * recip


def _hypot_grad(self, m, g, a, b, out):
    """da = g a / out, db = g b / out."""
    return g * a / out, g * b / out


def _fmod(x, y):
    E._check_integer_divisor(x, y, "fmod_cpu")  # torch refuses integer division by zero
    return np.fmod(x, y)


def _fmod_grad(self, m, g, a, b):
    """da = g, db = -g trunc(a / b)."""
    need_a, need_b = _needs(self)
    return g, (-g * np.trunc(m.data(a) / m.data(b)) if need_b else None)


def _fmod_scalar_grad(self, m, g):
    """da = g (b is a number)."""
    return g, None


def _copysign_grad(self, m, g, a, b, out):
    """da = g out / a (0 where a = 0), db = 0."""
    zero = m.data(a) == 0
    ratio = m.where(zero, 0.0, out / m.where(zero, 1.0, a))
    return g * ratio, (m.zeros_like(g) if E._needs(self, 1) else None)


def _extremum_grad(pick_a):
    def grad(self, m, g, a, b):
        """da = g where a wins (or b is NaN), db = g elsewhere."""
        x, y = m.data(a), m.data(b)
        mask = (pick_a(x, y) | np.isnan(y)).astype(m.data(g).dtype)
        return g * mask, g * (1 - mask)
    return grad


def _logaddexp_grad(base):
    def grad(self, m, g, a, b):
        """da = g / (1 + base^(b - a)), db = g / (1 + base^(a - b))."""
        scale = 1.0 if base == math.e else math.log(base)
        return g / (1 + m.exp((b - a) * scale)), g / (1 + m.exp((a - b) * scale))
    return grad


def _logaddexp(x, y):
    """log(e^x + e^y): NumPy's for real inputs; for complex ones max + log1p(e^(min - max)),
    max and min by real part (torch's complex kernel)."""
    dt = np.result_type(x, y)
    if dt.kind != "c":
        return np.logaddexp(x, y)
    x, y = np.broadcast_arrays(np.asarray(x, dt), np.asarray(y, dt))
    first = np.real(x) >= np.real(y)
    high, low = np.where(first, x, y), np.where(first, y, x)
    return high + np.log1p(np.exp(low - high))


def _xlogy(x, y):
    return np.where((x == 0) & ~np.isnan(y), 0, x * np.log(y)).astype(np.result_type(x, y))


def _xlogy_forward(self, a, b):
    if _opmath.result_source(a, b) is not None:
        self.compute = _xlogy_bf16  # torch's low-dtype kernel rounds log(y) before the product
    return _Binary.forward(self, a, b)


def _xlogy_bf16(x, y):
    log = _bf16.rounded(np.log(y))
    return np.where((x == 0) & ~np.isnan(y), 0, x * log).astype(np.result_type(x, y))


def _scalar_log(b):
    return math.log(b) if b > 0 else -math.inf if b == 0 else math.nan


def _xlogy_grad(self, m, g, a, b):
    """da = g log(b) (0 where a = 0 and b <= 0), db = g a / b."""
    need_a, need_b = _needs(self)
    ga = gb = None
    if need_a:
        x, y = m.data(a), m.data(b)
        log = _scalar_log(b) if isinstance(b, (int, float)) else m.log(b)
        ga = m.where((x == 0) & (y <= 0), 0.0, g * log)
    if need_b:
        gb = g * a / b
    return ga, gb


def _ldexp_grad(self, m, g, a, b):
    """da = g 2^b, db = g a 2^b ln 2."""
    scale = 2.0 ** b
    return g * scale, (g * a * scale * _LN2 if E._needs(self, 1) else None)


def _shift(left):
    def compute(x, y):
        """x shifted by y bits; a shift past the width (or negative) empties, as torch."""
        width = 8 * np.result_type(x, y).itemsize
        bits = np.asarray(y)
        outside = (bits < 0) | (bits >= width)
        clipped = np.where(outside, 0, bits).astype(np.result_type(x, y))
        shifted = np.left_shift(x, clipped) if left else np.right_shift(x, clipped)
        spill = 0 if left else np.where(np.asarray(x) < 0, -1, 0)
        return np.where(outside, spill, shifted).astype(np.result_type(x, y))
    return compute


def _no_derivative(op):
    def grad(self, m, g, *saved):
        raise RuntimeError(f"the derivative for '{op}' is not implemented.")
    return grad


Atan2Backward0 = _binary("Atan2Backward0", np.arctan2, _atan2_grad)
HypotBackward0 = _binary("HypotBackward0", np.hypot, _hypot_grad, integers="hypot_cpu",
                         saves_output=True)
FmodBackward0 = _binary("FmodBackward0", _fmod, _fmod_scalar_grad, integers="keep",
                        saves_inputs=False)
FmodBackward1 = _binary("FmodBackward1", _fmod, _fmod_grad, integers="keep")
CopysignBackward0 = _binary("CopysignBackward0", np.copysign, _copysign_grad, saves_output=True)
CopysignBackward1 = _binary("CopysignBackward1", np.copysign, _copysign_grad, saves_output=True)
FmaxBackward0 = _binary("FmaxBackward0", np.fmax, _extremum_grad(np.greater_equal),
                        integers="keep")
FminBackward0 = _binary("FminBackward0", np.fmin, _extremum_grad(np.less_equal),
                        integers="keep")
LogaddexpBackward0 = _binary("LogaddexpBackward0", _logaddexp, _logaddexp_grad(math.e),
                             integers="logaddexp_cpu")
Logaddexp2Backward0 = _binary("Logaddexp2Backward0", np.logaddexp2, _logaddexp_grad(2.0),
                              integers="logaddexp2_cpu")
XlogyBackward0 = _binary("XlogyBackward0", _xlogy, _xlogy_grad)
XlogyBackward1 = _binary("XlogyBackward1", _xlogy, _xlogy_grad)  # a number ``input``
XlogyBackward2 = _binary("XlogyBackward2", _xlogy, _xlogy_grad)  # a number ``other``
for _cls in (XlogyBackward0, XlogyBackward1, XlogyBackward2):
    _cls.forward = _xlogy_forward
NextafterBackward0 = _binary("NextafterBackward0", np.nextafter, _no_derivative("nextafter"),
                             integers="nextafter_cpu")
GcdBackward0 = _binary("GcdBackward0", np.gcd, _no_derivative("gcd"), integers="keep",
                       floats="gcd_cpu", bools="gcd_cpu")
LcmBackward0 = _binary("LcmBackward0", np.lcm, _no_derivative("lcm"), integers="keep",
                       floats="lcm_cpu", bools="lcm_cpu")
LshiftBackward0 = _binary("LshiftBackward0", _shift(True), _no_derivative("lshift"),
                          integers="keep", floats="lshift_cpu", bools="lshift_cpu")
RshiftBackward0 = _binary("RshiftBackward0", _shift(False), _no_derivative("rshift"),
                          integers="keep", floats="rshift_cpu", bools="rshift_cpu")


class LdexpBackward0(Node):
    """out = a * 2^b (torch's kernel: an integer b scales exactly in the result dtype, a
    floating b's 2^b is taken in b's dtype, the product in at least float32);
    da = g 2^b, db = g a 2^b ln 2."""

    backward = _ldexp_grad

    def forward(self, a, b):
        exponent = b._data
        x, _ = E._operands(a, b)
        if exponent.dtype.kind == "b" and x.dtype.kind in "fV":  # (integer inputs take it)
            raise NotImplementedError('"ldexp_cpu_exp" not implemented for \'Bool\'')
        if x.dtype.kind in "biu":
            x = x.astype(_dtype.get_default_dtype().np)
        self.save(a, b)
        if exponent.dtype.kind in "iu" and x.dtype.kind != "c":
            return np.ldexp(x, exponent.astype(np.int64).clip(-(1 << 20), 1 << 20))
        if "c" in (x.dtype.kind, exponent.dtype.kind):  # complex: the product, promoted
            x = x.astype(_dtype._np_promote(x.dtype, exponent.dtype), copy=False)
        compute = np.float32 if x.dtype.itemsize < 4 else x.dtype
        scale = np.exp2(exponent)
        if _opmath.source(b) is not None:  # (widened: 2^b rounded to b's own dtype)
            scale = _bf16.rounded(scale, _opmath.source(b))
        scale = scale.astype(compute)
        return np.multiply(x.astype(compute), scale).astype(x.dtype, copy=False)


class HeavisideBackward0(Node):
    """out = 0 where a < 0, values where a = 0, 1 where a > 0; torch has no derivative."""

    def forward(self, a, values):
        if a._data.dtype.kind == "c" or values._data.dtype.kind == "c":
            raise RuntimeError("heaviside is not yet implemented for complex tensors.")
        if a._data.dtype != values._data.dtype:
            raise RuntimeError("heaviside is not yet implemented for tensors with different "
                               "dtypes.")
        x, v = a._data, values._data
        return np.where(x == 0, v, (x > 0).astype(x.dtype)).astype(x.dtype)

    def backward(self, m, g):
        raise RuntimeError("derivative for aten::heaviside is not implemented")


HeavisideBackward0.__name__ = HeavisideBackward0.__qualname__ = "NotImplemented"  # torch's name


class StandardGammaBackward0(Node):
    """torch._standard_gamma: the draws (made before the node records) pass through;
    dalpha = g * dx/dalpha at the draw (implicit reparameterization, not differentiable again,
    as torch's)."""

    def forward(self, alpha, draws):
        self.save(alpha, draws)
        return draws._data

    def backward(self, m, g, alpha, draws):
        if m.is_graph:
            raise RuntimeError("derivative for _standard_gamma_grad is not implemented")
        return g * special.standard_gamma_grad(alpha, draws), None


class BinomialBackward(Node):
    """torch.binomial: the draws (made before the node records) pass through; torch has no
    derivative."""

    def forward(self, count, prob, draws):
        return draws._data

    def backward(self, m, g):
        raise RuntimeError("derivative for aten::binomial is not implemented")


BinomialBackward.__name__ = BinomialBackward.__qualname__ = "NotImplemented"  # torch's name
