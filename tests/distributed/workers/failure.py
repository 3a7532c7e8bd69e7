"""Worker: rank 1 fails in the way named by argv[1] while rank 0 waits in a collective."""
import os
import signal
import sys
import time
from datetime import timedelta

import ember
import ember.distributed as dist


def main(mode):
    dist.init_process_group("mpi", timeout=timedelta(seconds=3))
    rank = dist.get_rank()
    dist.barrier()
    if rank == 1:
        if mode == "raise":
            raise RuntimeError("rank 1 failed on purpose")
        if mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "hang":
            time.sleep(60)
        if mode == "exit":
            sys.exit(0)  # skips the collective: SystemExit bypasses the excepthook
    dist.all_reduce(ember.ones(4))
    print(f"UNREACHABLE {rank}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
