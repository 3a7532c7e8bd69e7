"""The DataLoader's worker processes: the loop each runs, worker info, and error forwarding."""
import os
import random
import sys
import threading
import time
import traceback

import numpy as np

from ... import random as ember_random
from .dataset import fetch

_POLL_SECONDS = 1.0  # how often a worker checks that its parent is alive (and the parent waits)
_worker_info = None


class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker: id, num_workers, seed, dataset."""

    def __init__(self, id, num_workers, seed, dataset):
        self.id, self.num_workers, self.seed, self.dataset = id, num_workers, seed, dataset

    def __repr__(self):
        return (f"WorkerInfo(id={self.id}, num_workers={self.num_workers}, seed={self.seed}, "
                f"dataset={self.dataset!r})")


def get_worker_info():
    """In a DataLoader worker: its WorkerInfo; in the main process: None."""
    return _worker_info


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process with its traceback."""

    def __init__(self, exc_info, where):
        self.exc_type = exc_info[0]
        self.msg = f"Caught {exc_info[0].__name__} {where}.\nOriginal " + "".join(
            traceback.format_exception(*exc_info))

    def reraise(self):
        msg = self.msg
        if self.exc_type is KeyError:
            msg = KeyError(msg)  # KeyError would print the message with escaped newlines
        try:
            error = self.exc_type(msg)
        except Exception:  # an exception class whose constructor wants other arguments
            raise RuntimeError(msg) from None
        raise error


class IterableStop:
    """Sent by a worker whose IterableDataset iterator is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class Fetcher:
    """Turns a task (a list of indices, an index, or 'next batch') into collated data."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last, batch_size, iterable):
        self.dataset, self.auto_collation, self.collate_fn = dataset, auto_collation, collate_fn
        self.drop_last, self.batch_size, self.iterable = drop_last, batch_size, iterable
        self.reset()

    def reset(self):
        self.iterator = iter(self.dataset) if self.iterable else None
        self.ended = False

    def fetch(self, index):
        if self.iterable:
            return self._fetch_stream()
        if not self.auto_collation:
            return self.collate_fn(self.dataset[index])
        return fetch(self.dataset, index, self.collate_fn)

    def _fetch_stream(self):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.iterator))
        data = []
        for item in self.iterator:
            data.append(item)
            if len(data) == self.batch_size:
                break
        if not data or (self.drop_last and len(data) < self.batch_size):
            self.ended = True
            raise StopIteration
        return self.collate_fn(data)


def seed_worker(seed):
    """Seed ember's default generator, Python's ``random`` and NumPy's global RNG for a worker."""
    ember_random.manual_seed(seed)
    random.seed(seed)
    np.random.seed(np.random.SeedSequence(seed % (1 << 64)).generate_state(4))


def _watch_parent(parent):
    """A worker's watchdog thread: exit the process once the parent is gone, whatever the main
    thread is blocked in (a result write nobody will read, a queue read, __getitem__)."""
    while os.getppid() == parent:
        time.sleep(_POLL_SECONDS)
    os._exit(0)


def worker_loop(fetcher, index_queue, result_conn, base_seed, init_fn, worker_id, num_workers,
                inherited=()):
    """Runs in a worker: take tasks from ``index_queue``, send ``(task_id, data)`` on its own
    pipe ``result_conn``. ``inherited`` are the other workers' pipe ends a fork copied here:
    closed, so that this worker's death shows the parent an end of file on its pipe."""
    global _worker_info
    for conn in inherited:
        conn.close()
    threading.Thread(target=_watch_parent, args=(os.getppid(),), daemon=True).start()
    seed = base_seed + worker_id
    seed_worker(seed)
    _worker_info = WorkerInfo(worker_id, num_workers, seed, fetcher.dataset)
    init_error = None
    try:
        if init_fn is not None:
            init_fn(worker_id)
        fetcher.reset()
    except Exception:
        init_error = ExceptionWrapper(sys.exc_info(), f"in DataLoader worker process {worker_id}")
    while True:
        task = index_queue.get()
        if task is None:
            break
        if task == "reset":
            fetcher.reset()
            continue
        task_id, index = task
        if not _send(result_conn, task_id, _run_task(fetcher, index, init_error, worker_id),
                     worker_id):
            break  # the parent closed our pipe: it no longer wants results
    result_conn.close()


def _send(conn, task_id, result, worker_id):
    """Send one result; an unpicklable one is replaced by its error. False once the pipe broke."""
    try:
        try:
            conn.send((task_id, result))
        except (BrokenPipeError, ConnectionResetError):
            return False
        except Exception:
            conn.send((task_id, ExceptionWrapper(
                sys.exc_info(), f"sending a batch from DataLoader worker process {worker_id}")))
    except OSError:
        return False
    return True


def _run_task(fetcher, index, init_error, worker_id):
    if init_error is not None:
        return init_error
    try:
        return fetcher.fetch(index)
    except StopIteration:
        return IterableStop(worker_id)
    except Exception:
        return ExceptionWrapper(sys.exc_info(), f"in DataLoader worker process {worker_id}")
