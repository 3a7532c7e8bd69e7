"""Workloads 4-5: an MLP and a LeNet-style CNN training step (SGD with momentum), ember vs torch."""
import numpy as np
import torch
from _timing import HEADER, compare, row, sgd_step

import ember


def mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                         nn.Linear(256, 10))


def lenet(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(1, 6, 5), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(6, 16, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(256, 120), nn.ReLU(), nn.Linear(120, 84), nn.ReLU(),
                         nn.Linear(84, 10))



def bench(build, shape):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    y = rng.integers(0, 10, shape[0])
    t_model, e_model = build(torch), build(ember)
    e_model.load_state_dict({k: ember.tensor(v.numpy()) for k, v in
                             t_model.state_dict().items()})
    e_step = sgd_step(ember, e_model, ember.tensor(x), ember.tensor(y))
    t_step = sgd_step(torch, t_model, torch.tensor(x), torch.tensor(y))
    return compare(e_step, t_step, repeats=15, inner=5)


def main():
    print(HEADER)
    e, t = bench(mlp, (128, 784))
    print(row("MLP 784-512-256-10, batch 128, SGD momentum step", e, t, "<= 1.05"))
    e, t = bench(lenet, (64, 1, 28, 28))
    print(row("LeNet-5 CNN (2x conv+relu+maxpool, 3 linear), 1x28x28, batch 64, SGD step",
              e, t, "<= 1.5"))


if __name__ == "__main__":
    main()
