"""ember/_select.py: libstdc++'s partial_sort, nth_element and sort as torch's topk runs them,
checked against torch.topk itself on rows full of equal values and NaN."""
import numpy as np
import pytest
import torch

from ember._select import topk_order, topk_rows


@pytest.mark.parametrize("seed", range(4))
def test_topk_order_is_torchs_on_ties(seed):
    rng = np.random.default_rng(seed)
    for trial in range(300):
        n = int(rng.integers(1, 400))  # both branches: partial_sort when k * 64 <= n
        k = int(rng.integers(0, n + 1)) if trial % 2 else int(rng.integers(0, max(1, n // 64) + 1))
        x = rng.integers(0, int(rng.integers(1, 8)), n).astype(np.float32)
        if trial % 5 == 0:
            x[rng.integers(0, n, max(1, n // 10))] = np.nan
        largest, srt = bool(trial % 2), bool(trial % 3)
        expected = torch.topk(torch.tensor(x), k, largest=largest, sorted=srt).indices.tolist()
        assert topk_order(x.tolist(), k, largest, srt) == expected


def test_topk_rows_keeps_rows_without_ties():
    keys = np.array([[3.0, 1.0, 2.0, 0.0], [1.0, 1.0, 0.0, 1.0]])
    order = np.argsort(-keys, axis=1, kind="stable")
    rows = topk_rows(keys, order, 2)
    assert rows[0].tolist() == [0, 2]
    assert rows[1].tolist() == torch.topk(torch.tensor(keys[1]), 2).indices.tolist()
