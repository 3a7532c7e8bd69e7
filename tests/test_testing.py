"""ember/testing (torch.testing.assert_close, assert_allclose) against torch 2.13: the same
pass/fail outcome and the same failure message for tensors of every kind, numbers, nested
sequences and mappings, tolerances, NaN, dtype/shape/stride checks and custom messages."""
import warnings

import pytest
import torch

import ember


def cases(L):
    """assert_close calls over torch or ember (L), passing and failing."""
    A = L.testing.assert_close
    return [
     lambda: A(L.tensor([1., 2., 3.]), L.tensor([1., 2., 3.1])),
     lambda: A(L.tensor([1., 2.]), L.tensor([1., 2.], dtype=L.float64)),
     lambda: A(L.tensor([1., 2.]), L.tensor([1., 2., 3.])),
     lambda: A(L.tensor([1, 2]), L.tensor([1, 3])),
     lambda: A(L.tensor([float('nan')]), L.tensor([float('nan')])),
     lambda: A([L.tensor(1.), L.tensor(2.)], [L.tensor(1.), L.tensor(2.5)]),
     lambda: A({'a': L.tensor(1.)}, {'a': L.tensor(1.5)}),
     lambda: A(1.0, 1.0 + 1e-9),
     lambda: A(L.tensor([1., 2.]), L.tensor([1., 2.5]), rtol=0.3, atol=0),
     lambda: A(L.tensor([1., 2.]), L.tensor([1., 2.5]), rtol=0.3),
     lambda: A(L.tensor([[1., 2.], [3, 4]]), L.tensor([[1., 2.], [3, 4.5]]), msg="custom"),
     lambda: A(L.tensor([1., 2.]), L.tensor([1., 2.]).requires_grad_()),
     lambda: A(L.tensor([True]), L.tensor([False])),
     lambda: A(L.tensor([2.]), L.tensor([2.5])),
     lambda: A(L.tensor(2), L.tensor(3)),
     lambda: A(2, 3), lambda: A(2.0, 3),
     lambda: A([1, [L.tensor(1.), {'b': L.tensor([1., 2.])}]], [1, [L.tensor(1.), {'b': L.tensor([1., 2.5])}]]),
     lambda: A([1, 2], [1, 2, 3]),
     lambda: A(L.tensor([1., 2.]), L.tensor([1., 2.5]), check_dtype=False),
     lambda: A(L.tensor([1., 2.]), L.tensor([1., 2.5], dtype=L.float64), check_dtype=False),
     lambda: A(L.tensor([1., float('nan')]), L.tensor([1., float('nan')]), equal_nan=True),
     lambda: A(L.tensor([[1., 2.], [3, 4]]), L.tensor([[1., 2.], [3, 4.5]]), msg=lambda m: "X" + m[:10]),
     lambda: A(L.tensor([1+1j]), L.tensor([1+2j])),
     lambda: A(L.ones(2,3).t(), L.ones(3,2), check_stride=True),
     lambda: A(L.tensor([1., 2.]), L.tensor([1.5, 2.5])),
     lambda: A(L.tensor([0., 2.]), L.tensor([1e-3, 2.])),
     lambda: A(True, False), lambda: A(None, None),
     lambda: A(L.tensor([1., 2.]), L.tensor([1., 2.]), rtol=None, atol=1e-3),
     lambda: A({'a': 1, 'b': 2}, {'a': 1, 'c': 2}), lambda: A((1, 2), [1, 2]),
     lambda: A(L.tensor([float('nan'), 1.]), L.tensor([1., 5.])),
     lambda: L.testing.assert_allclose(L.tensor([1.]), L.tensor([1.1])),
     lambda: A(L.zeros(0), L.zeros(0)),
     lambda: A(L.tensor([1, 2], dtype=L.int32), L.tensor([1, 2])),
     lambda: A(L.tensor([2.]), L.tensor([2.5]), atol=0.1, rtol=0.0),
     lambda: A(L.tensor([1., 2.], dtype=L.float16), L.tensor([1., 2.01], dtype=L.float16)),
     lambda: A(L.tensor([1., 2.], dtype=L.bfloat16), L.tensor([1., 2.02], dtype=L.bfloat16)),
     lambda: A(L.tensor([1., 2., 3.]).bfloat16(), L.tensor([1., 2.5, 3.]).bfloat16()),
     lambda: A(L.arange(6.).reshape(2, 3), L.arange(6.).reshape(2, 3) + L.tensor([[0, 0, 0], [0, 1e-3, 0]])),
    ]


def _outcomes(L):
    """Each case's outcome: "OK" or (exception type, message with the library's name blanked)."""
    out = []
    for case in cases(L):
        try:
            case()
            out.append("OK")
        except Exception as e:  # noqa: BLE001  (every outcome is compared with torch's)
            message = str(e).replace("<class 'ember._tensor.Tensor'>", "<class 'X.Tensor'>")
            out.append((type(e).__name__, message.replace("torch.", "X.").replace("ember.", "X.")))
    return out


@pytest.mark.parametrize("case", range(len(cases(torch))))
def test_outcome_and_message_as_torch(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # assert_allclose's deprecation
        assert _outcomes(ember)[case] == _outcomes(torch)[case]


def test_assert_allclose_warns_its_deprecation_as_torch():
    for lib in (torch, ember):
        with pytest.warns(FutureWarning, match="assert_allclose\\(\\)` is deprecated"):
            lib.testing.assert_allclose(lib.tensor([1.0]), lib.tensor([1.0]))
