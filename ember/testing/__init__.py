"""torch.testing: assert_close (tensors, numbers, and sequences or mappings of them, compared
elementwise within a tolerance that defaults by dtype) with torch's failure messages."""
import collections.abc
import numbers

import numpy as np

import ember

__all__ = ["assert_close"]

# (rtol, atol) by dtype when neither is given; exact for the others (integers, bool)
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5),
               "complex128": (1e-7, 1e-7)}


class _Mismatch(Exception):
    """One failed comparison: the exception type torch raises and its message."""

    def __init__(self, kind, message):
        super().__init__(message)
        self.kind, self.message = kind, message


def _default_tolerances(*dtypes):
    pairs = [_TOLERANCES.get(str(d).split(".")[-1], (0.0, 0.0)) for d in dtypes]
    return max(p[0] for p in pairs), max(p[1] for p in pairs)


def _tolerances(rtol, atol, *dtypes):
    if (rtol is None) ^ (atol is None):
        missing = "rtol" if rtol is None else "atol"
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got "
                         f"no {missing}.")
    return (rtol, atol) if rtol is not None else _default_tolerances(*dtypes)


def _differences(actual, expected, rtol, atol):
    """(closeness words, the '(up to ... allowed)' suffixes) for a failure message."""
    if rtol == 0 and atol == 0:
        return "equal", "", ""
    return "close", f" (up to {atol} allowed)", f" (up to {rtol} allowed)"


def _compare_numbers(actual, expected, rtol, atol, equal_nan):
    if isinstance(actual, (bool, np.bool_)) and isinstance(expected, (bool, np.bool_)):
        if actual != expected:
            raise _Mismatch(AssertionError, f"Booleans mismatch: {actual} is not {expected}")
        return
    dtype = ember.float64 if isinstance(actual, float) or isinstance(expected, float) \
        else ember.int64
    rtol, atol = _tolerances(rtol, atol, dtype)
    if actual == expected or (equal_nan and actual != actual and expected != expected):
        return
    close = abs(actual - expected) <= atol + rtol * abs(expected)
    if close and not (actual != actual or expected != expected):
        return
    word, atol_text, rtol_text = _differences(actual, expected, rtol, atol)
    difference = abs(actual - expected)
    relative = difference / abs(expected) if expected else float("inf")
    raise _Mismatch(AssertionError, f"Scalars are not {word}!\n\nExpected {expected} but got "
                                    f"{actual}.\nAbsolute difference: {difference}{atol_text}\n"
                                    f"Relative difference: {relative}{rtol_text}")


def _check_attributes(actual, expected, check_dtype):
    for name, equal in (("shape", actual.shape == expected.shape),
                        ("dtype", not check_dtype or actual.dtype == expected.dtype)):
        if not equal:
            raise _Mismatch(AssertionError, f"The values for attribute '{name}' do not match: "
                                            f"{getattr(actual, name)} != "
                                            f"{getattr(expected, name)}.")


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_dtype):
    actual, expected = actual.detach(), expected.detach()
    _check_attributes(actual, expected, check_dtype)
    rtol, atol = _tolerances(rtol, atol, actual.dtype, expected.dtype)
    if actual.dtype != expected.dtype:
        common = ember.promote_types(actual.dtype, expected.dtype)
        actual, expected = actual.to(common), expected.to(common)
    if actual.dtype == ember.bool:
        actual, expected = actual.to(ember.int64), expected.to(ember.int64)
    mismatch = ~ember.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if not bool(mismatch.any()):
        return
    word, atol_text, rtol_text = _differences(actual, expected, rtol, atol)
    if actual.dim() == 0:
        difference = (actual - expected).abs()
        relative = difference / expected.abs()
        raise _Mismatch(AssertionError, f"Scalars are not {word}!\n\nExpected {expected.item()} "
                                        f"but got {actual.item()}.\nAbsolute difference: "
                                        f"{difference.item()}{atol_text}\nRelative difference: "
                                        f"{relative.item()}{rtol_text}")
    difference = (actual - expected).abs()
    relative = difference / expected.abs()
    lines = [f"Tensor-likes are not {word}!", "",
             f"Mismatched elements: {int(mismatch.sum())} / {mismatch.numel()} "
             f"({float(mismatch.sum()) / mismatch.numel() * 100:.1f}%)"]
    for label, values, allowed in (("absolute", difference, atol_text),
                                   ("relative", relative, rtol_text)):
        value, flat = ember.max(values.flatten(), 0)
        index = tuple(int(i) for i in np.unravel_index(int(flat), tuple(values.shape)))
        lines.append(f"Greatest {label} difference: {value.item()} at index {index}{allowed}")
    raise _Mismatch(AssertionError, "\n".join(lines))


def _tensor_like(value):
    return isinstance(value, (ember.Tensor, np.ndarray))


def _compare(actual, expected, options, path):
    if _tensor_like(actual) and _tensor_like(expected):
        return _compare_tensors(ember.as_tensor(actual), ember.as_tensor(expected), **options)
    numbers_ = (numbers.Number, np.number, np.bool_)
    if isinstance(actual, numbers_) and isinstance(expected, numbers_) and \
            not isinstance(actual, complex):
        return _compare_numbers(actual, expected, options["rtol"], options["atol"],
                                options["equal_nan"])
    if actual is None and expected is None:
        return None
    sequence = (collections.abc.Sequence, str)
    if isinstance(actual, collections.abc.Sequence) and isinstance(expected, sequence[0]) \
            and not isinstance(actual, str) and not isinstance(expected, str):
        if len(actual) != len(expected):
            raise _Mismatch(AssertionError, f"The length of the sequences mismatch: "
                                            f"{len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare_item(a, e, options, path + [i])
        return None
    if isinstance(actual, collections.abc.Mapping) and \
            isinstance(expected, collections.abc.Mapping):
        if set(actual) != set(expected):
            raise _Mismatch(AssertionError, f"The keys of the mappings do not match:\n"
                                            f"Missing keys in the actual mapping: "
                                            f"{sorted(set(expected) - set(actual))}\n"
                                            f"Additional keys in the actual mapping: "
                                            f"{sorted(set(actual) - set(expected))}")
        for key in actual:
            _compare_item(actual[key], expected[key], options, path + [key])
        return None
    raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type "
                               f"{type(actual)} and {type(expected)}.")


def _compare_item(actual, expected, options, path):
    try:
        _compare(actual, expected, options, path)
    except _Mismatch as failure:
        if failure.kind is AssertionError and "The failure occurred for item" not in \
                failure.message:
            where = "".join(f"[{key!r}]" for key in path)
            failure.message += f"\n\nThe failure occurred for item {where}"
        raise


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise AssertionError unless ``actual`` and ``expected`` have the same structure, shapes
    and (with ``check_dtype``) dtypes, and every value lies within
    ``atol + rtol * |expected|`` (defaults by dtype; integers and bool exactly)."""
    options = {"rtol": rtol, "atol": atol, "equal_nan": equal_nan, "check_dtype": check_dtype}
    _tolerances(rtol, atol, ember.float64)  # both or neither, checked before comparing
    try:
        _compare(actual, expected, options, [])
    except _Mismatch as failure:
        message = failure.message
        if failure.kind is AssertionError and msg is not None:
            message = msg(message) if callable(msg) else msg
        raise failure.kind(message) from None
