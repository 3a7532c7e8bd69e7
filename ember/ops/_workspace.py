"""Reusable scratch arrays for the big temporaries of convolution (im2col columns).

Fresh multi-megabyte arrays are page-faulted in on every step (costly, above all in VMs);
handing the same few buffers back and forth keeps them resident. Single-owner discipline:
``take`` gives an array no one else holds; ``give`` returns one its owner no longer reads.
"""
import numpy as np

_free = {}
_MAX_KEYS = 32


def take(shape, dtype):
    """An uninitialised array of ``shape``/``dtype``, reused when one was given back."""
    stack = _free.get((shape, dtype))
    if stack:
        return stack.pop()
    return np.empty(shape, dtype=dtype)


def give(array):
    """Return a scratch array obtained from ``take`` (the caller must not use it afterwards)."""
    key = (array.shape, array.dtype)
    stack = _free.get(key)
    if stack is None:
        if len(_free) >= _MAX_KEYS:
            _free.clear()
        stack = _free[key] = []
    if len(stack) < 2:
        stack.append(array)
