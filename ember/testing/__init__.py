"""torch.testing: assert_close (tensors, numbers, and sequences and mappings of them, with
torch's per-dtype tolerances and its failure messages) and the deprecated assert_allclose."""
import collections.abc
import math
import warnings

import numpy as np

from .._creation import as_tensor
from .._tensor import Tensor

__all__ = ["assert_close", "assert_allclose"]

# (rtol, atol) by dtype name, as torch's defaults; integers and bool compare exactly
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7), "complex32": (1e-3, 1e-5), "complex64": (1.3e-6, 1e-5),
               "complex128": (1e-7, 1e-7)}


class _Failure(Exception):
    """A mismatch (or a TypeError/ValueError to raise as such), with where it occurred."""

    def __init__(self, message, kind=AssertionError):
        super().__init__(message)
        self.message, self.kind, self.path = message, kind, ""


def _tolerance(dtype_names, rtol, atol):
    if (rtol is None) != (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise _Failure(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                       f"no {missing}.", ValueError)
    if rtol is not None:
        return rtol, atol
    pairs = [_TOLERANCES.get(name, (0.0, 0.0)) for name in dtype_names]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _allowed(value):
    return f" (up to {value} allowed)"


def _compare_scalars(actual, expected, rtol, atol, equal_nan):
    if type(actual) is bool or type(expected) is bool:
        if type(actual) is not type(expected):
            raise _Failure(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
        if actual is not expected:
            raise _Failure(f"Booleans mismatch: {actual} is not {expected}")
        return
    if type(actual) is not type(expected):
        raise _Failure(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
    names = ["complex128" if isinstance(actual, complex) else
             "float64" if isinstance(actual, float) else "int64"]
    rtol, atol = _tolerance(names, rtol, atol)
    _scalar_message(actual, expected, rtol, atol, equal_nan)


def _scalar_message(actual, expected, rtol, atol, equal_nan):
    both_nan = equal_nan and _isnan(actual) and _isnan(expected)
    diff = abs(actual - expected)
    if both_nan or actual == expected or diff <= atol + rtol * abs(expected):
        return
    exact = rtol == 0 and atol == 0
    rel = diff / abs(expected) if expected != 0 else math.inf
    raise _Failure(f"Scalars are not {'equal' if exact else 'close'}!\n\nExpected {expected} "
                   f"but got {actual}.\nAbsolute difference: {diff}"
                   f"{'' if exact else _allowed(atol)}\nRelative difference: {rel}"
                   f"{'' if exact else _allowed(rtol)}")


def _isnan(x):
    return isinstance(x, (float, complex)) and x != x


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_dtype, check_stride):
    for attribute, get in (("shape", lambda t: t.shape), ("dtype", lambda t: t.dtype)):
        if attribute == "dtype" and not check_dtype:
            continue
        if get(actual) != get(expected):
            raise _Failure(f"The values for attribute '{attribute}' do not match: "
                           f"{get(actual)} != {get(expected)}.")
    if check_stride and actual.numel() > 1 and actual.stride() != expected.stride():
        raise _Failure(f"The values for attribute 'stride()' do not match: {actual.stride()} "
                       f"!= {expected.stride()}.")
    names = [str(actual.dtype).split(".")[-1], str(expected.dtype).split(".")[-1]]
    rtol, atol = _tolerance(names, rtol, atol)
    a, e = actual.detach().cpu()._data, expected.detach().cpu()._data
    if a.dtype != e.dtype:
        common = np.promote_types(a.dtype, e.dtype)
        a, e = a.astype(common), e.astype(common)
    if a.ndim == 0:  # a 0-d tensor reads as a scalar
        return _scalar_message(a.item(), e.item(), rtol, atol, equal_nan)
    if a.dtype == np.bool_:
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(all="ignore"):
        exactly = a == e
        close = exactly | (np.abs(a - e) <= atol + rtol * np.abs(e))
        if equal_nan:
            close |= np.isnan(a) & np.isnan(e)
        if close.all():
            return
        wide = a.dtype if a.dtype.kind in "fcV" else np.dtype(np.int64)  # (V: bfloat16)
        diff = np.abs(a.astype(wide) - e.astype(wide))
        # the relative difference in the dtype (integers: the default float32), as torch's
        real = diff.dtype if diff.dtype.kind in "fV" else np.dtype(np.float32)
        rel = diff.astype(real) / np.abs(e).astype(real)
    exact = rtol == 0 and atol == 0
    count, total = int((~close).sum()), close.size
    lines = [f"Tensor-likes are not {'equal' if exact else 'close'}!", "",
             f"Mismatched elements: {count} / {total} ({count / total * 100:.1f}%)"]
    mismatched = np.flatnonzero(~close)
    for label, values, tol in (("absolute", diff, atol), ("relative", rel, rtol)):
        flat = values.reshape(-1)  # the greatest over the mismatched elements (NaN first)
        part = flat[mismatched]
        nan = np.isnan(part) if part.dtype.kind == "f" else np.zeros(part.shape, bool)
        at = int(mismatched[np.argmax(nan) if nan.any() else np.argmax(part)])
        index = tuple(int(i) for i in np.unravel_index(at, values.shape))
        lines.append(f"Greatest {label} difference: {flat[at].item()} at index {index}"
                     f"{'' if exact else _allowed(tol)}")
    raise _Failure("\n".join(lines))


def _compare(actual, expected, path, **options):
    if actual is None and expected is None:
        return
    tensors = isinstance(actual, Tensor), isinstance(expected, Tensor)
    if all(tensors):
        return _compare_tensors(actual, expected, options["rtol"], options["atol"],
                                options["equal_nan"], options["check_dtype"],
                                options["check_stride"])
    numbers = (bool, int, float, complex)
    if not any(tensors) and isinstance(actual, numbers) and isinstance(expected, numbers):
        return _compare_scalars(actual, expected, options["rtol"], options["atol"],
                                options["equal_nan"])
    sequences = [isinstance(x, collections.abc.Sequence) and not isinstance(x, (str, bytes))
                 for x in (actual, expected)]
    if all(sequences):
        if len(actual) != len(expected):
            raise _Failure(f"The length of the sequences mismatch: {len(actual)} != "
                           f"{len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _within(a, e, f"{path}[{i}]", **options)
        return
    if isinstance(actual, collections.abc.Mapping) and \
            isinstance(expected, collections.abc.Mapping):
        if set(actual) != set(expected):
            missing = sorted(set(expected) - set(actual), key=repr)
            extra = sorted(set(actual) - set(expected), key=repr)
            raise _Failure(f"The keys of the mappings do not match:\nMissing keys in the actual "
                           f"mapping: {missing}\nAdditional keys in the actual mapping: {extra}")
        for key in actual:
            _within(actual[key], expected[key], f"{path}[{key!r}]", **options)
        return
    raise _Failure(f"No comparison pair was able to handle inputs of type {type(actual)} and "
                   f"{type(expected)}.", TypeError)


def _within(actual, expected, path, **options):
    """_compare of an item, the failure marked with the item's path (the innermost one)."""
    try:
        _compare(actual, expected, path, **options)
    except _Failure as failure:
        failure.path = failure.path or path
        raise


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise AssertionError unless ``actual`` and ``expected`` are close: same shape (and dtype
    when ``check_dtype``), and |actual - expected| <= atol + rtol * |expected| elementwise, with
    torch's default tolerances for the dtypes (exact for integers and bool)."""
    try:
        _compare(actual, expected, "", rtol=rtol, atol=atol, equal_nan=equal_nan,
                 check_dtype=check_dtype, check_stride=check_stride)
    except _Failure as failure:
        if failure.kind is not AssertionError:
            raise failure.kind(failure.message) from None
        message = failure.message
        if failure.path:
            message += f"\n\nThe failure occurred for item {failure.path}"
        if msg is not None:
            message = msg(message) if callable(msg) else msg
        raise AssertionError(message) from None


_ALLCLOSE = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg=""):
    """Deprecated in torch (1.12) for assert_close: its older tolerances, NaN equal."""
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed "
                  "in a future release. Please use `torch.testing.assert_close()` instead. You can "
                  "find detailed upgrade instructions in "
                  "https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    actual = actual if isinstance(actual, Tensor) else as_tensor(actual)
    expected = expected if isinstance(expected, Tensor) else as_tensor(expected,
                                                                       dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _ALLCLOSE.get(str(actual.dtype).split(".")[-1], (0.0, 0.0))
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
