"""Fractional pooling's window starts (ember/ops/fractional_pool.py): torch's interval formula,
windows inside the input that cover it from the first to the last element, and positions that
point at each window's first maximum (checked by brute force, without torch)."""
import itertools

import numpy as np
import pytest

from ember.ops.fractional_pool import fractional_positions, interval_starts


@pytest.mark.parametrize("size,out,kernel", [(9, 4, 2), (7, 6, 2), (10, 3, 3), (5, 1, 2)])
def test_starts_stay_inside_and_reach_the_end(size, out, kernel):
    samples = np.random.default_rng(0).random((4, 3)).astype(np.float32)
    starts = interval_starts(samples, size, out, kernel)
    assert starts.shape == (4, 3, out)
    assert (starts >= 0).all() and (starts + kernel <= size).all()
    assert (starts[..., -1] == size - kernel).all()
    assert (np.diff(starts, axis=-1) >= 0).all()
    if out > 1:
        assert (starts[..., 0] == 0).all()


def test_positions_are_each_windows_first_maximum():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 3, (2, 2, 7, 6)).astype(np.float64)  # ties: the first one wins
    samples = rng.random((2, 2, 2))
    kernel, out = (2, 3), (4, 3)
    positions = fractional_positions(x, kernel, out, samples)
    for n, c in itertools.product(range(2), range(2)):
        rows = interval_starts(samples[n, c, 1], 7, 4, 2)
        cols = interval_starts(samples[n, c, 0], 6, 3, 3)
        for i, j in itertools.product(range(4), range(3)):
            window = x[n, c, rows[i]:rows[i] + 2, cols[j]:cols[j] + 3]
            r, s = np.unravel_index(np.argmax(window), window.shape)
            assert positions[n, c, i, j] == (rows[i] + r) * 6 + cols[j] + s
