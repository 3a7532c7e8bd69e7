"""torch's argument checks for random fills (ember/_random_args.py): refused dtypes, bounds and
probabilities raise torch's error before anything is drawn."""
import warnings

import numpy as np
import pytest
import torch
from oracle import same_error

import ember

_REFUSED_DRAWS = [
    lambda L: L.randn(3, dtype=L.int64), lambda L: L.rand(3, dtype=L.int64),
    lambda L: L.randn(3, dtype=L.bool), lambda L: L.randn_like(L.zeros(3, dtype=L.int64)),
    lambda L: L.rand_like(L.zeros(3, dtype=L.int32)),
    lambda L: L.normal(L.zeros(3, dtype=L.int64), 1.0),
    lambda L: L.empty(3, dtype=L.int64).normal_(), lambda L: L.empty(3, dtype=L.uint8).uniform_(),
    lambda L: L.empty(3, dtype=L.int64).exponential_(),
    lambda L: L.empty(3, dtype=L.complex64).exponential_(),
    lambda L: L.empty(3, dtype=L.int16).cauchy_(), lambda L: L.empty(3, dtype=L.int64).log_normal_(),
    lambda L: L.empty(2).uniform_(2, 1), lambda L: L.empty(2).uniform_(float("nan"), 1),
    lambda L: L.empty(2).uniform_(0, float("inf")), lambda L: L.empty(2).uniform_(-1e39, 1),
    lambda L: L.empty(2, dtype=L.float16).uniform_(-1e6, 1),
    lambda L: L.empty(2).exponential_(0), lambda L: L.empty(2).exponential_(-1.5),
    lambda L: L.empty(2).exponential_(float("nan")), lambda L: L.empty(2).geometric_(0),
    lambda L: L.empty(2).geometric_(1), lambda L: L.empty(2).geometric_(1.5),
    lambda L: L.empty(2).bernoulli_(1.5), lambda L: L.empty(2).bernoulli_(float("nan")),
    lambda L: L.bernoulli(L.zeros(2), 1.5), lambda L: L.bernoulli(L.tensor([-0.1, 0.5])),
    lambda L: L.bernoulli(L.tensor([float("nan")])), lambda L: L.empty(2).cauchy_(0, -1),
    lambda L: L.empty(2).log_normal_(0, -1), lambda L: L.randint(-1, 5, (3,), dtype=L.uint8),
    lambda L: L.randint(0, 129, (3,), dtype=L.int8),
    lambda L: L.empty(3, dtype=L.uint8).random_(0, 300),
    # bounds past int64, bool / float16 / complex bounds, empty [from, to) after the cast
    lambda L: L.randint(0, 2 ** 63, (3,)), lambda L: L.randint(2 ** 63, (3,)),
    lambda L: L.randint(-2 ** 63 - 1, 0, (3,)), lambda L: L.empty(3).random_(0, 2 ** 63),
    lambda L: L.empty(3, dtype=L.int64).random_(2 ** 63),
    lambda L: L.empty(3, dtype=L.int64).random_(2 ** 63, None),
    lambda L: L.randint(0, 3, (3,), dtype=L.bool), lambda L: L.randint(-1, 2, (3,), dtype=L.bool),
    lambda L: L.randint(0, 70000, (3,), dtype=L.float16),
    lambda L: L.randint(0, 3, (3,), dtype=L.complex64),
    lambda L: L.empty(3, dtype=L.bool).random_(0, 3), lambda L: L.empty(3).random_(0),
    lambda L: L.empty(3, dtype=L.bool).random_(5, None),
    lambda L: L.empty(3, dtype=L.float16).random_(70000),
    lambda L: L.empty(3, dtype=L.float16).random_(2 ** 11, None),
    lambda L: L.empty(3, dtype=L.complex64).random_(), lambda L: L.empty(3).random_(1, 2, 3),
    lambda L: L.empty(3, dtype=L.complex64).random_(0, None),
    lambda L: L.empty(3, dtype=L.float16).random_(-2 ** 63, None),
    lambda L: L.empty(3, dtype=L.int32).random_(-2 ** 63, None),
    lambda L: L.empty(3).random_(2 ** 25 + 1, 2 ** 25 + 3),
    lambda L: L.nn.init.normal_(L.empty(3, dtype=L.int64))]


