"""`ember train` under `mpiexec -n N`: detect the launch, join the ranks, agree on bad input."""
import os

import numpy as np

import ember

from ._train import PeerFailed, UsageError

_SIZE_VARS = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS")
_RANK_VARS = ("PMI_RANK", "OMPI_COMM_WORLD_RANK", "MPI_LOCALRANKID")


def launched_size():
    """The number of ranks mpiexec says it started (1 outside mpiexec); MPI is not started."""
    sizes = [int(v) for v in map(os.environ.get, _SIZE_VARS) if v and v.isdigit()]
    return max(sizes, default=1)


def launched_rank():
    """This process's rank according to mpiexec's environment (0 outside mpiexec)."""
    ranks = [int(v) for v in map(os.environ.get, _RANK_VARS) if v and v.isdigit()]
    return ranks[0] if ranks else 0


def join_world():
    """Under ``mpiexec -n N`` (N > 1): start the MPI process group and return ember.distributed;
    otherwise None, without importing mpi4py."""
    if launched_size() < 2:
        return None
    dist = ember.distributed
    if not dist.is_available():
        error = PeerFailed if launched_rank() else UsageError  # rank 0 reports
        raise error(f"launched on {launched_size()} ranks but mpi4py is not installed; "
                    "pip install 'ember[distributed]' (or run without mpiexec)")
    if not dist.is_initialized():
        dist.init_process_group("mpi")
    if dist.get_world_size() < 2:
        return None
    if not any(os.environ.get(v) for v in _THREAD_VARS):  # the user's setting wins
        limit_blas_threads(_threads_per_rank())
    return dist


_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
_LOCAL_SIZE_VARS = ("MPI_LOCALNRANKS", "OMPI_COMM_WORLD_LOCAL_SIZE")
_BLAS_SETTERS = ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_",
                 "openblas_set_num_threads")


def _threads_per_rank():
    """This machine's usable cores shared by the ranks on it (at least 1 each)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    local = [int(v) for v in map(os.environ.get, _LOCAL_SIZE_VARS) if v and v.isdigit()]
    return max(1, (cores or 1) // max(local or [launched_size()]))


def limit_blas_threads(threads):
    """Set the thread count of the OpenBLAS libraries loaded in this process (NumPy's); ranks
    sharing a machine otherwise each start one BLAS thread per core and slow down ~10x.
    Returns the libraries changed (0 where none is found, e.g. not Linux or not OpenBLAS)."""
    import ctypes
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


def fingerprint(run):
    """What every rank must share before training: split sizes, checksums of the data, classes,
    and the epoch a checkpoint resumes after."""
    import zlib
    sums = [zlib.crc32(np.ascontiguousarray(t.numpy()).tobytes()) for part in ("train", "val",
            "test") for t in run.splits[part]]
    sizes = [len(run.splits[part][1]) for part in ("train", "val", "test")]
    return [*sizes, zlib.crc32(np.array(sums, dtype=np.int64).tobytes()), run.epoch]


def agree(dist, error, mine):
    """Collective check after validation: if any rank failed (or holds other data than rank 0),
    every rank raises; the lowest such rank raises its own error (named by rank unless it is
    rank 0), the others PeerFailed. ``mine``: this rank's fingerprint (None if it failed)."""
    rank, size = dist.get_rank(), dist.get_world_size()
    row = ember.tensor([int(error is not None), *(mine or [0] * 5)], dtype=ember.int64)
    rows = [ember.zeros_like(row) for _ in range(size)]
    dist.all_gather(rows, row)
    rows = [r.tolist() for r in rows]
    failed = [r for r in range(size) if rows[r][0]]
    differs = [r for r in range(size) if not rows[r][0] and not rows[0][0]
               and rows[r][1:] != rows[0][1:]]
    if not failed and not differs:
        return
    first = min(failed + differs)
    if rank != first:
        raise PeerFailed(f"rank {first} failed")
    if error is None:
        n, m = rows[0][1:4], rows[rank][1:4]
        raise UsageError(f"rank {rank} holds other data or another checkpoint than rank 0 "
                         f"(train/val/test {m[0]}/{m[1]}/{m[2]} vs {n[0]}/{n[1]}/{n[2]}, epoch "
                         f"{rows[rank][5]} vs {rows[0][5]}, or different values); every rank "
                         "must read the same --data and --resume")
    if rank != 0:
        raise UsageError(f"rank {rank}: {error}")
    raise error
