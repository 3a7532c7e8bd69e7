"""Tests generated from the OpInfo table: forward, gradient and second derivative against torch
2.13 (float32 and float64), and float64 finite differences (gradcheck, gradgradcheck)."""
import warnings

import numpy as np
import pytest
from opinfo import OPS
from oracle import check

import ember
from ember.autograd import gradcheck, gradgradcheck

TOLERANCE = {np.float32: dict(rtol=1e-4, atol=1e-5), np.float64: dict(rtol=1e-7, atol=1e-9)}


def _cases(kind):
    for op in OPS:
        for sample in op.samples:
            if kind != "torch" and not sample.fd:
                continue
            if kind == "gradgrad" and not op.gradgrad:
                continue
            dtypes = (np.float32, np.float64) if kind == "torch" else (np.float64,)
            for dtype in dtypes:
                reason = op.xfail.get(sample.tag) or op.xfail.get(f"{sample.tag}:{kind}")
                marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
                yield pytest.param(op, sample, dtype, marks=marks,
                                   id=f"{op.name}-{sample.tag}-{np.dtype(dtype).name}")


def _arrays(sample, dtype):
    return [a.astype(dtype) if a.dtype.kind == "f" else a for a in map(np.asarray, sample.args)]


@pytest.mark.parametrize("op,sample,dtype", list(_cases("torch")))
def test_matches_torch(op, sample, dtype):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        check(op.fn, *_arrays(sample, dtype), second=op.gradgrad, **TOLERANCE[dtype])


def _leaves(sample):
    return tuple(ember.tensor(a, requires_grad=a.dtype.kind == "f")
                 for a in _arrays(sample, np.float64))


@pytest.mark.parametrize("op,sample,dtype", list(_cases("gradcheck")))
def test_gradcheck(op, sample, dtype):
    assert gradcheck(lambda *xs: op.fn(ember, *xs), _leaves(sample))


@pytest.mark.parametrize("op,sample,dtype", list(_cases("gradgrad")))
def test_gradgradcheck(op, sample, dtype):
    assert gradgradcheck(lambda *xs: op.fn(ember, *xs), _leaves(sample))


def test_table_covers_the_differentiable_api():
    """Every public differentiable function and unary method has at least one table entry."""
    from ember._tensor_methods import UNARY
    names = {op.name.split("_")[0] if op.name not in UNARY else op.name for op in OPS}
    names |= {op.name for op in OPS}
    api = {"add", "sub", "mul", "div", "pow", "neg", "clamp", "where", "masked_fill", "maximum",
           "minimum", "sum", "mean", "prod", "max", "min", "amax", "amin", "var", "std",
           "logsumexp", "norm", "matmul", "mm", "bmm", "view", "reshape", "flatten", "unflatten",
           "squeeze", "unsqueeze", "transpose", "t", "permute", "expand", "repeat", "flip",
           "narrow", "select", "split", "chunk", "unbind", "cat", "stack", "clone", "gather",
           "scatter", "index", "masked", "setitem", "contiguous", "broadcast", "sum_to_size"}
    unary = set(UNARY) - {"absolute", "arcsin", "arccos", "arctan", "negative", "fix"}
    missing = sorted((api | unary) - names)
    assert not missing, f"ops without OpInfo entries: {missing}"
