"""Data-parallel training and all-reduce: ember (MPI) vs torch (gloo), each under mpiexec.

``rows()`` launches this file with ``mpiexec -n 1`` and ``-n 2`` (``--worker ember|torch``, one
job per library, so each framework runs in its own processes); rank 0 reports medians as JSON.
Workload: MLP 784-512-256-10, ReLU, cross-entropy, SGD momentum, 64 samples per rank per step,
one BLAS thread per rank.
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

BATCH, STEPS, WARMUP = 64, 30, 5
SIZES_MB = (1, 16)


def build(lib):
    nn = lib.nn
    lib.manual_seed(0)
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                         nn.Linear(256, 10))


def train_step_time(lib, ddp, rank):
    rng = np.random.default_rng(rank)
    x = lib.tensor(rng.standard_normal((BATCH, 784)).astype(np.float32))
    y = lib.tensor(rng.integers(0, 10, BATCH))
    model = ddp(build(lib))
    opt = lib.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    times = []
    for i in range(WARMUP + STEPS):
        start = time.perf_counter()
        logp = lib.nn.functional.log_softmax(model(x), dim=1)
        loss = -logp.gather(1, y[:, None]).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - start)
    return statistics.median(times[WARMUP:])


def allreduce_time(lib, dist, megabytes):
    t = lib.ones(megabytes * 1024 * 1024 // 4)
    times = []
    for _ in range(22):
        dist.barrier()
        start = time.perf_counter()
        dist.all_reduce(t)
        times.append(time.perf_counter() - start)
    return statistics.median(times[2:])


def ember_worker():
    import ember
    import ember.distributed as dist
    from ember.nn.parallel import DistributedDataParallel
    dist.init_process_group("mpi")
    rank = dist.get_rank()
    result = {"step": train_step_time(ember, DistributedDataParallel, rank),
              "all_reduce": [allreduce_time(ember, dist, mb) for mb in SIZES_MB]}
    dist.destroy_process_group()
    return rank, result


def torch_worker(port):
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel
    rank = int(os.environ["PMI_RANK"])  # set by mpiexec (hydra) for every rank
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=int(os.environ["PMI_SIZE"]))
    result = {"step": train_step_time(torch, DistributedDataParallel, rank),
              "all_reduce": [allreduce_time(torch, dist, mb) for mb in SIZES_MB]}
    dist.destroy_process_group()
    return rank, result


def launch(lib, n):
    """Run one library's worker on n ranks (a separate job each); rank 0's medians."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    # one BLAS thread per rank for both libraries: 1 vs 2 ranks then measures data parallelism
    env = {**os.environ, "PYTHONPATH": os.path.dirname(HERE), "OMP_NUM_THREADS": "1",
           "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    proc = subprocess.run([mpiexec, "-n", str(n), sys.executable, __file__, "--worker", lib,
                           str(port)], capture_output=True, text=True, env=env, timeout=600)
    # rank 0 prints RESULT once measuring is done; torch's gloo sometimes dies at teardown
    # ("terminate called without an active exception"), which does not affect the numbers
    line = next((line for line in proc.stdout.splitlines() if line.startswith("RESULT ")), None)
    if line is None:
        raise RuntimeError(f"mpiexec -n {n} ({lib}) failed ({proc.returncode}):\n"
                           f"{proc.stderr[-3000:]}")
    return json.loads(line[len("RESULT "):])


def rows():
    """(title, ember, torch, unit, goal text) rows: samples/s of DDP steps, all_reduce GB/s."""
    out = []
    for n in (1, 2):
        e, t = launch("ember", n), launch("torch", n)
        samples = BATCH * n
        out.append((f"DDP MLP 784-512-256-10 train step, {n} rank(s), {BATCH}/rank",
                    samples / e["step"], samples / t["step"], "samples/s",
                    "higher is better; 2 ranks > 1"))
        if n == 1:
            continue
        for mb, e_time, t_time in zip(SIZES_MB, e["all_reduce"], t["all_reduce"]):
            nbytes = mb * 1024 * 1024
            out.append((f"all_reduce {mb} MB float32, {n} ranks (algorithm bandwidth)",
                        nbytes / e_time / 1e9, nbytes / t_time / 1e9, "GB/s",
                        "MPI (mpich) vs gloo"))
    return out


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[1] == "--worker":
        rank, result = ember_worker() if sys.argv[2] == "ember" else torch_worker(sys.argv[3])
        if rank == 0:
            print("RESULT " + json.dumps(result), flush=True)
