"""Scratch arrays for convolution (ember/ops/_workspace.py): take gives an array of the asked
shape and dtype, a given-back array is handed out again (at most two kept per key), and the pool
is bounded in keys."""
import numpy as np

from ember.ops import _workspace as ws


def test_take_gives_the_shape_and_dtype():
    a = ws.take((3, 5), np.dtype(np.float32))
    assert a.shape == (3, 5) and a.dtype == np.float32


def test_given_back_arrays_are_reused_last_in_first_out():
    ws._free.clear()
    key = ((4, 7), np.dtype(np.float64))
    a, b = ws.take(*key), ws.take(*key)
    assert a is not b
    ws.give(a)
    ws.give(b)
    assert ws.take(*key) is b and ws.take(*key) is a
    assert ws.take(*key) is not a  # the pool is empty again: a fresh array


def test_at_most_two_arrays_kept_per_key():
    ws._free.clear()
    arrays = [np.empty(3) for _ in range(3)]
    for a in arrays:
        ws.give(a)
    assert len(ws._free[((3,), np.dtype(np.float64))]) == 2


def test_the_pool_is_bounded_in_keys():
    ws._free.clear()
    for n in range(ws._MAX_KEYS + 5):
        ws.give(np.empty(n + 1))
    assert len(ws._free) <= ws._MAX_KEYS
    ws._free.clear()
