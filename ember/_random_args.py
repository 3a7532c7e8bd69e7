"""torch's argument checks for the random fills (dtypes, bounds, probabilities), raised before
any value is drawn, so that a refused call leaves the generator's state as it was."""
import operator
import warnings

import numpy as np

from . import _dtype

_PROBABILITY_TENSOR = ("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this "
                       "error message be improved?  If so, please report an enhancement request "
                       "to PyTorch.)")


def _of(np_dtype):
    return _dtype.from_numpy_dtype(np_dtype)


def require_kind(np_dtype, kernel, kinds="fVc"):
    """torch's NotImplementedError for a random fill of an element type its kernel lacks
    (``kinds``: NumPy kind letters, "V" is bfloat16): never a silent cast of the draws."""
    if np.dtype(np_dtype).kind not in kinds:
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{_of(np_dtype).scalar_name}'")


def continuous(np_dtype, distribution, c_name=False):
    """exponential_ and cauchy_ refuse every non-real-floating dtype (complex too)."""
    if np.dtype(np_dtype).kind not in "fV":  # "V": bfloat16
        d = _of(np_dtype)
        raise RuntimeError(f"{distribution} distribution is a continuous probability "
                           f"distribution. dtype must be a floating point but you specified "
                           f"{d.c_name if c_name else d.scalar_name}")


def uniform_bounds(np_dtype, low, high):
    """uniform_(from, to): a floating dtype, both bounds representable, from <= to."""
    require_kind(np_dtype, "check_uniform_bounds")
    np_dtype = np.dtype(np_dtype)
    real = np.dtype(np_dtype.char.lower()) if np_dtype.kind == "c" else np_dtype
    limit = float(_dtype.finfo(_of(real)).max)
    for name, value in (("from", low), ("to", high)):
        if not -limit <= value <= limit:  # NaN too
            raise RuntimeError(f"{name} is out of bounds for {_of(np_dtype).c_name}")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={low:g} > to={high:g}")


def positive(value, op, name):
    """exponential_'s lambda, cauchy_'s sigma, log_normal_'s std: > 0 (NaN refused)."""
    if not value > 0:
        raise RuntimeError(f"{op} expects {name} > 0.0, but found {name}={value:g}")


def probability(p, op="bernoulli_", closed=True):
    """bernoulli_'s p in [0, 1]; geometric_'s in (0, 1) (NaN refused)."""
    if not (0 <= p <= 1 if closed else 0 < p < 1):
        interval = "[0, 1]" if closed else "(0, 1)"
        raise RuntimeError(f"{op} expects p to be in {interval}, but got p={p:g}")


def probabilities(probs):
    """torch.bernoulli(probs): every element in [0, 1] (NaN refused)."""
    if probs.dtype.kind == "V":  # bfloat16: ml_dtypes' comparisons warn on NaN
        probs = probs.astype(np.float32)
    if probs.size and not ((probs >= 0) & (probs <= 1)).all():
        raise RuntimeError(_PROBABILITY_TENSOR)


_DIGITS = {"e": 11, "E": 8, "f": 24, "d": 53}  # mantissa bits, the implicit one too ("E": bfloat16)
_RANDOM_SIGNATURES = (" * (*, torch.Generator generator = None)\n"
                      " * (int from, int to, *, torch.Generator generator = None)\n"
                      " * (int to, *, torch.Generator generator = None)\n")


def as_int(value):
    """``value`` as torch's ``int`` parameter reads it (a Python or NumPy integer, an integral
    0-d tensor; never a bool, a float or a bool tensor), or None; past int64: ValueError."""
    kind = getattr(getattr(value, "_data", value), "dtype", np.dtype(type(value))).kind
    if isinstance(value, bool) or kind not in "iuO" or getattr(value, "ndim", 0):
        return None
    try:
        number = operator.index(value)
    except TypeError:
        return None
    if not -1 << 63 <= number < 1 << 63:
        raise ValueError("Overflow when unpacking long long")
    return number


def type_names(args, kwargs=()):
    """torch's "got (...)" list of an invalid combination of arguments."""
    def name(value):
        kind = type(value)
        return ("Tensor" if kind.__name__ == "Tensor" else kind.__name__
                if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__qualname__}")
    listed = [name(v) for v in args] + [f"{k}={name(v)}" for k, v in kwargs]
    return ", ".join(listed) + (", " if kwargs else "")


def random_args(args, to):
    """(from, to) of Tensor.random_'s call forms: (), (to), (from, to) with to None: the
    dtype's top; (None, None) for the no-argument fill; torch's TypeError for a non-int."""
    given = tuple(args) + (() if to is NO_TO else (to,))
    if len(given) > 2:
        raise TypeError(f"random_() takes 2 positional arguments but {len(given)} were given")
    bounds = [None if v is None and i == 1 else as_int(v) for i, v in enumerate(given)]
    not_int = len(given) == 2 and bounds[1] is None and given[1] is not None
    if None in bounds[:1] or not_int:
        kwargs = (("to", to),) if to is not NO_TO else ()
        raise TypeError(f"random_() received an invalid combination of arguments - got "
                        f"({type_names(args, kwargs)}), but expected one of:\n"
                        + _RANDOM_SIGNATURES)
    if not given:
        return None, None
    return (0, bounds[0]) if len(given) == 1 else tuple(bounds)


