"""The default process group over MPI ("mpi") or TCP sockets ("gloo"): init/destroy, rank and
size, and bounded waits."""
import os
import sys
import time
from datetime import timedelta

from .. import _device
from . import _gloo
from ._gloo import CommError
from ._launch import launched_size

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
    """True: the "gloo" backend needs only the standard library."""
    return True


def is_mpi_available():
    """True when mpi4py can be imported (MPI is not started by this check)."""
    import importlib.util
    return importlib.util.find_spec("mpi4py") is not None


def is_gloo_available():
    return True


def is_nccl_available():
    return False


class ProcessGroup:
    """A communicator with its rank, size, timeout and backend: for "mpi" a private duplicate of
    MPI's world, for "gloo" a SocketComm (the same methods). ``api`` holds the constants its
    methods take (IN_PLACE, SUM, ..., ANY_SOURCE, Status): mpi4py's MPI module or _gloo."""

    def __init__(self, comm, timeout, backend="mpi", api=None):
        self.comm = comm
        self._rank = comm.Get_rank()
        self._size = comm.Get_size()
        self.timeout = timeout
        self.backend = backend
        self.api = api if api is not None else _import_mpi()

    def rank(self):
        return self._rank

    def size(self):
        return self._size

    def name(self):
        return self.backend

    def __repr__(self):
        return f"<ProcessGroup {self.backend} rank={self._rank} size={self._size}>"


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
    """Join the ranks into the default process group.

    "gloo": over TCP sockets, the ranks started by torch.multiprocessing.spawn-style code or by
    torchrun (rank 0 listens on MASTER_ADDR:MASTER_PORT, or the ``tcp://host:port``
    init_method; RANK and WORLD_SIZE come from the environment unless given). "mpi": the ranks
    started by ``mpiexec``. Without ``backend``: "mpi" under mpiexec, else "gloo".
    """
    if _world.pg is not None:
        raise ValueError("trying to initialize the default process group twice!")
    backend = _choose_backend(backend)
    timeout = _as_timeout(timeout)
    if backend == "gloo":
        pg = _init_gloo(init_method, timeout, world_size, rank, store)
    else:
        pg = _init_mpi(init_method, timeout, world_size, rank)
    _world.pg = group.WORLD = pg
    if backend == "mpi":
        _install_excepthook()


_DEVICE_BACKENDS = {"cpu": "gloo", "cuda": "nccl", "xpu": "xccl", "mps": "gloo"}  # torch's map


def get_default_backend_for_device(device):
    """The backend torch picks for a device type: "gloo" for "cpu" (and "mps"), "nccl" for
    "cuda" (which ember's process groups do not have)."""
    kind = _device.device(device).type
    if kind not in _DEVICE_BACKENDS:
        raise ValueError(f"Default backend not registered for device : {kind}")
    return _DEVICE_BACKENDS[kind]


def _choose_backend(backend):
    if backend is None:
        return "mpi" if launched_size() > 1 else "gloo"
    name = str(backend).lower()
    cpu = dict(part.split(":", 1) for part in name.split(",") if ":" in part).get("cpu", name)
    if cpu in ("gloo", "mpi"):
        return cpu
    if cpu == "nccl":
        raise RuntimeError("Distributed package doesn't have NCCL built in")
    raise ValueError(f"ember.distributed supports the 'gloo' and 'mpi' backends, got '{backend}'")


def _init_mpi(init_method, timeout, world_size, rank):
    if init_method not in (None, "env://"):
        raise ValueError(f"init_method '{init_method}' is not supported: ranks are started and "
                         "connected by mpiexec")
    MPI = _import_mpi()
    comm = MPI.COMM_WORLD.Dup()
    _check_matches("world_size", world_size, comm.Get_size())
    _check_matches("rank", rank, comm.Get_rank())
    return ProcessGroup(comm, timeout, "mpi", MPI)


def _init_gloo(init_method, timeout, world_size, rank, store):
    """Rendezvous as torch's env:// and tcp:// handlers (same errors), then connect."""
    if store is not None:
        raise ValueError("ember.distributed's gloo backend does not take a store; use "
                         "init_method 'env://' (MASTER_ADDR, MASTER_PORT) or 'tcp://host:port'")
    method = "env://" if init_method is None else str(init_method)
    scheme = method.split("://", 1)[0] + "://" if "://" in method else method
    given = {"rank": rank, "world size": world_size}
    if scheme == "env://":
        def env(name):
            if not os.environ.get(name):
                raise ValueError("Error initializing torch.distributed using env:// rendezvous: "
                                 f"environment variable {name} expected, but not set")
            return os.environ[name]
        rank = env("RANK") if rank in (-1, None) else rank
        world_size = env("WORLD_SIZE") if world_size in (-1, None) else world_size
        host, port = env("MASTER_ADDR"), env("MASTER_PORT")
    elif scheme == "tcp://":
        for name, value in given.items():
            if value in (-1, None):
                raise ValueError("Error initializing torch.distributed using tcp:// "
                                 f"rendezvous: {name} parameter missing")
        host, _, port = method[len("tcp://"):].partition("/")[0].rpartition(":")
        host = host.strip("[]")
    elif scheme in ("file://",):
        raise ValueError(f"init_method '{method}' is not supported by ember.distributed's gloo "
                         "backend: use 'env://' (MASTER_ADDR, MASTER_PORT) or 'tcp://host:port'")
    else:
        raise RuntimeError(f"No rendezvous handler for {scheme}")
    rank, world_size = int(rank), int(world_size)
    if world_size < 1:
        raise ValueError(f"world_size must be positive, got {world_size}")
    if not 0 <= rank < world_size:
        raise ValueError(f"Invalid rank {rank}: expected 0 <= rank < world_size ({world_size})")
    try:
        port = int(port)
    except ValueError:
        raise ValueError(f"the master port must be an integer, got '{port}'") from None
    comm = _gloo.connect(host, port, rank, world_size, timeout)
    return ProcessGroup(comm, timeout, "gloo", _gloo)


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
    return _default_group(group).backend


def destroy_process_group(group=None):
    """Leave the default group: gloo closes its sockets; MPI itself stays up until the process
    exits, as MPI requires."""
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
    """Complete a non-blocking request, raising after the group's timeout instead of hanging
    (gloo's requests are complete, or raise the reason they failed)."""
    try:
        if request.Test(status):
            return
    except CommError as exc:
        raise RuntimeError(f"ember.distributed: {what} on rank {pg.rank()} "
                           f"{exc.reason}") from None
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
