"""nn.Linear's primitive (ember/ops/linear_ops.py): one AddmmBackward0 node (MmBackward0 without
bias) for 2-D inputs, matching torch's values, gradients, second derivatives and grad_fn names,
also for batched inputs and when only some operands need gradients; dtype and shape errors as
torch's."""
import numpy as np
import pytest
import torch
from oracle import check

import ember

R = np.random.default_rng(0)
X, W, B = R.standard_normal((5, 3)), R.standard_normal((4, 3)), R.standard_normal(4)


def _linear(L, x, w, b=None):
    return L.nn.functional.linear(x, w, b)


def test_with_bias_is_addmm():
    assert type(check(_linear, X, W, B).grad_fn).__name__ == "AddmmBackward0"


def test_without_bias_is_mm():
    assert type(check(_linear, X, W).grad_fn).__name__ == "MmBackward0"


def test_batched_input():
    check(_linear, R.standard_normal((2, 5, 3)), W, B)


@pytest.mark.parametrize("needs", [(True, False, False), (False, True, True),
                                   (False, False, True)])
def test_only_some_operands_need_gradients(needs):
    check(_linear, X, W, B, grad_inputs=list(needs))


def _errors(call):
    errors = []
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as info:
            call(lib)
        errors.append(str(info.value))
    return errors


def test_shape_error_matches_torch():
    e = _errors(lambda L: _linear(L, L.ones(2, 3), L.ones(4, 2)))
    assert e[0] == e[1]


def test_dtype_mismatch_is_refused():
    """Both refuse, in torch's words (F.linear without a bias: 'expected m1 and m2 to have the
    same dtype, but got: float != double')."""
    e = _errors(lambda L: _linear(L, L.ones(2, 3), L.ones(4, 3, dtype=L.float64)))
    assert e[0] == e[1]


def test_linear_of_bool_raises_as_torch():
    for lib in (torch, ember):
        with pytest.raises(NotImplementedError, match="\"addmm_impl_cpu_\" not implemented for "
                                                      "'Bool'"):
            lib.nn.functional.linear(lib.ones(3, 4, dtype=lib.bool), lib.ones(2, 4, dtype=lib.bool))
