"""ember.distributed: a process group and collectives on tensors, as torch's.

Two backends. "gloo" (standard library sockets, nothing to install) joins the processes that
torch-style code starts itself: ``ember.multiprocessing.spawn(fn, args, nprocs)`` with
MASTER_ADDR/MASTER_PORT set and ``init_process_group("gloo", rank=rank, world_size=n)``, or
torchrun-style environments (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), or
``init_method="tcp://host:port"``. Reductions run through rank 0 in rank order; a rank that
exits makes the others' next collective raise, and a hung one makes them raise after
``timeout``.

"mpi": launch with ``mpiexec -n N python train.py`` (``pip install 'ember[distributed]'``
brings mpi4py and the mpich wheel, whose ``mpiexec`` lands next to ``python``). Importing this
package does not start MPI; ``init_process_group("mpi")`` does. A typical script::

    dist.init_process_group("mpi")
    model = nn.parallel.DistributedDataParallel(Net())        # rank 0's weights everywhere
    sampler = utils.data.DistributedSampler(dataset)           # this rank's share
    loader = utils.data.DataLoader(dataset, batch_size=64, sampler=sampler)
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        ...                                                    # forward, backward, opt.step()
        if dist.get_rank() == 0:                               # checkpoint from rank 0 only
            ember.save({"model": model.module.state_dict(), "optim": opt.state_dict()}, path)
    dist.barrier()                                             # the file is complete
    state = ember.load(path)                                   # loading: on every rank

Failures never hang: an uncaught exception on any rank aborts all ranks (MPI_Abort), a killed
rank ends the job (mpiexec), and a collective that waits longer than ``timeout`` (default
30 minutes, or ``EMBER_DIST_TIMEOUT`` seconds) raises RuntimeError.
"""
from ._collectives import (
                           ReduceOp,
                           Work,
                           all_gather,
                           all_gather_into_tensor,
                           all_reduce,
                           barrier,
                           broadcast,
                           gather,
                           recv,
                           reduce,
                           reduce_scatter,
                           reduce_scatter_tensor,
                           scatter,
                           send,
)
from ._group import (
                           GroupMember,
                           ProcessGroup,
                           default_pg_timeout,
                           destroy_process_group,
                           get_backend,
                           get_default_backend_for_device,
                           get_rank,
                           get_world_size,
                           group,
                           init_process_group,
                           is_available,
                           is_gloo_available,
                           is_initialized,
                           is_mpi_available,
                           is_nccl_available,
)

__all__ = ["ReduceOp", "Work", "all_gather", "all_gather_into_tensor", "all_reduce", "barrier",
           "broadcast", "gather", "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor",
           "scatter", "send", "GroupMember", "ProcessGroup", "default_pg_timeout",
           "destroy_process_group", "get_backend", "get_default_backend_for_device", "get_rank",
           "get_world_size", "group", "init_process_group", "is_available", "is_gloo_available",
           "is_initialized", "is_mpi_available", "is_nccl_available"]
