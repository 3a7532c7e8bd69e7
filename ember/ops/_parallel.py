"""Run one large element-wise pass on several threads: the array split into contiguous parts.

NumPy's ufuncs run on one thread but release the GIL while they loop, so a pass over a large
array can run its halves at once: the caller's thread takes the first part, persistent worker
threads (started on first use, one fewer than the thread count) take the others, and the call
returns when every part is done. The split is synchronous inside one op, so it never overlaps a
BLAS call (OpenBLAS runs its own threads for GEMMs).

Results are bit-identical to one thread: every part runs the same NumPy calls on its own rows,
and a caller splits only along an axis its reductions do not run over (element-wise work, or
softmax/layer norm rows), so no summation order changes.

One knob, as torch's: ``ember.set_num_threads(n)`` / ``ember.get_num_threads()``, with the
``EMBER_NUM_THREADS`` environment variable as the default (else the CPUs the process may run
on); 1 turns the splitting off. Arrays below ``MIN_ELEMENTS`` run on the caller's thread only:
below that, handing a part over costs more than it saves. A part no worker has started by the
time the caller's own is done is run by the caller, so a busy machine costs little.
"""
import contextvars
import functools
import os
import threading
from queue import SimpleQueue

import numpy as np

from .. import _openblas

MIN_ELEMENTS = 1 << 16
MIN_PART = 1 << 15  # elements each thread gets at least


def _default_threads():
    value = os.environ.get("EMBER_NUM_THREADS", "")
    if value.strip():
        try:
            threads = int(value)
        except ValueError:
            raise ValueError(f"EMBER_NUM_THREADS must be a positive integer, got {value!r}") \
                from None
        if threads >= 1:
            return threads
        raise ValueError(f"EMBER_NUM_THREADS must be a positive integer, got {value!r}")
    # by default (SPLIT_BY_DEFAULT) only while NumPy's OpenBLAS threads sleep promptly after a
    # GEMM: spinning, they hold the second core (the split then made the conv+BatchNorm step
    # 1.37x slower, BENCHMARKS.md)
    if not (_openblas.SPLIT_BY_DEFAULT and _openblas.QUIET):
        return 1
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else os.cpu_count() or 1)


class _Job:
    """One part: whichever thread takes ``claim`` first runs it (the caller takes back a part
    no worker has started, so a worker that the OS has not scheduled yet delays nothing)."""

    __slots__ = ("task", "claim", "done", "error")

    def __init__(self, task):
        self.task, self.error = task, None
        self.claim, self.done = threading.Lock(), threading.Lock()
        self.done.acquire()


class _Worker:
    """One daemon thread running the parts handed to it, one at a time."""

    def __init__(self):
        self.jobs = SimpleQueue()
        threading.Thread(target=self._loop, name="ember-elementwise", daemon=True).start()

    def _loop(self):
        while True:
            job = self.jobs.get()
            if not job.claim.acquire(blocking=False):
                continue  # the caller ran it already
            try:
                job.task()
            except BaseException as error:  # re-raised in the caller's thread
                job.error = error
            finally:
                job.done.release()


