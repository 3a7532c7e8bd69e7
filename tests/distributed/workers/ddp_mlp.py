"""A torch DDP script (run as is under torch, or under ember through the torch -> ember alias):
a small MLP trained 5 SGD steps on 2 ranks with the gloo backend, each rank on its half of the
global batch, then the same model trained in this process on the whole batch. Prints the loss of
rank 0 at each step, and both final parameter vectors, at full float32 precision."""
import os
import socket
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

STEPS = 5
GLOBAL_BATCH = 16


def make_model():
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4))
    rng = np.random.default_rng(0)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.5))
    return model


def batch(step):
    rng = np.random.default_rng(100 + step)
    x = rng.standard_normal((GLOBAL_BATCH, 8)).astype(np.float32)
    y = rng.standard_normal((GLOBAL_BATCH, 4)).astype(np.float32)
    return torch.tensor(x), torch.tensor(y)


def flat(model):
    return " ".join(f"{v:.9g}" for p in model.parameters() for v in p.detach().reshape(-1).tolist())


def train(rank, world_size, port):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    model = DDP(make_model())
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    share = GLOBAL_BATCH // world_size
    for step in range(STEPS):
        x, y = batch(step)
        mine = slice(rank * share, (rank + 1) * share)
        loss = nn.functional.mse_loss(model(x[mine]), y[mine])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if rank == 0:
            print(f"ddp step {step} loss {loss.item():.9g}", flush=True)
    if rank == 0:
        print(f"ddp params {flat(model.module)}", flush=True)
    dist.destroy_process_group()


def single():
    model = make_model()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for step in range(STEPS):
        x, y = batch(step)
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"single params {flat(model)}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("localhost", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    world_size = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    mp.spawn(train, args=(world_size, free_port()), nprocs=world_size, join=True)
    single()
