"""`ember train` under `mpiexec -n N`: join the ranks, agree on bad input before training."""
import numpy as np

import ember
from ember.distributed._launch import launched_rank, launched_size, share_blas_threads

from ._args import PeerFailed, UsageError


def join_world():
    """Under ``mpiexec -n N`` (N > 1): start the MPI process group and return ember.distributed;
    otherwise None, without importing mpi4py."""
    if launched_size() < 2:
        return None
    dist = ember.distributed
    if not dist.is_mpi_available():
        error = PeerFailed if launched_rank() else UsageError  # rank 0 reports
        raise error(f"launched on {launched_size()} ranks but mpi4py is not installed; "
                    "pip install 'ember[distributed]' (or run without mpiexec)")
    if not dist.is_initialized():
        dist.init_process_group("mpi")
    if dist.get_world_size() < 2:
        return None
    share_blas_threads()
    return dist


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