class _Pool:
    def __init__(self):
        self.threads = _default_threads()
        self.workers = []
        self.busy = threading.Lock()  # one split at a time; others (and nested ones) run inline

    def parts(self, rows, size):
        if self.threads < 2 or size < MIN_ELEMENTS or rows < 2:
            return 1
        return max(1, min(self.threads, rows, size // MIN_PART))

    def run(self, task, bounds):
        """task(lo, hi) for each (lo, hi) in bounds: the first here, the rest handed to workers
        (and run here too when no worker has started them by the time the first is done)."""
        while len(self.workers) < len(bounds) - 1:
            self.workers.append(_Worker())
        # each part runs in a copy of the caller's context: NumPy's error state (ember's quiet
        # kernels) and other context variables are the caller's on every thread
        jobs = [_Job(functools.partial(contextvars.copy_context().run, task, lo, hi))
                for lo, hi in bounds[1:]]
        for worker, job in zip(self.workers, jobs):
            worker.jobs.put(job)
        mine = []
        try:
            task(*bounds[0])
            for job in jobs:
                if job.claim.acquire(blocking=False):
                    mine.append(job)
                    job.task()
        finally:
            for job in jobs:  # wait for the parts a worker took; cancel the ones not started
                if job not in mine and not job.claim.acquire(blocking=False):
                    job.done.acquire()
        for job in jobs:
            if job.error is not None:
                raise job.error


_POOL = _Pool()


def _after_fork():
    """A forked child has none of the parent's threads: it starts its own on first use."""
    global _POOL
    threads = _POOL.threads
    _POOL = _Pool()
    _POOL.threads = threads


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def get_num_threads():
    """Threads a large element-wise pass runs on."""
    return _POOL.threads


def set_num_threads(n):
    """Run large element-wise passes on ``n`` threads (1: only the caller's)."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"set_num_threads expects an int, but got {type(n).__name__}")
    if n < 1:
        raise RuntimeError("set_num_threads expects a positive integer")
    _POOL.threads = n


def split(rows, task, size):
    """Run ``task(lo, hi)`` over ``range(rows)`` (``size`` elements in all), as contiguous
    parts on several threads when it is large enough, else once as ``task(0, rows)``."""
    pool = _POOL
    parts = pool.parts(rows, size)
    if parts == 1 or not pool.busy.acquire(blocking=False):
        task(0, rows)
        return
    try:
        edges = [rows * i // parts for i in range(parts + 1)]
        pool.run(task, list(zip(edges[:-1], edges[1:])))
    finally:
        pool.busy.release()


def rows(array, lo, hi, shape):
    """``array[lo:hi]`` when it spans the split axis of an array of ``shape`` (same number of
    dims, same first length), else the whole array (a broadcast operand such as an affine
    weight, or a scalar)."""
    if getattr(array, "ndim", 0) == len(shape) and array.shape[0] == shape[0]:
        return array[lo:hi]
    return array


def compute(fn, operands, rowwise=False):
    """``fn(*operands)`` computed part by part on several threads when the first operand is
    large enough, else simply ``fn(*operands)``. ``fn`` maps rows to rows: each array it returns
    (or each of a tuple of arrays) has the first operand's first axis. The other operands have
    its shape (split with it) or broadcast against it (scalars, per-feature weights: passed
    whole). Element-wise formulas (``rowwise`` False) over C-contiguous operands all of one
    shape split their flat arrays; ``rowwise`` formulas, which may reduce over any axis but
    the first, split the first axis. The parts are joined by one copy."""
    shape, size = operands[0].shape, operands[0].size
    if not shape or size < MIN_ELEMENTS or _POOL.threads < 2:
        return fn(*operands)
    arrays = [a for a in operands if getattr(a, "ndim", 0)]
    flat = not rowwise and all(a.shape == shape and a.flags.c_contiguous for a in arrays)
    if _POOL.parts(size if flat else shape[0], size) == 1:
        return fn(*operands)
    if flat:
        operands = [a.reshape(-1) if getattr(a, "ndim", 0) else a for a in operands]
    split_shape = operands[0].shape
    results = {}

    def task(lo, hi):
        results[lo] = fn(*(rows(a, lo, hi, split_shape) for a in operands))
    split(split_shape[0], task, size)
    parts = [results[lo] for lo in sorted(results)]
    if isinstance(parts[0], tuple):
        return tuple(_join([part[i] for part in parts], shape, flat)
                     for i in range(len(parts[0])))
    return _join(parts, shape, flat)


def _join(parts, shape, flat):
    joined = parts[0] if len(parts) == 1 else np.concatenate(parts)
    return joined.reshape(shape) if flat else joined
