"""ember/_tensor_misc.py against torch: the in-place forms (methods and torch.X_), bit-shift
operators, and Tensor's smaller attributes."""
import numpy as np
import pytest
import torch
from oracle import check, close, same_error

import ember
from ember import _tensor_misc

R = np.random.default_rng(0)
X = R.uniform(0.1, 0.9, (3, 4))

INPLACE_UNARY = ["abs_", "absolute_", "sin_", "cos_", "tan_", "tanh_", "sigmoid_", "exp_",
                 "exp2_", "expm1_", "log_", "log2_", "log10_", "log1p_", "sqrt_", "rsqrt_",
                 "ceil_", "floor_", "round_", "trunc_", "fix_", "frac_", "neg_", "negative_",
                 "reciprocal_", "erf_", "erfc_", "erfinv_", "asin_", "acos_", "atan_", "sinh_",
                 "cosh_", "arcsin_", "arccos_", "arctan_", "asinh_", "arcsinh_", "atanh_",
                 "arctanh_", "relu_", "square_", "sgn_", "sign_", "lgamma_", "digamma_", "i0_",
                 "sinc_", "deg2rad_", "rad2deg_", "logit_", "logical_not_"]


@pytest.mark.parametrize("name", INPLACE_UNARY)
def test_inplace_unary_methods(name):
    if name in ("asinh_", "arcsinh_", "atanh_", "arctanh_"):  # torch: no derivative in place
        same_error(lambda L: getattr(L.tensor(X, requires_grad=True) * 1, name)().sum()
                   .backward())
    else:
        check(lambda L, x: getattr(x * 1, name)(), X, rtol=1e-7, atol=1e-7,
              same_grad_fn=False)
    e, t = ember.tensor(X), torch.tensor(X)
    assert getattr(e, name)() is e
    getattr(t, name)()
    close(e, t, rtol=1e-7, atol=1e-7)
    assert e._version == 1


@pytest.mark.parametrize("name", [n for n in _tensor_misc.TORCH_INPLACE
                                  if n not in ("fill_", "zero_", "gcd_", "lcm_", "ldexp_",
                                               "xlogy_", "addmv_") and "clamp" not in n
                                  and "clip" not in n])
def test_torch_inplace_functions(name):
    e, t = ember.tensor(X), torch.tensor(X)
    assert getattr(ember, name)(e) is e
    getattr(torch, name)(t)
    close(e, t, rtol=1e-7, atol=1e-7)


def test_torch_inplace_with_arguments():
    e, t = ember.tensor(X), torch.tensor(X)
    ember.clamp_(e, 0.2, 0.5), torch.clamp_(t, 0.2, 0.5)
    ember.clamp_min_(e, 0.3), torch.clamp_min_(t, 0.3)
    ember.xlogy_(e, 2.0), torch.xlogy_(t, 2.0)
    close(e, t)
    i, j = ember.tensor([12, 18]), torch.tensor([12, 18])
    ember.gcd_(i, ember.tensor([8, 4])), torch.gcd_(j, torch.tensor([8, 4]))
    close(i, j)


BINARY_INPLACE = ["atan2_", "arctan2_", "hypot_", "fmod_", "copysign_", "xlogy_", "ldexp_",
                  "eq_", "ne_", "lt_", "le_", "gt_", "ge_", "greater_", "greater_equal_",
                  "less_", "less_equal_", "not_equal_", "logical_and_", "logical_or_",
                  "logical_xor_", "divide_", "multiply_", "subtract_", "true_divide_",
                  "floor_divide_"]


@pytest.mark.parametrize("name", BINARY_INPLACE)
def test_inplace_binary_methods(name):
    y = R.uniform(0.2, 2.0, 4)
    grad = name not in ("floor_divide_",) and not name.startswith(
        ("eq", "ne", "lt", "le", "gt", "ge", "greater", "less", "not", "logical"))
    check(lambda L, a, b: getattr(a * 1, name)(b), X, y, grad=grad, same_grad_fn=False,
          rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("name", ["bitwise_and_", "bitwise_or_", "bitwise_xor_",
                                  "bitwise_left_shift_", "bitwise_right_shift_", "gcd_", "lcm_",
                                  "__ilshift__", "__irshift__"])
def test_integer_inplace(name):
    a, b = np.array([12, 5, -3, 7]), np.array([1, 3, 2, 0])
    e, t = ember.tensor(a), torch.tensor(a)
    assert getattr(e, name)(ember.tensor(b)) is e
    getattr(t, name)(torch.tensor(b))
    close(e, t)
    close(ember.tensor(a).bitwise_not_(), torch.tensor(a).bitwise_not_())


def test_inplace_errors_as_torch():
    same_error(lambda L: L.tensor([1, 2]).sqrt_())  # Float result can't be cast to Long
    same_error(lambda L: L.tensor([1, 2]).atan2_(L.tensor([1, 2])))
    same_error(lambda L: L.ones(2, requires_grad=True).lgamma_())
    same_error(lambda L: L.ones(2).addcmul_(L.ones(3), L.ones(3)))


def test_shift_operators():
    a = np.array([1, -8, 3])
    for fn in (lambda x: x << 2, lambda x: x >> 1, lambda x: 5 << x, lambda x: 64 >> x):
        close(fn(ember.tensor(a)), fn(torch.tensor(a)))
