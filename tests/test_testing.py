"""torch.testing.assert_close (ember/testing): passes and failures as torch 2.13's, with the same
exception types and messages (tolerances by dtype, NaN, nested containers, msg)."""
import numpy as np
import pytest
import torch

import ember


def _cases(m):
    return [
        (m.tensor([1., 2., 3.]), m.tensor([1., 2.5, 3.]), {}),
        (m.tensor([1, 2]), m.tensor([1, 3]), {}),
        (m.tensor([1., 2.]), m.tensor([1., 2.], dtype=m.float64), {}),
        (m.zeros(2), m.zeros(3), {}),
        (m.tensor(float("nan")), m.tensor(float("nan")), {}),
        (m.tensor(float("nan")), m.tensor(float("nan")), {"equal_nan": True}),
        (1.0, 1.5, {}), (3, 4, {}), (True, False, {}), (None, None, {}), ("a", "a", {}),
        ([1., 2.], [1., 2.0001], {}), ((1, 2), (1, 2, 3), {}),
        (m.tensor([[1., 2.], [3., 4.]]), m.tensor([[1., 2.], [3., 5.]]), {}),
        ({"a": m.ones(1)}, {"a": m.zeros(1)}, {}), (m.ones(2), [1., 1.], {}),
        (m.tensor([True]), m.tensor([False]), {}), (m.tensor(1.), m.tensor(2.), {}),
        (m.tensor([1., float("nan")]), m.tensor([1., float("nan")]), {}),
        (m.tensor([1., 2.]), m.tensor([1.5, float("inf")]), {}),
        (m.tensor([1., 2.]).double(), m.tensor([1.5, 2.]).double(), {}),
        (m.tensor([1., 2.], dtype=m.float16), m.tensor([1., 2.5], dtype=m.float16), {}),
        (m.ones(2), m.ones(2).double(), {"check_dtype": False}),
        (m.tensor([1., 2.]), m.tensor([1., 3.]), {"msg": lambda text: "X" + text[:10]}),
        (m.tensor([1., 2.]), m.tensor([1., 3.]), {"msg": "custom"}),
        (m.ones(2, requires_grad=True), m.zeros(2), {}),
        ([m.ones(1), [m.ones(1), 2]], [m.ones(1), [m.zeros(1), 2]], {}),
        (m.tensor([1., 2.]), m.tensor([1., 2.1]), {"atol": 0.2, "rtol": 0}),
        (m.tensor([1., 2.]), m.tensor([1., 2.1]), {"atol": 0.2}),
        (np.ones(2), np.zeros(2), {}), (m.ones(3), m.ones(3) + 1e-6, {}),
    ]


def _outcome(lib, i):
    actual, expected, kwargs = _cases(lib)[i]
    try:
        lib.testing.assert_close(actual, expected, **kwargs)
    except Exception as error:  # noqa: BLE001  (the outcome is what is compared)
        text = str(error).replace("ember._tensor.", "torch.").replace("ember.", "torch.")
        return type(error), text
    return None


@pytest.mark.parametrize("i", range(len(_cases(torch))))
def test_assert_close_outcome_as_torch(i):
    assert _outcome(ember, i) == _outcome(torch, i)
