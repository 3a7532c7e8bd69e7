"""OpInfo entries for issue 14's extra element-wise ops (ember/ops/elementwise_extra.py,
fused_products.py): unary special functions, binary math, fused multiply-adds, in-place forms."""
import numpy as np
from opinfo import OpInfo, Sample, _binary_samples, _gen, _unary_samples


def _domain(name, low, high):
    real, _ = _gen(name)
    return [Sample((real(3, 4, low=low, high=high),), "2d"),
            Sample((real(5, low=low, high=high),), "1d"),
            Sample((real(low=low, high=high),), "scalar"),
            Sample((np.zeros((0, 3)),), "empty")]


def _unary():
    table = {  # name: samples
        "acosh": _domain("acosh", 1.2, 4.0), "asinh": _unary_samples("asinh"),
        "atanh": _unary_samples("atanh", "unit"), "erfc": _unary_samples("erfc"),
        "erfinv": _unary_samples("erfinv", "unit"), "exp2": _unary_samples("exp2"),
        "lgamma": _domain("lgamma", 0.2, 5.0) + [Sample((np.array([-2.5, -0.5, -1.3]),),
                                                      "negative")],
        "digamma": _domain("digamma", 0.2, 5.0) + [Sample((np.array([-2.5, -0.5, -1.3]),),
                                                        "negative")],
        "i0": _unary_samples("i0", large=30.0), "sinc": _unary_samples("sinc"),
        "frac": _domain("frac", 0.1, 0.9) + _domain("frac_neg", -1.9, -1.1)[:1],
        "sgn": _unary_samples("sgn"), "deg2rad": _unary_samples("deg2rad"),
        "rad2deg": _unary_samples("rad2deg"),
    }
    ops = [OpInfo(n, (lambda n: lambda L, x: getattr(L, n)(x))(n), s) for n, s in table.items()]
    ops += [OpInfo("polygamma_1", lambda L, x: L.polygamma(1, x), _domain("polygamma", 0.3, 4)),
            OpInfo("polygamma_2", lambda L, x: x.polygamma(2), _domain("polygamma2", 0.3, 4)),
            OpInfo("logit", lambda L, x: L.logit(x), _domain("logit", 0.1, 0.9)),
            OpInfo("logit_eps", lambda L, x: x.logit(eps=0.2), _domain("logit_eps", 0.25, 0.75)),
            OpInfo("mvlgamma", lambda L, x: L.mvlgamma(x, 3), _domain("mvlgamma", 1.5, 4))]
    return ops


def _binary():
    positive_rhs = {"xlogy", "fmod"}
    table = {
        "atan2": lambda L, a, b: L.atan2(a, b), "hypot": lambda L, a, b: L.hypot(a, b),
        "fmod": lambda L, a, b: L.fmod(a, b), "copysign": lambda L, a, b: L.copysign(a, b),
        "fmax": lambda L, a, b: L.fmax(a, b), "fmin": lambda L, a, b: a.fmin(b),
        "logaddexp": lambda L, a, b: L.logaddexp(a, b),
        "logaddexp2": lambda L, a, b: a.logaddexp2(b), "xlogy": lambda L, a, b: L.xlogy(a, b),
        "ldexp": lambda L, a, b: L.ldexp(a, b),
    }
    ops = [OpInfo(n, f, _binary_samples(n, "pos" if n in positive_rhs else "real"))
           for n, f in table.items()]
    ldexp = ops[-1]  # 2^1000 overflows float32: its second derivative is inf - inf
    ldexp.samples = [s for s in ldexp.samples if s.tag != "large"]
    real, pos = _gen("scalars")
    ops += [OpInfo("fmod_scalar", lambda L, x: L.fmod(x, 0.7), [Sample((real(3, 4),), "2d")]),
            OpInfo("copysign_scalar", lambda L, x: x.copysign(-1.5), [Sample((real(3),), "1d")]),
            OpInfo("xlogy_scalar", lambda L, x: L.xlogy(x, 2.5), [Sample((real(3),), "1d")]),
            OpInfo("xlogy_scalar_input", lambda L, x: L.xlogy(2.5, x), [Sample((pos(3),), "1d")])]
    return ops


def _fused():
    real, pos = _gen("fused")
    return [
        OpInfo("addcmul", lambda L, i, a, b: L.addcmul(i, a, b, value=0.5),
               [Sample((real(3, 4), real(4), real(3, 4)), "bcast")]),
        OpInfo("addcdiv", lambda L, i, a, b: i.addcdiv(a, b, value=-2),
               [Sample((real(3, 4), real(3, 4), pos(4)), "bcast")]),
        OpInfo("addmv", lambda L, i, m, v: L.addmv(i, m, v, beta=0.5, alpha=2),
               [Sample((real(3), real(3, 4), real(4)), "vec"),
                Sample((real(), real(3, 4), real(4)), "scalar_input")]),
        OpInfo("addr", lambda L, i, a, b: L.addr(i, a, b, alpha=-1),
               [Sample((real(3, 4), real(3), real(4)), "matrix"),
                Sample((real(4), real(3), real(4)), "bcast")]),
        OpInfo("addbmm", lambda L, i, a, b: i.addbmm(a, b, beta=2),
               [Sample((real(3, 2), real(2, 3, 4), real(2, 4, 2)), "batch")]),
        OpInfo("addcmul_", lambda L, i, a, b: (i * 1).addcmul_(a, b, value=2),
               [Sample((real(3, 4), real(4), real(3, 4)), "bcast")]),
        OpInfo("lgamma_", lambda L, x: (x * 1).lgamma_(), [Sample((pos(3, 4),), "2d")]),
    ]


ELEMENTWISE_OPS = _unary() + _binary() + _fused()
