"""Checks of ember.distributed.nn.functional on every rank (run by gloo.py): values as the plain
collectives give them, inputs untouched, and gradients as torch.distributed.nn's backwards
define them (broadcast <-> reduce to the root, all_reduce of the gradient, all_gather's slot
gradients summed over ranks)."""
import numpy as np

import ember
import ember.distributed.nn as dist_nn


def _leaf(rank):
    return ember.tensor([rank + 1.0, 2.0 * (rank + 1)], requires_grad=True)


def _ranks_sum(size):
    return sum(q + 1 for q in range(size))


def check_all_reduce(rank, size):
    x = _leaf(rank)
    y = dist_nn.all_reduce(x)
    assert y.tolist() == [_ranks_sum(size), 2.0 * _ranks_sum(size)] and y.requires_grad
    assert x.tolist() == [rank + 1.0, 2.0 * (rank + 1)]
    (y * (rank + 1)).sum().backward()
    assert x.grad.tolist() == [_ranks_sum(size)] * 2


def check_broadcast_and_reduce(rank, size):
    x = _leaf(rank)
    y = dist_nn.broadcast(x, 1)
    assert y.tolist() == [2.0, 4.0]
    (y * (rank + 1)).sum().backward()
    assert x.grad.tolist() == ([_ranks_sum(size)] * 2 if rank == 1 else [0.0, 0.0])
    x = _leaf(rank)
    y = dist_nn.reduce(x, 0)
    assert y.tolist() == ([_ranks_sum(size), 2.0 * _ranks_sum(size)] if rank == 0 else
                          [rank + 1.0, 2.0 * (rank + 1)])
    (y * (rank + 1)).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]   # rank 0's gradient, broadcast


def check_all_gather(rank, size):
    x = _leaf(rank)
    outs = dist_nn.all_gather(x)
    assert isinstance(outs, tuple) and len(outs) == size
    assert [o.tolist() for o in outs] == [[q + 1.0, 2.0 * (q + 1)] for q in range(size)]
    sum((o * (i + 1) * (rank + 1)).sum() for i, o in enumerate(outs)).backward()
    assert np.allclose(x.grad.numpy(), (rank + 1) * _ranks_sum(size))
    x = _leaf(rank)
    dist_nn.all_gather(x)[0].sum().backward()   # the other slots get no gradient
    assert x.grad.tolist() == ([float(size)] * 2 if rank == 0 else [0.0, 0.0])


CHECKS = (check_all_reduce, check_broadcast_and_reduce, check_all_gather)
