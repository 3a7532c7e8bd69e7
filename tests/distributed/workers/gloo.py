"""Worker: the "gloo" backend, as torch scripts start it: ember.multiprocessing.spawn starts
argv[1] processes, each joins with init_process_group("gloo", rank, world_size) on
MASTER_ADDR/MASTER_PORT and runs the scenarios named by argv[2:] (collectives.py's checks,
ddp.py's scenarios, "checkpoint=PATH"); each rank prints 'PASS <rank>'. argv[2] may be
"start=fork" to use fork instead of spawn."""
import os
import socket
import sys
from datetime import timedelta

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import collectives  # noqa: E402
import ddp  # noqa: E402

import ember  # noqa: E402
import ember.distributed as dist  # noqa: E402

CHECKS = {"collectives": (collectives.check_all_reduce, collectives.check_broadcast_and_reduce,
                          collectives.check_gathers, collectives.check_reduce_scatter,
                          collectives.check_async_and_p2p, collectives.check_errors)}


def run(rank, size, port, names):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=size, timeout=timedelta(seconds=60))
    assert dist.is_initialized() and dist.get_backend() == "gloo"
    assert (dist.get_rank(), dist.get_world_size()) == (rank, size)
    for name in names:
        name, _, path = name.partition("=")
        if path:
            ddp.scenario_checkpoint(rank, size, path)
        elif name in CHECKS:
            for check in CHECKS[name]:
                check(rank, size)
                dist.barrier()
        else:
            ddp.SCENARIOS[name](rank, size)
        dist.barrier()
    dist.destroy_process_group()
    assert not dist.is_initialized()
    print(f"PASS {rank}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    n, names = int(sys.argv[1]), sys.argv[2:]
    start = "spawn"
    if names and names[0].startswith("start="):
        start = names.pop(0).partition("=")[2]
    ember.multiprocessing.spawn(run, args=(n, free_port(), names), nprocs=n, start_method=start)
