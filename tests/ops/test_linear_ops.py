"""nn.Linear's primitive (ember/ops/linear_ops.py): one AddmmBackward0 node (MmBackward0 without
bias) for 2-D inputs, matching torch's values, gradients, second derivatives and grad_fn names,
also for batched inputs and when only some operands need gradients; dtype and shape errors as
torch's."""
import numpy as np
import pytest
import torch
from oracle import check, same_error

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


_WEIGHT = {"ok": (4, 3), "shape": (4, 5), "vector": (3,), "3d": (4, 3, 1)}
_BIAS = {"none": None, "ok": (4,), "shape": (7,), "2d": (2, 4)}


@pytest.mark.parametrize("input_shape", [(3,), (2, 3), (2, 2, 3)])
@pytest.mark.parametrize("weight", sorted(_WEIGHT))
@pytest.mark.parametrize("weight_dtype", ["float32", "float64"])
@pytest.mark.parametrize("bias", sorted(_BIAS))
@pytest.mark.parametrize("bias_dtype", ["float32", "float64"])
def test_errors_in_torchs_order(input_shape, weight, weight_dtype, bias, bias_dtype):
    """torch takes addmm (with a bias and a 2-D, or contiguous input and a 1-D bias: the
    dtypes first), else matmul (the shapes first) and adds the bias in place; ember refused
    mixed dtypes before anything, let NumPy's ValueError out for a bias that does not fit,
    multiplied a 3-D weight, and refused a 2-D bias that broadcasts over a 3-D input"""
    def call(L):
        w = L.ones(_WEIGHT[weight], dtype=getattr(L, weight_dtype))
        b = None if _BIAS[bias] is None else L.ones(_BIAS[bias], dtype=getattr(L, bias_dtype))
        return _linear(L, L.ones(input_shape), w, b)
    try:
        expected = call(torch)
    except RuntimeError:
        same_error(call)
    else:
        got = call(ember)
        assert got.shape == expected.shape and str(got.dtype)[6:] == str(expected.dtype)[6:]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_non_contiguous_input_with_a_broadcasting_bias_as_torch(dtype):
    """torch takes matmul and adds the bias in place (ember refused a 2-D bias that broadcasts
    over a 3-D input); a fitting 1-D bias keeps ember's addmm on the rows (the same values)"""
    x = R.standard_normal((3, 4, 16)).astype(dtype)
    w = R.standard_normal((5, 16)).astype(dtype)
    check(lambda L, x, w, b: _linear(L, x.transpose(0, 1), w, b), x, w,
          R.standard_normal((3, 5)).astype(dtype))
    check(lambda L, x, w, b: _linear(L, x.transpose(0, 1), w, b), x, w,
          R.standard_normal(5).astype(dtype), same_grad_fn=False)


def test_a_batch_of_matrices_times_a_mixed_vector_is_torchs_addmv_error():
    same_error(lambda L: L.matmul(L.ones(2, 2, 3), L.ones(3, dtype=L.float64)))
    same_error(lambda L: _linear(L, L.ones(2, 2, 3), L.ones(3, dtype=L.float64)))