@pytest.mark.parametrize("case", range(len(_REFUSED_DRAWS)))
def test_refused_random_fills_raise_as_torch_and_draw_nothing(case):
    # ember drew into integer tensors, past the bounds, with p outside [0, 1] (silently wrong
    # values: uniform_(2, 1), exponential_(-1), geometric_(1.5) -> NaN, bernoulli(1.5) -> 1)
    same_error(lambda lib: _REFUSED_DRAWS[case](lib))
    ember.manual_seed(3)
    with pytest.raises(Exception):
        _REFUSED_DRAWS[case](ember)
    after, fresh = ember.rand(4), (ember.manual_seed(3), ember.rand(4))[1]
    assert after.tolist() == fresh.tolist()  # the refused call drew nothing


def test_randint_at_the_edges_of_a_narrow_dtype_as_torch():
    for lib in (torch, ember):
        lib.manual_seed(0)
    got = [ember.randint(0, 256, (5,), dtype=ember.uint8).tolist(),
           ember.randint(-128, 128, (5,), dtype=ember.int8).tolist()]
    want = [torch.randint(0, 256, (5,), dtype=torch.uint8).tolist(),
            torch.randint(-128, 128, (5,), dtype=torch.int8).tolist()]
    assert got == want


@pytest.mark.parametrize("call", [
    lambda L: L.randint_like(L.tensor([1 + 1j, 2 + 0j]), 3), lambda L: L.randint(3, (2,), dtype=L.complex64),
    lambda L: L.randint_like(L.tensor([True]), 3),
    lambda L: L.bernoulli(L.tensor([True, False])), lambda L: L.bernoulli(L.tensor([1, 0])),
    lambda L: L.bernoulli(L.tensor([0.5 + 0j])), lambda L: L.bernoulli(L.tensor([1 + 1j, 2 + 0j]), p=0.5)])
def test_random_draws_into_dtypes_torch_cannot_draw_raise_as_torch(call):
    """(randint drew into complex and bool past 1; bernoulli took bool/int/complex input)"""
    same_error(call)


@pytest.mark.parametrize("call", [
    lambda L: L.randint(0, 2.5, (3,)), lambda L: L.randint(0.5, 3, (3,)),
    lambda L: L.randint(2.5, (3,)), lambda L: L.randint(0, True, (3,)),
    lambda L: L.randint(L.tensor(1.0), 3, (3,)), lambda L: L.empty(3).random_(0, 2.5),
    lambda L: L.empty(3).random_(0.5, 3), lambda L: L.empty(3).random_(2.5),
    lambda L: L.empty(3).random_(True), lambda L: L.empty(3).random_(0, True),
    lambda L: L.empty(3).random_(L.tensor(1.5), 3), lambda L: L.empty(3).random_(L.tensor([1]), 3),
    lambda L: L.randint(high=2.5, size=(3,))])
def test_random_bounds_that_are_not_ints_are_type_errors_as_torch(call):
    # ember truncated float and bool bounds and drew
    caught = []
    for lib in (torch, ember):
        with pytest.raises(TypeError) as info:
            call(lib)
        caught.append(str(info.value).split("\n")[0])
    assert caught[1] == caught[0]


@pytest.mark.parametrize("fill", [
    lambda L: L.empty(5, dtype=L.int64).random_(5, None),
    lambda L: L.empty(5, dtype=L.int8).random_(-5, None),
    lambda L: L.empty(5, dtype=L.float16).random_(-5, None),
    lambda L: L.empty(5, dtype=L.int64).random_(-2 ** 63, None),
    lambda L: L.empty(5, dtype=L.float64).random_(-2 ** 63, None),
    lambda L: L.empty(5, dtype=L.bfloat16).random_(),
    lambda L: L.empty(5, dtype=L.float32).random_(2 ** 25 + 1, 2 ** 25 + 9),
    lambda L: L.empty(5, dtype=L.float32).random_(-2 ** 25 - 9, -2 ** 25 - 1),
    lambda L: L.randint(np.int64(2), L.tensor(9), (5,)), lambda L: L.empty(5).random_(to=4),
    lambda L: L.randint(high=7, size=(5,))])
def test_random_fill_bounds_draw_torchs_stream(fill):
    # random_(from, None) drew [0, from); the full 64-bit fill refused; bfloat16's random_() drew
    # past 2^8; a float dtype's bounds were not moved to representable values as torch moves them
    values = []
    for lib in (torch, ember):
        lib.manual_seed(4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values.append(fill(lib).float().tolist())
    assert values[1] == values[0]


def test_random_bounds_past_a_float_dtypes_exact_integers_warn_as_torch():
    messages = []
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.empty(3, dtype=lib.bfloat16).random_(-1000, 1000)
            lib.randint(0, 2 ** 24 + 2, (3,), dtype=lib.float32)
        messages.append([str(w.message).split(" (Triggered")[0] for w in caught])
    assert len(messages[0]) == 3 and messages[1] == messages[0]
