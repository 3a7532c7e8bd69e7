"""ember/ops/histogram.py against torch 2.13: counts, weighted sums and densities, bin edges
(equal bins over given, data or single-point ranges; given edge tensors), histogramdd over
several dims, and torch's errors, all equal to torch's."""
import numpy as np
import pytest
import torch

import ember


def cases(L):
    """histogram/histogramdd calls over torch or ember (L), working and failing."""
    x = L.tensor([1., 2, 1, 4, 2.5])
    r = np.random.RandomState(0).randn(200).astype(np.float32)
    return [
        lambda: L.histogram(x, 3), lambda: L.histogram(x, 3, range=(0., 5.), density=True),
        lambda: L.histogram(x, L.tensor([0., 1.5, 3., 10.]), weight=L.tensor([1., 2, 3, 4, 5])),
        lambda: L.histogram(L.tensor([2., 2.]), 4), lambda: L.histogram(L.tensor([]), 2),
        lambda: L.histogram(L.tensor([1, 2]), 2), lambda: L.histogram(L.tensor([1., float('nan')]), 2),
        lambda: L.histogram(x, 0), lambda: L.histogram(x, 2, range=(3., 1.)),
        lambda: L.histogram(x, L.tensor([0., 1.5], dtype=L.float64)), lambda: L.histogram(x.double(), 2),
        lambda: L.histogram(L.tensor([1., float('inf')]), 2), lambda: L.histogram(x, L.tensor([3., 1.])),
        lambda: x.histogram(2), lambda: L.histogram(L.tensor(r), 7), lambda: L.histogram(L.tensor(r).double(), 13, density=True),
        lambda: L.histogram(L.tensor(r), 5, range=(-1., 1.)),
        lambda: L.histogramdd(L.tensor([[0., 1.], [1., 0.], [2., 0.], [2., 2.]]), bins=[3, 3]),
        lambda: L.histogramdd(L.tensor(r.reshape(50, 4)), bins=[2, 3, 4, 2], density=True),
        lambda: L.histogramdd(L.tensor(r.reshape(100, 2)), bins=4, weight=L.tensor(np.abs(r[:100]))),
        lambda: L.histogram(L.tensor([[1., 2.], [3, 4]]), 2, weight=L.tensor([1., 2, 3, 4])),
        lambda: L.histogram(L.tensor([[1., 2.], [3, 4]]), 2, weight=L.ones(3)),
        lambda: L.histogram(L.tensor([1., 2.]).half(), 2),
    ]
def _outcomes(L):
    """Each case's (hist, edges, dtype) or (exception type, message)."""
    out = []
    for c in cases(L):
        try:
            h, e = c()
            out.append((h.tolist(), [t.tolist() for t in e] if isinstance(e, tuple) else e.tolist(), str(h.dtype).split(".")[1]))
        except Exception as ex:  # noqa: BLE001  (compared with torch's outcome)
            out.append((type(ex).__name__, str(ex)))
    return out


@pytest.mark.parametrize("case", range(len(cases(torch))))
def test_histogram_as_torch(case):
    assert _outcomes(ember)[case] == _outcomes(torch)[case]
