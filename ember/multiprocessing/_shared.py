"""Arrays in shared memory: an anonymous memory file mapped MAP_SHARED, so a forked child
writes the parent's memory, and a pickled array passes the file (multiprocessing's DupFd) to
the process that loads it, which maps the same memory."""
import mmap
import os
import tempfile
from multiprocessing import reduction

import numpy as np


class _SharedMap(mmap.mmap):
    """A MAP_SHARED mapping of a memory file, remembering the file for pickling."""


def _new_map(fd, size):
    mapped = _SharedMap(fd, size)
    mapped.fd = fd  # kept open while the mapping lives (a later pickle duplicates it)
    return mapped


def _memory_file():
    """A file descriptor of an anonymous file: memfd_create on Linux, else a temporary file
    removed at once (the descriptor keeps it)."""
    if hasattr(os, "memfd_create"):
        return os.memfd_create("ember-shared", 0)
    fd, path = tempfile.mkstemp(prefix="ember-shared-")
    os.unlink(path)
    return fd


def share_array(array):
    """A copy of ``array`` (same shape, dtype and strides) in a new shared mapping."""
    size = max(array.nbytes, 1)
    fd = _memory_file()
    os.ftruncate(fd, size)
    mapped = _new_map(fd, size)
    shared = np.frombuffer(mapped, dtype=array.dtype, count=array.size).reshape(array.shape)
    shared[...] = array
    return shared


def _root(array):
    base = array
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    return base.obj if isinstance(base, memoryview) else base


def is_shared(array):
    return isinstance(_root(array), _SharedMap)


class SharedRef:
    """Stands for a shared array inside a pickle: the file, and where the array lies in it."""

    def __init__(self, array):
        self.array = array

    def __reduce__(self):
        a = self.array
        root = _root(a)
        start = np.frombuffer(root, np.uint8).__array_interface__["data"][0]
        offset = a.__array_interface__["data"][0] - start
        return _attach, (reduction.DupFd(root.fd), len(root), a.dtype, a.shape, a.strides,
                         offset)


def _attach(dupfd, size, dtype, shape, strides, offset):
    mapped = _new_map(dupfd.detach(), size)
    return np.ndarray(shape, dtype, buffer=mapped, offset=offset, strides=strides)
