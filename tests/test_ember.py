"""The top-level namespace (ember/__init__.py): the helper functions (is_tensor, numel, typename,
threads), sub-packages that load on first use, save/load resolved lazily, aliases, and torch's
AttributeError for an unknown name."""
import subprocess
import sys

import numpy as np
import pytest
import torch
from oracle import check

import ember


@pytest.mark.parametrize("call", [
    lambda L: L.is_tensor(L.zeros(1)), lambda L: L.is_tensor([1.0]),
    lambda L: L.is_floating_point(L.zeros(1)), lambda L: L.is_floating_point(L.zeros(1).long()),
    lambda L: L.numel(L.zeros(2, 3)), lambda L: L.typename(3),
    lambda L: L.typename(L.zeros(1)).split(".")[1],
    lambda L: L.typename(L.zeros(1, dtype=L.int64)).split(".")[1],
])
def test_helpers_answer_as_torch(call):
    assert call(ember) == call(torch)


def test_threads_are_reported_and_set_threads_is_accepted():
    assert isinstance(ember.get_num_threads(), int) and ember.get_num_threads() >= 1
    assert ember.set_num_threads(1) is None


def test_subpackages_and_save_load_load_on_first_use():
    code = ("import sys, ember; lazy = ['ember.optim', 'ember.serialization', 'ember.viz']; "
            "assert not any(m in sys.modules for m in lazy), lazy; "
            "ember.optim.SGD; ember.save; ember.viz; "
            "assert all(m in sys.modules for m in lazy)")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("fn", [
    lambda L, x, y: L.subtract(x, y), lambda L, x, y: L.multiply(x, y),
    lambda L, x, y: L.divide(x, y + 3), lambda L, x, y: L.negative(x),
    lambda L, x, y: L.clip(x, -0.5, 0.5), lambda L, x, y: L.ger(x, y),
])
def test_aliases_match_torch(fn):
    r = np.random.default_rng(0)
    check(fn, r.standard_normal(3), r.standard_normal(3))


def test_unknown_name_raises_like_torch():
    messages = []
    for lib in (ember, torch):
        with pytest.raises(AttributeError) as info:
            lib.no_such_name
        messages.append(str(info.value).replace("torch", "ember"))
    assert messages[0] == messages[1]


def test_complex_names_are_exported_as_torch_names_them():
    for name in ("complex", "polar", "view_as_complex", "view_as_real", "real", "imag", "conj",
                 "angle", "complex64", "complex128", "complex32", "cfloat", "cdouble", "chalf",
                 "conj_physical", "resolve_conj", "is_conj", "fft"):
        assert hasattr(torch, name) and hasattr(ember, name), name
    assert ember.cfloat is ember.complex64 and ember.cdouble is ember.complex128


def test_assert_raises_its_message_as_torch():
    for lib in (torch, ember):
        lib._assert(True, "unused")
        with pytest.raises(AssertionError, match="^custom$"):
            lib._assert(False, "custom")
