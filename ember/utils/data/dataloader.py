"""DataLoader: batches from a dataset, in the main process or in worker processes."""
import multiprocessing
import os
import signal
import time
import warnings
import weakref
from multiprocessing import connection

from . import _worker
from ._collate import default_collate, default_convert
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, SequentialSampler, _draw_seed

_FIXED_AFTER_INIT = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                     "persistent_workers")


class _InfiniteConstantSampler:
    """The 'sampler' of an IterableDataset: yields None forever (workers pull from the stream)."""

    def __iter__(self):
        while True:
            yield None


def _check_options(dataset, batch_size, shuffle, sampler, batch_sampler, drop_last,
                   num_workers, timeout, prefetch_factor, persistent_workers):
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if isinstance(dataset, IterableDataset):
        for name, value in (("shuffle", shuffle), ("sampler", sampler),
                            ("batch_sampler", batch_sampler)):
            if value not in (None, False):
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"{name} option, but got {name}={value}")
    elif sampler is not None and shuffle:
        raise ValueError("sampler option is mutually exclusive with shuffle")
    if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None
                                      or drop_last):
        raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                         "shuffle, sampler, and drop_last")
    if batch_size is None and drop_last:
        raise ValueError("batch_size=None option disables auto-batching and is mutually "
                         "exclusive with drop_last")


class DataLoader:
    """Iterates over ``dataset`` in (optionally shuffled) batches, as torch's DataLoader."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        _check_options(dataset, batch_size, shuffle, sampler, batch_sampler, drop_last,
                       num_workers, timeout, prefetch_factor, persistent_workers)
        iterable = isinstance(dataset, IterableDataset)
        if batch_sampler is not None:
            batch_size, drop_last = None, False
        if sampler is None:
            if iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, generator
        self.num_workers, self.collate_fn, self.timeout = num_workers, collate_fn, timeout
        self.pin_memory, self.pin_memory_device = pin_memory, pin_memory_device
        self.in_order = in_order
        self.worker_init_fn, self.multiprocessing_context = worker_init_fn, multiprocessing_context
        self.prefetch_factor = 2 if num_workers > 0 and prefetch_factor is None else prefetch_factor
        self.persistent_workers = persistent_workers
        self._iterator = None
        self._initialized = True

    def __setattr__(self, name, value):
        if getattr(self, "_initialized", False) and name in _FIXED_AFTER_INIT:
            raise ValueError(f"{name} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _make_fetcher(self):
        return _worker.Fetcher(self.dataset, self._auto_collation, self.collate_fn,
                               self.drop_last, self.batch_size,
                               isinstance(self.dataset, IterableDataset))

    def __iter__(self):
        _warn_as_torch(self)
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        if self.persistent_workers:
            if self._iterator is None:
                self._iterator = _MultiProcessIter(self)
            else:
                self._iterator._reset()
            return self._iterator
        return _MultiProcessIter(self)

    def __len__(self):
        if isinstance(self.dataset, IterableDataset):
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)



def _warn_as_torch(loader):
    """torch's warnings when an iterator starts: more workers than the CPUs this process may
    use, and pin_memory without an accelerator (ember has none)."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:  # (no sched_getaffinity: macOS, Windows)
        usable = os.cpu_count()
    if loader.num_workers > 0 and usable is not None and loader.num_workers > usable:
        warnings.warn(f"This DataLoader will create {loader.num_workers} worker processes in "
                      f"total. Our suggested max number of worker in current system is {usable}, "
                      f"which is smaller than what this DataLoader is going to create. Please be "
                      f"aware that excessive worker creation might get DataLoader running slow or "
                      f"even freeze, lower the worker number to avoid potential slowness/freeze "
                      f"if necessary.", UserWarning, stacklevel=3)
    if loader.pin_memory:
        warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then "
                      "device pinned memory won't be used.", UserWarning, stacklevel=3)


class _SingleProcessIter:
    def __init__(self, loader):
        self._base_seed = _draw_seed(loader.generator)  # one per iterator, as torch
        self._sampler_iter = iter(loader._index_sampler)
        self._fetcher = loader._make_fetcher()

    def __iter__(self):
        return self

    def __next__(self):
        return self._fetcher.fetch(next(self._sampler_iter))


