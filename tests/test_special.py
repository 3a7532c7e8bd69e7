"""torch.special (ember/special.py) against torch: values, gradients, second derivatives."""
import numpy as np
import pytest
import torch
from oracle import check

import ember

R = np.random.default_rng(0)
X = R.standard_normal((3, 4))
P = R.random((3, 4)) * 0.9 + 0.05


@pytest.mark.parametrize("name,data", [
    ("expit", X), ("gammaln", P + 0.5), ("psi", P + 0.5), ("digamma", P + 0.5), ("erf", X),
    ("erfc", X), ("erfinv", P * 2 - 1), ("exp2", X), ("expm1", X), ("log1p", P), ("i0", X),
    ("i1", X), ("logit", P), ("sinc", X), ("ndtr", X), ("entr", np.r_[P.ravel(), 0.0, -1.0]),
    ("round", X)])
def test_unary_special_functions_as_torch(name, data):
    check(lambda L, x: getattr(L.special, name)(x), data, same_grad_fn=False)


def test_softmax_log_softmax_logsumexp_xlogy_xlog1py_polygamma_multigammaln_as_torch():
    check(lambda L, x: L.special.softmax(x, 1), X, same_grad_fn=False)
    check(lambda L, x: L.special.log_softmax(x, 0, dtype=L.float64), X, same_grad_fn=False)
    check(lambda L, x: L.special.logsumexp(x, 1), X, same_grad_fn=False)
    check(lambda L, x, y: L.special.xlogy(x, y), np.r_[X[0], 0.0], np.r_[P[0], 0.5],
          same_grad_fn=False)
    check(lambda L, x, y: L.special.xlog1py(x, y), np.r_[X[0], 0.0], np.r_[P[0], 0.5],
          same_grad_fn=False)
    check(lambda L, x: L.special.polygamma(1, x), P + 0.5, same_grad_fn=False)
    check(lambda L, x: L.special.multigammaln(x, 2), P + 1.0, same_grad_fn=False)


@pytest.mark.parametrize("call", [
    lambda L: L.special.xlog1py(L.tensor([True, False]), 2),
    lambda L: L.special.xlog1py(L.tensor([0, 2, 3], dtype=L.int8), 300),
    lambda L: L.special.xlog1py(2, L.tensor([True, False])),
    lambda L: L.special.xlog1py(L.tensor([0.0, 2.0, 3.0], dtype=L.float64), 2.5)])
def test_xlog1py_reads_numbers_as_given(call):
    # ember cast the number into the tensor's dtype (a bool tensor's 2 became True: log1p(1))
    ours, theirs = call(ember), call(torch)
    assert str(ours.dtype) == str(theirs.dtype).replace("torch", "ember")
    assert ours.tolist() == theirs.tolist()
