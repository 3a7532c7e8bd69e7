"""Shared-memory arrays: share_memory_ moves a tensor there, and a pickle (to a spawned process
or through a Queue) passes the memory itself."""
import io
import multiprocessing
import pickle
from multiprocessing.reduction import ForkingPickler

import numpy as np
import torch

import ember
from ember.multiprocessing import _shared


def test_share_array_copies_values_and_is_shared():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    s = _shared.share_array(a)
    assert s.shape == a.shape and s.dtype == a.dtype and s.strides == a.strides
    np.testing.assert_array_equal(s, a)
    assert _shared.is_shared(s) and _shared.is_shared(s[1:, ::2])
    assert not _shared.is_shared(a)
    assert _shared.is_shared(_shared.share_array(np.empty((0, 3))))


def test_share_memory_as_torch():
    for lib in (torch, ember):
        t = lib.arange(6.0)
        assert not t.is_shared()
        assert t.share_memory_() is t and t.is_shared()
        assert t.share_memory_() is t  # again: a no-op
        assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def _roundtrip(obj):
    buffer = io.BytesIO()
    ForkingPickler(buffer).dump(obj)
    return pickle.loads(buffer.getvalue())


def test_pickled_shared_tensor_shares_memory():
    t = ember.arange(6.0).share_memory_()
    view = t[2:]
    u = _roundtrip(t)
    assert u.is_shared()
    u.add_(10)
    assert t.tolist() == [10.0, 11.0, 12.0, 13.0, 14.0, 15.0]
    assert view.tolist() == [12.0, 13.0, 14.0, 15.0]


def test_pickled_plain_tensor_is_a_copy():
    t = ember.arange(3.0)
    u = pickle.loads(pickle.dumps(t))
    u.add_(1)
    assert t.tolist() == [0.0, 1.0, 2.0] and not u.is_shared()


def test_parameter_keeps_shared_memory_through_a_pickle():
    p = ember.nn.Parameter(ember.zeros(3))
    p.share_memory_()
    q = _roundtrip(p)
    assert type(q) is ember.nn.Parameter and q.is_shared() and q.requires_grad
    with ember.no_grad():
        q.add_(1)
    assert p.tolist() == [1.0, 1.0, 1.0]


def _add_in_child(t, value):
    t.add_(value)


def test_spawned_child_writes_the_parents_memory():
    t = ember.zeros(4).share_memory_()
    child = multiprocessing.get_context("spawn").Process(target=_add_in_child, args=(t, 3.0))
    child.start()
    child.join()
    assert child.exitcode == 0
    assert t.tolist() == [3.0, 3.0, 3.0, 3.0]
