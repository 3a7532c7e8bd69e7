"""ember.distributed: a process group over MPI (mpi4py) and collectives on tensors, as torch's.

Launch with ``mpiexec -n N python train.py``; each rank calls ``init_process_group("mpi")``.
Importing this package does not start MPI; init_process_group does (and needs mpi4py).
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
