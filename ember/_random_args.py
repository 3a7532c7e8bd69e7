"""torch's argument checks for the random fills (dtypes, bounds, probabilities), raised before
any value is drawn, so that a refused call leaves the generator's state as it was."""
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
    if probs.size and not ((probs >= 0) & (probs <= 1)).all():
        raise RuntimeError(_PROBABILITY_TENSOR)


def integer_bounds(np_dtype, low, high):
    """random_(from, to) / randint into an integer dtype: from and to - 1 representable."""
    np_dtype = np.dtype(np_dtype)
    if np_dtype.kind == "c":
        raise RuntimeError("check_random_bounds handles only integral, floating-point and boolean "
                           "types")
    if np_dtype.kind not in "iub":
        return
    lowest, highest = (0, 1) if np_dtype.kind == "b" else \
        (int(np.iinfo(np_dtype).min), int(np.iinfo(np_dtype).max))
    if low < high and not lowest <= low <= highest:
        raise RuntimeError(f"from is out of bounds for {_of(np_dtype).c_name}")
    if low < high and not lowest <= high - 1 <= highest:
        raise RuntimeError(f"to - 1 is out of bounds for {_of(np_dtype).c_name}")
