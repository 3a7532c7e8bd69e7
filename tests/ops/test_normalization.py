"""Normalization primitives (ember/ops/normalization.py): batch norm (training, with running
statistics updated as torch's, and eval), layer norm and group norm against torch: values,
gradients, second derivatives and grad_fn names."""
import numpy as np
import pytest
import torch
from oracle import check, close

import ember

R = np.random.default_rng(0)
X = R.standard_normal((4, 6, 3, 2)) * 2 + 1
W, B = R.standard_normal(6), R.standard_normal(6)


def _f(lib):
    return lib.nn.functional


CASES = {
    "batch_norm_train": lambda L, x, w, b: _f(L).batch_norm(x, None, None, w, b, training=True),
    "batch_norm_eval": lambda L, x, w, b: _f(L).batch_norm(
        x, L.ones(6, dtype=x.dtype) * 0.5, L.ones(6, dtype=x.dtype) * 2, w, b, training=False),
    "layer_norm": lambda L, x, w, b: _f(L).layer_norm(x.transpose(1, 3), (6,), w, b),
    "layer_norm_2d": lambda L, x, w, b: _f(L).layer_norm(x, (3, 2)) * w.sum() + b.sum(),
    "group_norm": lambda L, x, w, b: _f(L).group_norm(x, 3, w, b, eps=1e-3),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    check(CASES[name], X, W, B)


def test_batch_norm_updates_running_statistics_as_torch():
    stats = []
    for lib in (ember, torch):
        mean, var = lib.zeros(6, dtype=lib.float64), lib.ones(6, dtype=lib.float64)
        for _ in range(2):
            _f(lib).batch_norm(lib.tensor(X), mean, var, training=True, momentum=0.3)
        stats.append((mean, var))
    close(stats[0], stats[1])


def test_batch_norm_with_one_value_per_channel_raises_as_torch():
    errors = []
    for lib in (torch, ember):
        with pytest.raises(ValueError) as info:
            _f(lib).batch_norm(lib.ones(1, 3), None, None, training=True)
        errors.append(str(info.value).replace("torch.", "ember."))
    assert errors[0] == errors[1]
