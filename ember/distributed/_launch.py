"""What mpiexec told this process (rank, size, ranks per machine), read from its environment
without starting MPI, and the BLAS thread share of a rank."""
import os

_SIZE_VARS = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS")
_RANK_VARS = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "MPI_LOCALRANKID")
_LOCAL_SIZE_VARS = ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE")
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_BLAS_SETTERS = ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_",
                 "openblas_set_num_threads")


def _ints(names):
    return [int(v) for v in map(os.environ.get, names) if v and v.isdigit()]


def launched_size():
    """The number of ranks mpiexec says it started (1 outside mpiexec); MPI is not started."""
    return max(_ints(_SIZE_VARS), default=1)


def launched_rank():
    """This process's rank according to mpiexec's environment (0 outside mpiexec)."""
    ranks = _ints(_RANK_VARS)
    return ranks[0] if ranks else 0


def threads_per_rank():
    """This machine's usable cores shared by the ranks on it (at least 1 each)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, (cores or 1) // max(_ints(_LOCAL_SIZE_VARS) or [launched_size()]))


def limit_blas_threads(threads):
    """Set the thread count of the OpenBLAS libraries loaded in this process (NumPy's); ranks
    sharing a machine otherwise each start one BLAS thread per core and slow down ~10x.
    Returns the libraries changed (0 where none is found, e.g. not Linux or not OpenBLAS)."""
    import ctypes  # only on this path: most processes never change BLAS threads
    import re
    try:
        with open("/proc/self/maps") as maps:
            paths = sorted(set(re.findall(r"(/\S*openblas\S*\.so\S*)", maps.read())))
    except OSError:
        return 0
    changed = 0
    for path in paths:
        lib = ctypes.CDLL(path)
        setter = next((getattr(lib, n) for n in _BLAS_SETTERS if hasattr(lib, n)), None)
        if setter is not None:
            setter(ctypes.c_int(threads))
            changed += 1
    return changed


def share_blas_threads():
    """Give this rank its share of the machine's cores for BLAS, unless the user set a count."""
    if not any(os.environ.get(v) for v in THREAD_VARS):
        limit_blas_threads(threads_per_rank())