class _MultiProcessIter:
    """Keeps ``prefetch_factor * num_workers`` tasks in flight and yields results in order."""

    def __init__(self, loader):
        self._loader = loader
        self._iterable = isinstance(loader.dataset, IterableDataset)
        self._base_seed = _draw_seed(loader.generator)  # one per iterator, as torch
        self._workers, self._index_queues = [], []
        context = loader.multiprocessing_context
        if context is None or isinstance(context, str):
            context = multiprocessing.get_context(context)
        self._start_workers(context, loader._make_fetcher())
        self._finalizer = weakref.finalize(self, _stop_workers, self._workers,
                                           self._index_queues, self._readers)
        self._next_task = 0
        self._start_epoch()

    def _start_workers(self, context, fetcher):
        loader = self._loader
        # one pipe per worker (not a shared queue): a worker killed mid-send cannot leave a lock
        # held or a half message in a channel others use, and its death is an end of file
        pipes = [context.Pipe(duplex=False) for _ in range(loader.num_workers)]
        forked = context.get_start_method() == "fork"
        self._readers = [reader for reader, _ in pipes]
        for worker_id, (_, writer) in enumerate(pipes):
            index_queue = context.Queue()
            index_queue.cancel_join_thread()
            inherited = [c for pipe in pipes for c in pipe if c is not writer] if forked else []
            process = context.Process(
                target=_worker.worker_loop, daemon=True,
                args=(fetcher, index_queue, writer, self._base_seed, loader.worker_init_fn,
                      worker_id, loader.num_workers, inherited))
            process.start()
            self._workers.append(process)
            self._index_queues.append(index_queue)
        for _, writer in pipes:
            writer.close()  # the worker holds the only write end

    def _start_epoch(self):
        self._sampler_iter = iter(self._loader._index_sampler)
        self._active = [True] * len(self._workers)
        self._pending = {}  # task id -> worker id, for tasks of this epoch not yet yielded
        self._results = {}
        self._first_task = self._rcvd = self._next_task
        self._worker_cycle = 0
        self._sampler_done = False
        for _ in range(self._loader.prefetch_factor * len(self._workers)):
            self._send_task()

    def _reset(self):
        if self._iterable:
            for q in self._index_queues:
                q.put("reset")
        self._start_epoch()

    def _send_task(self):
        if self._sampler_done or not any(self._active):
            return
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            self._sampler_done = True
            return
        while not self._active[self._worker_cycle % len(self._workers)]:
            self._worker_cycle += 1
        worker_id = self._worker_cycle % len(self._workers)
        self._worker_cycle += 1
        self._index_queues[worker_id].put((self._next_task, index))
        self._pending[self._next_task] = worker_id
        self._next_task += 1

    def __iter__(self):
        return self

    def __next__(self):
        while True:
            if self._rcvd not in self._pending:
                if not self._loader.persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            data = self._wait_for(self._rcvd)
            del self._pending[self._rcvd]
            self._rcvd += 1
            if isinstance(data, _worker.IterableStop):
                self._active[data.worker_id] = False
                continue
            self._send_task()
            if isinstance(data, _worker.ExceptionWrapper):
                data.reraise()
            return data

    def _wait_for(self, task_id):
        started = time.monotonic()
        while task_id not in self._results:
            ready = connection.wait(self._readers, timeout=_worker._POLL_SECONDS)
            if not ready:
                self._check_workers(started)
            for reader in ready:
                try:
                    got_id, data = reader.recv()
                except (EOFError, OSError):  # its worker died, maybe in the middle of a send
                    self._worker_died(self._readers.index(reader))
                if got_id in self._pending:  # results of an abandoned epoch are dropped
                    self._results[got_id] = data
        return self._results.pop(task_id)

    def _worker_died(self, worker_id):
        """Raise torch's error for a dead worker: 'exited unexpectedly', caused by how it died."""
        process = self._workers[worker_id]
        process.join(timeout=5)
        self._shutdown_workers(force=True)
        raise RuntimeError(f"DataLoader worker (pid(s) {process.pid}) exited "
                           "unexpectedly") from _death_cause(process)

    def _check_workers(self, started):
        for worker_id, process in enumerate(self._workers):
            if not process.is_alive():
                self._worker_died(worker_id)
        timeout = self._loader.timeout
        if timeout > 0 and time.monotonic() - started > timeout:
            self._shutdown_workers(force=True)
            raise RuntimeError(f"DataLoader timed out after {timeout} seconds")

    def _shutdown_workers(self, force=False):
        """Ask workers to stop (or, after a failure, stop them at once) and reap them."""
        if self._finalizer.detach() is None:
            return  # already stopped
        _stop_workers(self._workers, self._index_queues, self._readers, force)


def _death_cause(process):
    """How a worker died, in torch's words (None while unknown)."""
    code = process.exitcode
    if code is not None and code < 0:
        return RuntimeError(f"DataLoader worker (pid {process.pid}) is killed by signal: "
                            f"{signal.strsignal(-code)}. ")
    if code:
        return RuntimeError(f"DataLoader worker (pid {process.pid}) exited unexpectedly with "
                            f"exit code {code}. Details are lost due to multiprocessing. "
                            "Rerunning with num_workers=0 may give better error trace.")
    return None


def _stop_workers(workers, index_queues, readers, force=False):
    """Close the result pipes (a worker blocked sending a result then stops), send each worker
    its stop signal, wait briefly, then terminate stragglers.

    Runs from ``weakref.finalize`` too (not ``__del__``): the finalizer keeps the queues alive,
    while ``__del__`` on a garbage cycle may see them already closed."""
    for reader in readers:
        reader.close()
    for q in index_queues:
        try:
            q.put(None)
        except (ValueError, OSError):
            pass
    deadline = time.monotonic() + (0 if force else 5)
    for w in workers:
        w.join(timeout=max(0.0, deadline - time.monotonic()))
        if w.is_alive():
            w.terminate()
            w.join(timeout=5)
    for q in index_queues:
        q.cancel_join_thread()
        q.close()
