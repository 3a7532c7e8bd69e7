"""ember.testing: assert_close, torch.testing's comparison of tensors, scalars and containers."""
from collections.abc import Mapping, Sequence

from .. import _dtype, tensor
from .._tensor import Tensor

# (rtol, atol) by dtype when neither is given, as torch's defaults; exact for the rest
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5),
               "complex128": (1e-7, 1e-7)}


class _Mismatch(AssertionError):
    """A failed comparison; ``where`` collects the container items it happened in."""

    def __init__(self, message, where=""):
        super().__init__(message)
        self.message, self.where = message, where


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Raise AssertionError unless ``actual`` and ``expected`` match: same shape (and dtype,
    unless ``check_dtype=False``), and every value within ``atol + rtol * |expected|``."""
    if (rtol is None) != (atol is None):
        missing = "atol" if atol is None else "rtol"
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, "
                         f"but got no {missing}.")
    try:
        _compare(actual, expected, dict(rtol=rtol, atol=atol, equal_nan=equal_nan,
                                        check_dtype=check_dtype, check_stride=check_stride))
    except _Mismatch as failure:
        text = failure.message
        if failure.where:
            text += f"\n\nThe failure occurred for item {failure.where}"
        if msg is not None:
            text = msg(text) if callable(msg) else msg
        raise AssertionError(text) from None


def _compare(actual, expected, options):
    if isinstance(actual, (str, bytes)) or isinstance(expected, (str, bytes)):
        _no_pair(actual, expected)
    if isinstance(actual, Mapping) and isinstance(expected, Mapping):
        return _compare_items(actual, expected, options, mapping=True)
    if isinstance(actual, Sequence) and isinstance(expected, Sequence):
        return _compare_items(actual, expected, options, mapping=False)
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        return _compare_tensors(actual, expected, options)
    scalars = (bool, int, float, complex)
    if isinstance(actual, scalars) and isinstance(expected, scalars):
        return _compare_tensors(_as_tensor(actual), _as_tensor(expected), options)
    _no_pair(actual, expected)


def _no_pair(actual, expected):
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} "
                    f"and {type(expected)}.")


def _as_tensor(value):
    return tensor(value, dtype=_dtype.float64 if isinstance(value, float) else None)


def _compare_items(actual, expected, options, mapping):
    if mapping:
        if set(actual) != set(expected):
            missing = sorted(set(expected) - set(actual), key=repr)
            extra = sorted(set(actual) - set(expected), key=repr)
            raise _Mismatch(f"The keys of the mappings do not match:\n"
                            f"Missing keys in the actual mapping: {missing}\n"
                            f"Additional keys in the actual mapping: {extra}")
        keys = list(expected)
    else:
        if len(actual) != len(expected):
            raise _Mismatch(f"The length of the sequences mismatch: "
                            f"{len(actual)} != {len(expected)}")
        keys = range(len(expected))
    for key in keys:
        try:
            _compare(actual[key], expected[key], options)
        except _Mismatch as failure:
            raise _Mismatch(failure.message, f"[{key!r}]{failure.where}") from None


def _compare_tensors(actual, expected, options):
    for name, get, wanted in (("shape", lambda t: t.shape, True),
                              ("dtype", lambda t: t.dtype, options["check_dtype"]),
                              ("stride()", lambda t: t.stride(), options["check_stride"])):
        if wanted and get(actual) != get(expected):
            raise _Mismatch(f"The values for attribute '{name}' do not match: "
                            f"{get(actual)} != {get(expected)}.")
    rtol, atol = options["rtol"], options["atol"]
    if rtol is None:
        pairs = [_TOLERANCES.get(t.dtype.name, (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    common = _dtype.promote_types(actual.dtype, expected.dtype)
    if common is _dtype.bool_:  # bools compare (and subtract) as integers
        common = _dtype.int64
    actual, expected = actual.detach().to(common), expected.detach().to(common)
    matches = actual.isclose(expected, rtol=rtol, atol=atol, equal_nan=options["equal_nan"])
    if bool(matches.all()):
        return
    exact = rtol == 0 and atol == 0
    kind = "equal" if exact else "close"
    abs_diff = (actual - expected).abs().masked_fill(matches, 0)
    rel_diff = (abs_diff / expected.abs()).masked_fill(matches, 0)
    atol_note = "" if exact else f" (up to {atol} allowed)"
    rtol_note = "" if exact else f" (up to {rtol} allowed)"
    if actual.dim() == 0:
        raise _Mismatch(f"Scalars are not {kind}!\n\nExpected {expected.item()} but got "
                        f"{actual.item()}.\nAbsolute difference: {abs_diff.item()}{atol_note}\n"
                        f"Relative difference: {rel_diff.item()}{rtol_note}")
    total, wrong = matches.numel(), matches.numel() - int(matches.sum())
    lines = [f"Tensor-likes are not {kind}!\n", f"Mismatched elements: {wrong} / {total} "
             f"({wrong / total * 100:.1f}%)"]
    for name, diff, note in (("absolute", abs_diff, atol_note), ("relative", rel_diff, rtol_note)):
        flat = diff.reshape(-1)
        at = int(flat.argmax())
        lines.append(f"Greatest {name} difference: {flat[at].item()} at index "
                     f"{_unravel(at, actual.shape)}{note}")
    raise _Mismatch("\n".join(lines))


def _unravel(flat_index, shape):
    index = []
    for size in reversed(shape):
        flat_index, position = divmod(flat_index, size)
        index.append(position)
    return tuple(reversed(index))


__all__ = ["assert_close"]
