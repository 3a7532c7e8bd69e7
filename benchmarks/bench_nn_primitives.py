"""ember.nn pieces vs torch: the MLP 784-512-256-10 forward+backward (without the optimizer; the
full SGD step is in bench_nn.py) and the Linear / cross_entropy / softmax primitives."""
import numpy as np
import torch
from _timing import HEADER, compare, row

import ember


def _mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 256), nn.ReLU(),
                         nn.Linear(256, 10))


def _pair(builder):
    t_model = builder(torch)
    e_model = builder(ember)
    e_model.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_model.state_dict().items()})
    return e_model, t_model


def _data(batch=128):
    rng = np.random.default_rng(0)
    return rng.standard_normal((batch, 784)).astype(np.float32), rng.integers(0, 10, batch)


def _forward_backward(lib, model, x, y):
    loss_fn = lib.nn.CrossEntropyLoss()

    def step():
        model.zero_grad()
        loss_fn(model(x), y).backward()
    return step


def _mlp_rows():
    x, y = _data()
    e_model, t_model = _pair(_mlp)
    ex, ey, tx, ty = ember.tensor(x), ember.tensor(y), torch.tensor(x), torch.tensor(y)
    e, t = compare(_forward_backward(ember, e_model, ex, ey),
                   _forward_backward(torch, t_model, tx, ty), repeats=21, inner=5)
    return [row("MLP 784-512-256-10, batch 128, forward + backward", e, t, "-")]


def _primitive_rows():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((128, 784)).astype(np.float32)
    w = rng.standard_normal((512, 784)).astype(np.float32)
    b = rng.standard_normal(512).astype(np.float32)
    logits = rng.standard_normal((128, 10)).astype(np.float32)
    target = rng.integers(0, 10, 128)
    cases = [
        ("F.linear 128x784 @ 784x512 + bias, forward", lambda lib: (
            lambda a=lib.tensor(x), c=lib.tensor(w), d=lib.tensor(b):
            lib.nn.functional.linear(a, c, d))),
        ("F.cross_entropy 128x10, forward + backward", lambda lib: (
            lambda a=lib.tensor(logits, requires_grad=True), t=lib.tensor(target):
            lib.nn.functional.cross_entropy(a, t).backward())),
        ("F.softmax 128x784, forward", lambda lib: (
            lambda a=lib.tensor(x): lib.nn.functional.softmax(a, dim=1))),
    ]
    out = []
    for name, make in cases:
        e, t = compare(make(ember), make(torch), repeats=15, inner=20)
        out.append(row(name, e, t, "-", unit="us", scale=1e6))
    return out


def main():
    print(HEADER)
    for line in _mlp_rows() + _primitive_rows():
        print(line)


if __name__ == "__main__":
    main()
