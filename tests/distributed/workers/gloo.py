"""Worker: the "gloo" backend, as torch scripts start it: ember.multiprocessing.spawn starts
argv[1] processes, each joins with init_process_group("gloo", rank, world_size) on
MASTER_ADDR/MASTER_PORT and runs the scenarios named by argv[2:] (collectives.py's checks,
dist_nn.py's ("nn_functional"),
ddp.py's scenarios, "checkpoint=PATH", or "hang"/"exit": rank 1 sleeps or leaves while rank 0
all-reduces); each rank prints 'PASS <rank>'. Options before the scenarios: "start=fork" (instead
of spawn), "timeout=SECONDS" (default 60), "init=env" (torchrun's way: RANK and WORLD_SIZE in the
environment, init_process_group() without arguments) or "init=tcp" (init_method tcp://)."""
import os
import socket
import sys
import time
from datetime import timedelta

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import collectives  # noqa: E402
import ddp  # noqa: E402
import dist_nn  # noqa: E402

import ember  # noqa: E402
import ember.distributed as dist  # noqa: E402

CHECKS = {"collectives": (collectives.check_all_reduce, collectives.check_broadcast_and_reduce,
                          collectives.check_gathers, collectives.check_reduce_scatter,
                          collectives.check_async_and_p2p, collectives.check_errors),
          "nn_functional": dist_nn.CHECKS}


def fail(rank, mode):
    """Rank 1 sleeps past the timeout (then tries too late) or leaves; rank 0 all-reduces."""
    if rank == 1:
        if mode == "exit":
            sys.exit(0)
        time.sleep(4)
    dist.all_reduce(ember.ones(4))
    print(f"UNREACHABLE {rank}", flush=True)


def run(rank, size, port, names, timeout, init):
    timeout = timedelta(seconds=timeout)
    if init == "tcp":
        dist.init_process_group("gloo", init_method=f"tcp://localhost:{port}", rank=rank,
                                world_size=size, timeout=timeout)
    else:
        os.environ["MASTER_ADDR"] = "localhost"
        os.environ["MASTER_PORT"] = str(port)
        if init == "env":
            os.environ["RANK"], os.environ["WORLD_SIZE"] = str(rank), str(size)
            dist.init_process_group(timeout=timeout)
        else:
            dist.init_process_group("gloo", rank=rank, world_size=size, timeout=timeout)
    assert dist.is_initialized() and dist.get_backend() == "gloo"
    assert (dist.get_rank(), dist.get_world_size()) == (rank, size)
    for name in names:
        name, _, path = name.partition("=")
        if path:
            ddp.scenario_checkpoint(rank, size, path)
        elif name in ("hang", "exit"):
            fail(rank, name)
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
    options = {"start": "spawn", "timeout": "60", "init": "args"}
    while names and names[0].partition("=")[0] in options:
        key, _, value = names.pop(0).partition("=")
        options[key] = value
    ember.multiprocessing.spawn(
        run, args=(n, free_port(), names, float(options["timeout"]), options["init"]), nprocs=n,
        start_method=options["start"])
