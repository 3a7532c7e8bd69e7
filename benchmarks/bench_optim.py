"""Workload: one optimizer step over 180 parameters of mixed shapes (~5M elements), ember vs
torch, with fresh gradients before every step (as after backward); and the peak extra memory
of an ember step (tracemalloc)."""
import tracemalloc

import numpy as np
import torch
from _timing import HEADER, compare, row

import ember

BLOCK = [(256, 512), (512,), (64, 512), (64,), (64,), (64,)]  # 6 tensors, ~164k elements
SHAPES = BLOCK * 30                                              # 180 tensors, ~4.9M elements
CASES = [
    ("SGD (nesterov, weight_decay)", "SGD",
     dict(lr=0.01, momentum=0.9, nesterov=True, weight_decay=1e-4)),
    ("Adam", "Adam", dict(lr=1e-3)),
    ("AdamW", "AdamW", dict(lr=1e-3, weight_decay=1e-2)),
]


def _setup(lib, name, kwargs, values, grads):
    params = [lib.tensor(v.copy(), requires_grad=True) for v in values]
    grad_tensors = [lib.tensor(g) for g in grads]
    opt = getattr(lib.optim, name)(params, **kwargs)

    def step():
        for p, g in zip(params, grad_tensors):
            p.grad = g if lib is torch else ember.Tensor._make(g._data)
        opt.step()
    step()  # first step: state is created (and, in ember, the flat buffers built)
    return step, params


def _peak_extra(step):
    """Bytes allocated at the peak of one step beyond what existed before it."""
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    tracemalloc.reset_peak()
    step()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - before


def main():
    rng = np.random.default_rng(0)
    values = [rng.standard_normal(s).astype(np.float32) * 0.02 for s in SHAPES]
    grads = [rng.standard_normal(s).astype(np.float32) * 0.01 for s in SHAPES]
    numel = sum(v.size for v in values)
    largest = max(v.nbytes for v in values)
    print(HEADER)
    notes = []
    for label, name, kwargs in CASES:
        e_step, e_params = _setup(ember, name, kwargs, values, grads)
        t_step, t_params = _setup(torch, name, kwargs, values, grads)
        e, t = compare(e_step, t_step, repeats=11, inner=3)
        print(row(f"{label} step, {len(SHAPES)} params / {numel / 1e6:.1f}M", e, t, "<= 1.0"))
        extra = _peak_extra(e_step)
        notes.append(f"{label}: peak extra memory of an ember step {extra / 2**20:.2f} MiB "
                     f"(largest parameter {largest / 2**20:.2f} MiB, all parameters "
                     f"{numel * 4 / 2**20:.1f} MiB)")
    print()
    for note in notes:
        print(f"- {note}")


if __name__ == "__main__":
    main()
