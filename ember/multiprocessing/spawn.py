"""torch.multiprocessing.spawn: run ``fn(i, *args)`` in ``nprocs`` processes and join them."""
import multiprocessing
import traceback


class ProcessException(Exception):
    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A spawned process raised: the message carries its traceback."""


class ProcessExitedException(ProcessException):
    """A spawned process exited with a non-zero code (or a signal)."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid, self.exit_code,
                            self.signal_name)


def _wrap(fn, i, args, errors):
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        errors.put(traceback.format_exc())
        raise SystemExit(1) from None


class ProcessContext:
    """The spawned processes; ``join()`` waits for them and raises the first failure."""

    def __init__(self, processes, error_queues):
        self.processes, self.error_queues = processes, error_queues

    def pids(self):
        return [p.pid for p in self.processes]

    def join(self, timeout=None):
        """True once every process has exited cleanly; raises if one failed."""
        for p in self.processes:
            p.join(timeout)
        for i, (p, errors) in enumerate(zip(self.processes, self.error_queues)):
            if p.exitcode is None or p.exitcode == 0:
                continue
            for other in self.processes:
                if other.is_alive():
                    other.terminate()
            if not errors.empty():
                raise ProcessRaisedException(
                    f"\n\n-- Process {i} terminated with the following error:\n"
                    f"{errors.get()}", i, p.pid)
            if p.exitcode < 0:
                import signal
                name = signal.Signals(-p.exitcode).name
                raise ProcessExitedException(f"process {i} terminated with signal {name}", i,
                                             p.pid, p.exitcode, name)
            raise ProcessExitedException(f"process {i} terminated with exit code {p.exitcode}",
                                         i, p.pid, p.exitcode)
        return all(p.exitcode == 0 for p in self.processes)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    context = multiprocessing.get_context(start_method)
    processes, queues = [], []
    for i in range(nprocs):
        errors = context.SimpleQueue()
        process = context.Process(target=_wrap, args=(fn, i, args, errors), daemon=daemon)
        process.start()
        processes.append(process)
        queues.append(errors)
    spawned = ProcessContext(processes, queues)
    if not join:
        return spawned
    while not spawned.join():
        pass
    return None


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """``fn(i, *args)`` for i in range(nprocs), each in its own process."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