NO_TO = object()  # random_(x): x is `to`; random_(x, None): x is `from`, up to the dtype's top


def full_range(np_dtype):
    """random_()'s [0, to): [0, 2^mantissa] for a floating dtype, else [0, the dtype's max]."""
    np_dtype = np.dtype(np_dtype)
    require_kind(np_dtype, "random_kernel_cpu", "biufV")
    if np_dtype.char in _DIGITS:
        return 0, (1 << _DIGITS[np_dtype.char]) + 1
    return 0, 2 if np_dtype.kind == "b" else int(np.iinfo(np_dtype).max) + 1


def _round_to_digits(number, digits):
    """An integer rounded half-to-even to ``digits`` significant bits (a cast to a float)."""
    drop = abs(number).bit_length() - digits
    if drop <= 0:
        return number
    quotient, remainder = divmod(abs(number), 1 << drop)
    half = 1 << (drop - 1)
    quotient += remainder > half or (remainder == half and quotient & 1)
    return (quotient << drop) * (1 if number >= 0 else -1)


def _cast_from(low, digits):
    """torch moves ``from`` up to a representable value when from + 1 rounds below it."""
    above = _round_to_digits(low + 1, digits)
    if above < low:
        low = above + (1 << (abs(low + 1).bit_length() - digits))
    return low


def _cast_to(high, digits):
    """... and ``to`` down when to - 1 rounds to it or past it."""
    below = _round_to_digits(high - 1, digits)
    if below >= high:
        high = below - (1 << (abs(high - 1).bit_length() - digits))
    return high


def from_to(np_dtype, low, high):
    """random_(from, to) / randint: torch's checks of [from, to) for the dtype, in its order;
    the [from, to) drawn (a floating dtype moves bounds its cast would cross)."""
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={low} >= to={high}")
    digits = _DIGITS.get(np.dtype(np_dtype).char)
    if digits is not None:
        low, high = _cast_from(low, digits), _cast_to(high, digits)
        if low >= high:
            raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than 'to' "
                               f"casted to dtype, but got from={low} >= to={high}")
    _in_range(np_dtype, low, high - 1)
    return low, high


def from_top(np_dtype, low, size):
    """random_(from, None): [from, the dtype's top] as [from, to); None for torch's full 64-bit
    fill (from = int64's lowest), which only int64, float32/64 and bfloat16 take."""
    np_dtype = np.dtype(np_dtype)
    if low == -1 << 63:
        if size and (np_dtype.kind in "bc" or np_dtype == np.float16):
            require_kind(np_dtype, "random_full_64_bits_range_kernel_cpu", "")
        if size and np_dtype.kind != "V" and np_dtype not in (np.int64, np.float32, np.float64):
            raise RuntimeError("random_full_64_bits_range_kernel_cpu handles only int64, "
                               "double, float and bfloat16")
        return None
    digits = _DIGITS.get(np_dtype.char)
    if digits is not None:
        top, low = min(1 << digits, (1 << 63) - 1), _cast_from(low, digits)
        if low >= top:
            raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or "
                               f"equal to 'to_inc' casted to dtype, but got from={low} > "
                               f"to_inc={top}")
    elif np_dtype.kind in "biu":
        top = 1 if np_dtype.kind == "b" else int(np.iinfo(np_dtype).max)
    else:
        raise RuntimeError("random_from_to_impl handles only integral, floating-point and "
                           "boolean types")
    _in_range(np_dtype, low, top)
    return low, top + 1


def _in_range(np_dtype, low, top):
    """from and to - 1 representable (a floating dtype warns past its exact integers)."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype.kind in "fV":
        info = _dtype.finfo(_of(np_dtype))
        least, most = float(info.min), float(info.max)
    elif np_dtype.kind in "biu":
        least, most = (0, 1) if np_dtype.kind == "b" else (int(np.iinfo(np_dtype).min),
                                                          int(np.iinfo(np_dtype).max))
    else:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and "
                           "boolean types")
    c_name = _of(np_dtype).c_name
    for name, value in (("from", low), ("to - 1", top)):
        if not least <= value <= most:
            raise RuntimeError(f"{name} is out of bounds for {c_name}")
    digits = _DIGITS.get(np_dtype.char)
    for name, value in (("from", low), ("to - 1", top)):
        if digits is not None and not -(1 << digits) <= value <= 1 << digits:
            warnings.warn(f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to "
                          f"precision limitations {c_name} can support discrete uniform "
                          f"distribution only within this range. This warning will become an "
                          f"error in version 1.7 release, please fix the code in advance",
                          UserWarning, stacklevel=4)
