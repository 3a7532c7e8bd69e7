"""Workloads 1-2: per-op forward+backward overhead on a 150-op chain, and a tiny MLP step."""
import os
import sys

import numpy as np
import torch
from _timing import HEADER, compare, row

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import ember  # noqa: E402  (this checkout's ember, not an installed one)

N_OPS = 150


def _chain(x):
    """150 small element-wise ops (mul, add, tanh, sub, sigmoid/neg) and a final sum."""
    y = x
    for i in range(N_OPS // 5):
        y = y * 1.01
        y = y + 0.5
        y = y.tanh()
        y = y - 0.25
        y = y.sigmoid() if i % 2 else -y
    return y.sum()


def _tensor_chain(x, w, b):
    """150 element-wise ops with tensor operands (y*w, y+b, tanh, y-w, exp/relu) and a sum."""
    y = x
    for i in range(N_OPS // 5):
        y = y * w
        y = y + b
        y = y.tanh()
        y = y - w
        y = y.exp() if i % 2 else y.relu()
    return y.sum()


def _tensor_chain_step(lib):
    rng = np.random.default_rng(0)
    x, w, b = (lib.tensor(a.astype(np.float32), requires_grad=True) for a in (
        rng.standard_normal(64), rng.standard_normal(64) * 0.1 + 1, rng.standard_normal(64) * 0.1))

    def step():
        x.grad = w.grad = b.grad = None
        _tensor_chain(x, w, b).backward()
    return step


def _chain_step(lib):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal(64).astype(np.float32), requires_grad=True)

    def step():
        x.grad = None
        _chain(x).backward()
    return step


def per_op():
    """Seconds per op (forward + backward) for ember and torch."""
    e, t = compare(_chain_step(ember), _chain_step(torch), repeats=21, inner=10)
    n = _count_ops()
    return e / n, t / n


def _count_ops():
    x = ember.tensor(np.ones(64, np.float32), requires_grad=True)
    seen, stack = set(), [_chain(x).grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(n for n, _ in node.next_functions)
    return len(seen) - 1  # minus the AccumulateGrad sink


def _mlp_step(lib):
    torch.manual_seed(0)
    t_model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(),
                                  torch.nn.Linear(32, 32), torch.nn.ReLU(),
                                  torch.nn.Linear(32, 1))
    model = t_model
    if lib is ember:
        model = ember.nn.Sequential(ember.nn.Linear(16, 32), ember.nn.ReLU(),
                                    ember.nn.Linear(32, 32), ember.nn.ReLU(),
                                    ember.nn.Linear(32, 1))
        model.load_state_dict({k: ember.tensor(v.detach().numpy())
                               for k, v in t_model.state_dict().items()})
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((32, 16)).astype(np.float32))
    y = lib.tensor(rng.standard_normal((32, 1)).astype(np.float32))
    opt = lib.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = lib.nn.MSELoss()

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    return step


def mlp():
    """Seconds per tiny-MLP Adam step, or None when ember.nn / ember.optim are not there yet."""
    try:
        e_step = _mlp_step(ember)
    except (ImportError, AttributeError) as exc:
        return exc
    return compare(e_step, _mlp_step(torch), repeats=15, inner=20)


def main():
    print(HEADER)
    e, t = per_op()
    print(row(f"per-op overhead, fwd+bwd, chain of {_count_ops()} ops on 64 floats", e, t,
              "<= 0.5", unit="µs", scale=1e6))
    e, t = compare(_tensor_chain_step(ember), _tensor_chain_step(torch), repeats=21, inner=10)
    print(row(f"per-op overhead, tensor operands (x*w, x+b, ...), {N_OPS} ops, no goal",
              e / N_OPS, t / N_OPS, "(info)", unit="µs", scale=1e6))
    res = mlp()
    if isinstance(res, Exception):
        print(f"| tiny MLP 16-32-32-1, batch 32, Adam step | skipped: {res} | - | - | <= 0.7 |")
    else:
        print(row("tiny MLP 16-32-32-1, batch 32, Adam step", *res, "<= 0.7"))


if __name__ == "__main__":
    main()
