"""The default process group over MPI: init/destroy, rank and size, and bounded waits."""
import os
import sys
import time
from datetime import timedelta

_INSTALL_HINT = ("ember.distributed needs mpi4py and an MPI library; install them with "
                 "`pip install 'ember[distributed]'` (mpi4py + the mpich wheel) and launch with "
                 "`mpiexec -n N python script.py`.")
_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")
default_pg_timeout = timedelta(minutes=30)  # torch's default for CPU backends


def _import_mpi():
    """mpi4py's MPI module (importing it starts MPI); a clear ImportError when it is missing."""
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise ImportError(_INSTALL_HINT) from exc
    return MPI


def is_available():
    """True when mpi4py can be imported (MPI is not started by this check)."""
    import importlib.util
    return importlib.util.find_spec("mpi4py") is not None


is_mpi_available = is_available


class ProcessGroup:
    """A communicator (a private duplicate of MPI's world) with its rank, size and timeout."""

    def __init__(self, comm, timeout):
        self.comm = comm
        self._rank = comm.Get_rank()
        self._size = comm.Get_size()
        self.timeout = timeout

    def rank(self):
        return self._rank

    def size(self):
        return self._size

    def name(self):
        return "mpi"

    def __repr__(self):
        return f"<ProcessGroup mpi rank={self._rank} size={self._size}>"


class _World:
    """Module state: the default group and the excepthook it replaced."""

    pg = None
    previous_excepthook = None


_world = _World()


class group:
    """torch.distributed.group: ``group.WORLD`` is the default process group once initialized."""

    WORLD = None


GroupMember = group


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Join the ranks started by ``mpiexec`` into the default process group (backend "mpi")."""
    if _world.pg is not None:
        raise ValueError("trying to initialize the default process group twice!")
    if backend is not None and str(backend).lower() != "mpi":
        raise ValueError(f"ember.distributed supports only the 'mpi' backend, got '{backend}'")
    if init_method not in (None, "env://"):
        raise ValueError(f"init_method '{init_method}' is not supported: ranks are started and "
                         "connected by mpiexec")
    timeout = _as_timeout(timeout)
    MPI = _import_mpi()
    comm = MPI.COMM_WORLD.Dup()
    _check_matches("world_size", world_size, comm.Get_size())
    _check_matches("rank", rank, comm.Get_rank())
    _world.pg = group.WORLD = ProcessGroup(comm, timeout)
    _install_excepthook()


def _as_timeout(timeout):
    if timeout is None:
        seconds = os.environ.get("EMBER_DIST_TIMEOUT")
        return float(seconds) if seconds else default_pg_timeout.total_seconds()
    if isinstance(timeout, timedelta):
        return timeout.total_seconds()
    if isinstance(timeout, (int, float)) and timeout > 0:
        return float(timeout)
    raise TypeError(f"timeout must be a datetime.timedelta, got {type(timeout).__name__}")


def _check_matches(name, given, actual):
    if given not in (-1, None) and int(given) != actual:
        raise ValueError(f"init_process_group: {name}={given} does not match mpiexec's "
                         f"{name} {actual}")


def is_initialized():
    """True between init_process_group and destroy_process_group."""
    return _world.pg is not None


def _default_group(group_arg=None):
    pg = _world.pg
    if pg is None:
        raise ValueError(_NOT_INITIALIZED)
    if group_arg is not None and group_arg is not pg:
        raise ValueError("ember.distributed supports only the default process group "
                         f"(group=None or group.WORLD), got {group_arg!r}")
    return pg


def get_rank(group=None):
    """This process's rank in the group."""
    return _default_group(group).rank()


def get_world_size(group=None):
    """The number of processes in the group."""
    return _default_group(group).size()


def get_backend(group=None):
    _default_group(group)
    return "mpi"


def destroy_process_group(group=None):
    """Leave the default group (MPI itself stays up until the process exits, as MPI requires)."""
    pg = _default_group(group)
    _world.pg = GroupMember.WORLD = None
    pg.comm.Free()
    if _world.previous_excepthook is not None:
        sys.excepthook = _world.previous_excepthook
        _world.previous_excepthook = None


def _install_excepthook():
    """An uncaught exception on one rank aborts every rank, instead of leaving them waiting."""
    if _world.previous_excepthook is not None:
        return
    previous = sys.excepthook

    def abort_all_ranks(exc_type, exc, tb):
        previous(exc_type, exc, tb)
        pg = _world.pg
        if pg is None or pg.size() == 1:
            return
        abort_job(1, f"ember.distributed: rank {pg.rank()} raised {exc_type.__name__}; "
                     f"aborting all {pg.size()} ranks (MPI_Abort)")

    _world.previous_excepthook = previous
    sys.excepthook = abort_all_ranks


def abort_job(code, message):
    """End every rank (MPI_Abort) after saying why on stderr.

    The launcher kills all ranks on MPI_Abort, and output this rank wrote but the launcher has
    not read yet (a traceback, this message) would be lost: so wait, for at most a second, until
    the pipes to the launcher are empty.
    """
    sys.stderr.write(message + "\n")
    _drain_output(deadline=time.monotonic() + 1.0)
    _import_mpi().COMM_WORLD.Abort(code)
    os._exit(code)  # in case MPI_Abort returns before the process manager ends this rank


def _drain_output(deadline):
    """Flush stdout and stderr and wait until whoever reads their pipes has read everything."""
    try:
        import fcntl
        import stat
        import struct
        import termios
    except ImportError:  # not POSIX: nothing to ask the pipes
        fcntl = None
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
            fd = stream.fileno()
            if fcntl is None or not stat.S_ISFIFO(os.fstat(fd).st_mode):
                continue
            while time.monotonic() < deadline:  # FIONREAD: bytes still in the pipe
                if not struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4))[0]:
                    break
                time.sleep(0.005)
        except (AttributeError, OSError, ValueError):  # closed or replaced streams
            continue
    time.sleep(0.05)  # and a moment for the launcher to pass it on


def wait(request, pg, what, status=None):
    """Complete a non-blocking MPI request, raising after the group's timeout instead of hanging."""
    if request.Test(status):
        return
    start = time.monotonic()
    spins = 0
    while not request.Test(status):
        spins += 1
        if spins % 256:
            continue
        elapsed = time.monotonic() - start
        if elapsed > pg.timeout:
            raise RuntimeError(
                f"ember.distributed: {what} on rank {pg.rank()} timed out after "
                f"{pg.timeout:g}s waiting for the other {pg.size() - 1} rank(s); a rank may have "
                "died, hung, or skipped this collective")
        if elapsed > 1.0:  # long waits: stop burning a core, keep polling MPI's progress
            time.sleep(0.001)
        elif elapsed > 0.01:  # let a rank sharing this core compute
            os.sched_yield()
