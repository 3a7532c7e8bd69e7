"""ember.distributed: a process group over MPI (mpi4py) and collectives on tensors, as torch's.

Launch with ``mpiexec -n N python train.py`` (``pip install 'ember[distributed]'`` brings mpi4py
and the mpich wheel, whose ``mpiexec`` lands next to ``python``). Importing this package does not
start MPI; ``init_process_group("mpi")`` does. A typical script::

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
                           get_rank,
                           get_world_size,
                           group,
                           init_process_group,
                           is_available,
                           is_initialized,
                           is_mpi_available,
)

__all__ = ["ReduceOp", "Work", "all_gather", "all_gather_into_tensor", "all_reduce", "barrier",
           "broadcast", "gather", "recv", "reduce", "reduce_scatter", "reduce_scatter_tensor",
           "scatter", "send", "GroupMember", "ProcessGroup", "default_pg_timeout",
           "destroy_process_group", "get_backend", "get_rank", "get_world_size", "group",
           "init_process_group", "is_available", "is_initialized", "is_mpi_available"]
