"""The pattern of PyTorch's "Getting Started with Distributed Data Parallel" tutorial, written
for torch (run under ember through the torch -> ember alias): setup/cleanup, a ToyModel wrapped
in DDP, one SGD step on 2 processes started by mp.spawn. Prints each rank's loss and rank 0's
parameters after the step. MASTER_PORT is the tutorial's 12355 unless DEMO_PORT is set."""
import os
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.optim as optim
from torch.nn.parallel import DistributedDataParallel as DDP


def setup(rank, world_size):
    os.environ["MASTER_ADDR"] = "localhost"
    os.environ["MASTER_PORT"] = os.environ.get("DEMO_PORT", "12355")
    dist.init_process_group("gloo", rank=rank, world_size=world_size)


def cleanup():
    dist.destroy_process_group()


class ToyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net1 = nn.Linear(10, 10)
        self.relu = nn.ReLU()
        self.net2 = nn.Linear(10, 5)

    def forward(self, x):
        return self.net2(self.relu(self.net1(x)))


def demo_basic(rank, world_size):
    say(f"Running basic DDP example on rank {rank}.")
    setup(rank, world_size)
    torch.manual_seed(rank)  # different weights per rank: DDP must start from rank 0's
    model = ToyModel()
    ddp_model = DDP(model)
    loss_fn = nn.MSELoss()
    optimizer = optim.SGD(ddp_model.parameters(), lr=0.001)
    optimizer.zero_grad()
    outputs = ddp_model(torch.randn(20, 10))
    labels = torch.randn(20, 5)
    loss = loss_fn(outputs, labels)
    loss.backward()
    optimizer.step()
    say(f"rank {rank} loss {loss.item():.9g}")
    dist.barrier()
    if rank == 1:
        params = " ".join(f"{v:.9g}" for p in model.parameters()
                          for v in p.detach().reshape(-1).tolist())
        say(f"params {params}")
    cleanup()
    say(f"Finished running basic DDP example on rank {rank}.")


def say(line):
    """One write of the line and its newline: the ranks print at once into one pipe (print's
    separate write of the newline let another rank's text in between)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def run_demo(demo_fn, world_size):
    mp.spawn(demo_fn, args=(world_size,), nprocs=world_size, join=True)


if __name__ == "__main__":
    run_demo(demo_basic, 2)
