"""Printing (ember/_tensor_str.py) against torch 2.13: summaries and suffix wrapping."""
import numpy as np
import pytest
import torch

import ember


def _same_repr(build):
    e, t = build(ember), build(torch)
    assert repr(e) == repr(t).replace("torch.", "ember."), (repr(e), repr(t))


def _with_hidden(lib, shape, where, value):
    x = lib.full(shape, 0.5)
    x[where] = value
    return x


@pytest.mark.parametrize("shape,where", [((2, 784), (0, 400)), ((1500,), (700,)),
                                         ((40, 40), (20, 20)), ((3, 10, 50), (1, 5, 25))],
                         ids=str)
@pytest.mark.parametrize("value", [1e-6, 1e9, 123.25])
def test_summary_format_comes_from_shown_values(shape, where, value):
    _same_repr(lambda lib: _with_hidden(lib, shape, where, value))
    _same_repr(lambda lib: _with_hidden(lib, shape, (0,) * len(shape), value))  # shown


@pytest.mark.parametrize("n", [1, 3, 5, 6, 7, 8, 9, 12, 20, 40, 2000])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_suffixes_wrap_past_the_line_width(n, dtype):
    values = np.arange(n) * 1.2345

    def build(lib):
        leaf = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        return leaf * 2

    _same_repr(build)
    _same_repr(lambda lib: lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True))
    _same_repr(lambda lib: lib.tensor(values.reshape(1, n), dtype=getattr(lib, dtype)) * 1)


def test_wrapping_follows_the_line_width_option():
    for lib in (ember, torch):
        lib.set_printoptions(linewidth=50)
    try:
        _same_repr(lambda lib: lib.arange(6.0, requires_grad=True) * 3)
        _same_repr(lambda lib: lib.arange(6, dtype=lib.int32))
    finally:
        for lib in (ember, torch):
            lib.set_printoptions(profile="default")


@pytest.mark.parametrize("make", [lambda L: L.tensor([], dtype=L.int64),
                                  lambda L: L.zeros(0, 3, dtype=L.int64),
                                  lambda L: L.tensor([], dtype=L.bool), lambda L: L.zeros(0),
                                  lambda L: L.zeros(2, 0, dtype=L.int32),
                                  lambda L: L.nonzero(L.tensor(0.0), as_tuple=True)[0]])
def test_empty_tensors_name_their_dtype_as_torch(make):
    """An empty int64 or bool tensor names its dtype (a non-empty one leaves it implied)."""
    assert repr(make(ember)).replace("ember.", "torch.") == repr(make(torch))


def test_dual_tensor_shows_its_tangent_as_torch():
    shown = []
    for lib in (torch, ember):
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            shown.append([repr(fw.make_dual(lib.tensor(p), lib.tensor(t))) for p, t in (
                ([1.0, 2.0], [3.0, 4.0]), (1.0, 3.0),
                (np.arange(12.0).reshape(3, 4), np.ones((3, 4))))])
    assert shown[1] == [s.replace("torch.", "ember.") for s in shown[0]]


def _complex_cases(lib):
    t = lib.tensor
    rows = np.arange(2000).reshape(40, 50).astype(np.complex64) * (1 + 0.5j)
    return [t([1 + 2j, -3.5 - 0.25j, 0j]), t([[1 + 2j, 1e10j]]), t(3 + 4j), t([1e-5 + 1j, 100]),
            t([float("nan") + 1j, float("inf") * 1j]), t([1 + 1j], dtype=lib.complex128),
            t([0.1 + 0.2j, 3 + 4j]) * 1000000, t(rows), t([-0.0 - 0.0j, 1 - 0j]),
            t([], dtype=lib.complex64), t([-1 - 1j], requires_grad=True),
            t(np.linspace(-3, 3, 36).reshape(3, 12) * (1 - 2j))]


def test_complex_tensors_print_as_torch():
    for ours, theirs in zip(_complex_cases(ember), _complex_cases(torch)):
        assert repr(ours) == repr(theirs).replace("torch.", "ember.")


@pytest.mark.parametrize("sci_mode,values", [
    (False, [1e-8, 1.0]), (False, [1e-8, 1e12, 3.5]), (True, [1.0, 2.5]), (True, [1.0, 2.0]),
    (False, [100000.0, 1.0])])
def test_sci_mode_option_sets_the_column_width_as_torch(sci_mode, values):
    # the widths were measured in the automatic mode, then printed in the forced one
    texts = []
    for lib in (ember, torch):
        lib.set_printoptions(sci_mode=sci_mode)
        try:
            texts.append(str(lib.tensor(values)))
        finally:
            lib.set_printoptions(profile="default")
    assert texts[0] == texts[1]


def test_repr_of_extreme_magnitudes_warns_nothing():
    """[1e300, 1e-300]: the ratio of the extremes overflows; torch prints without a warning
    (NumPy's 'overflow encountered in scalar divide' leaked)."""
    import warnings

    import torch
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours = repr(ember.tensor([1e300, 1e-300], dtype=ember.float64))
    assert ours.replace("ember.", "torch.") == repr(torch.tensor([1e300, 1e-300],
                                                                 dtype=torch.float64))


@pytest.mark.parametrize("profile", ["short", "full", "default"])
def test_print_profiles_as_torch(profile):
    """profile= sets precision, threshold, edgeitems and linewidth together, as torch's
    ("full" prints every element; "short" two decimals and two edge items)."""
    out = []
    for lib in (torch, ember):
        lib.set_printoptions(precision=1, linewidth=40, edgeitems=1)
        try:
            lib.set_printoptions(profile=profile)
            out.append(repr(lib.arange(1005.0) / 7) + repr(lib.arange(12.0).view(3, 4) / 3))
        finally:
            lib.set_printoptions(profile="default")
    assert out[0].replace("torch", "ember") == out[1]
