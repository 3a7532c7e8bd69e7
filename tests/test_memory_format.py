"""ember/_memory_format.py: torch's memory formats, channels-last layouts through contiguous, to
and clone (strides as torch's), is_contiguous per format, and the rank errors."""
import numpy as np
import pytest
import torch
from oracle import same_error

import ember

VALUES = np.random.default_rng(0).standard_normal((2, 3, 4, 5)).astype(np.float32)


def test_formats_are_distinct_objects_named_like_torch():
    names = ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format")
    assert [repr(getattr(ember, n)) for n in names] == \
        [repr(getattr(torch, n)).replace("torch", "ember") for n in names]
    assert ember.channels_last != ember.contiguous_format
    assert isinstance(ember.channels_last, ember.memory_format)


@pytest.mark.parametrize("make", [
    lambda lib, x: x.contiguous(memory_format=lib.channels_last),
    lambda lib, x: x.to(memory_format=lib.channels_last),
    lambda lib, x: x.clone(memory_format=lib.channels_last),
    lambda lib, x: x.contiguous(memory_format=lib.channels_last).clone(),
    lambda lib, x: x.contiguous(memory_format=lib.channels_last) * 2,
    lambda lib, x: x.contiguous(memory_format=lib.channels_last).contiguous(),
    lambda lib, x: x.to(lib.float64, memory_format=lib.channels_last),
    lambda lib, x: x.transpose(1, 3).clone(),
    lambda lib, x: x.transpose(1, 3).clone(memory_format=lib.contiguous_format),
])
def test_layouts_match_torch(make):
    seen = []
    for lib in (ember, torch):
        x = lib.tensor(VALUES, requires_grad=True)
        y = make(lib, x)
        y.sum().backward()
        seen.append((y.stride(), y.is_contiguous(),
                     y.is_contiguous(memory_format=lib.channels_last), y.detach().numpy().copy(),
                     x.grad.stride(), type(y.grad_fn).__name__))
    assert seen[0][:3] == seen[1][:3] and seen[0][4:] == seen[1][4:]
    np.testing.assert_array_equal(seen[0][3], seen[1][3])


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 1, 4, 5), (2, 3, 1, 1), (2, 3, 4)])
def test_is_contiguous_per_format_matches_torch(shape):
    for fmt in ("channels_last", "contiguous_format", "channels_last_3d"):
        assert ember.zeros(shape).is_contiguous(memory_format=getattr(ember, fmt)) == \
            torch.zeros(shape).is_contiguous(memory_format=getattr(torch, fmt))


def test_channels_last_3d_and_no_copy_when_laid_out():
    x = ember.zeros(2, 3, 4, 5, 6).to(memory_format=ember.channels_last_3d)
    assert x.stride() == torch.zeros(2, 3, 4, 5, 6).to(
        memory_format=torch.channels_last_3d).stride()
    assert x.contiguous(memory_format=ember.channels_last_3d) is x


@pytest.mark.parametrize("call", [
    lambda lib: lib.zeros(2, 3).contiguous(memory_format=lib.channels_last),
    lambda lib: lib.zeros(2, 3, 4).to(memory_format=lib.channels_last_3d),
    lambda lib: lib.zeros(2, 3, 4).clone(memory_format=lib.channels_last),
])
def test_wrong_rank_raises_like_torch(call):
    same_error(call)


@pytest.mark.parametrize("make", [
    lambda lib: lib.empty(2, 3, 4, 5, memory_format=lib.channels_last),
    lambda lib: lib.empty(2, 3, 4, 5, memory_format=lib.contiguous_format),
    lambda lib: lib.empty_like(lib.empty(2, 3, 4, 5, memory_format=lib.channels_last)),
    lambda lib: lib.zeros_like(lib.empty(2, 3, 4, 5, memory_format=lib.channels_last)),
    lambda lib: lib.ones_like(lib.empty(2, 3, 4, 5).to(memory_format=lib.channels_last),
                              dtype=lib.float64),
    lambda lib: lib.full_like(lib.empty(2, 3, 4, 5, memory_format=lib.channels_last), 2.0),
    lambda lib: lib.zeros_like(lib.empty(2, 3, 4, 5, memory_format=lib.channels_last),
                               memory_format=lib.contiguous_format),
    lambda lib: lib.zeros_like(lib.empty(2, 3, 4, 5), memory_format=lib.channels_last),
    lambda lib: lib.zeros_like(lib.ones(3, 4).t()),
    lambda lib: lib.zeros_like(lib.ones(3, 4), requires_grad=True),
])
def test_factories_lay_out_like_torch(make):
    ours, theirs = make(ember), make(torch)
    assert (ours.stride(), ours.requires_grad) == (theirs.stride(), theirs.requires_grad)
    if "empty" not in make.__code__.co_names or "zeros_like" in make.__code__.co_names:
        assert ours.tolist() == theirs.tolist()  # the values (empty's are undefined)


def test_empty_channels_last_needs_rank_4_like_torch():
    messages = []
    for lib in (ember, torch):
        with pytest.raises(RuntimeError) as info:
            lib.empty(2, 3, memory_format=lib.channels_last)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
