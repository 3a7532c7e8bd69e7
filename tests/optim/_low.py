"""Shared driver for the bfloat16 and float16 tests: an optimizer run over fixed gradients in
ember and in torch 2.13, compared bit for bit (parameters and state, NaN equal to NaN).

torch's CPU step is its per-tensor ("single_tensor") one: each tensor op computes in float32 and
rounds its result to the parameter's dtype, so every op of the update rule rounds once."""
import numpy as np
import pytest
import torch

import ember

SHAPES = [(64,), (4, 16), (), (3,)]
STEPS = 5


def _arrays(shapes, seed):
    rng = np.random.default_rng(seed)
    params = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    grads = [[(rng.standard_normal(s) * 0.3).astype(np.float32) for s in shapes]
             for _ in range(STEPS)]
    return params, grads


def run(lib, name, kwargs, dtype, shapes=SHAPES, seed=0):
    """The parameters and the optimizer after STEPS steps over fixed gradients."""
    inits, grads = _arrays(shapes, seed)
    low = getattr(lib, dtype)
    params = [lib.tensor(a).to(low).requires_grad_() for a in inits]
    opt = getattr(lib.optim, name)(params, **kwargs)
    for step in range(STEPS):
        for p, g in zip(params, grads[step]):
            p.grad = lib.tensor(g).to(low)
        opt.step()
    return params, opt


def _same(a, b, what):
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    differ = ~((a == b) | (np.isnan(a) & np.isnan(b)))
    assert not differ.any(), f"{what}: {int(differ.sum())} of {a.size} elements differ"


def check_low_precision_matches_torch(case, dtype, foreach, shapes=SHAPES):
    name, kwargs = case
    kwargs = kwargs if foreach is None else {**kwargs, "foreach": foreach}
    e_params, e_opt = run(ember, name, kwargs, dtype, shapes)
    t_params, t_opt = run(torch, name, kwargs, dtype, shapes)
    for i, (e, t) in enumerate(zip(e_params, t_params)):
        assert str(e.dtype).split(".")[-1] == dtype
        _same(e.detach().float().numpy(), t.detach().float().numpy(), f"param {i}")
        e_state, t_state = e_opt.state[e], t_opt.state[t]
        assert list(e_state) == list(t_state)
        for k, tv in t_state.items():
            ev = e_state[k]
            assert str(ev.dtype).split(".")[-1] == str(tv.dtype).split(".")[-1], k
            _same(ev.detach().float().numpy(), tv.detach().float().numpy(), f"param {i} {k}")


def low_precision_tests(cases, shapes=SHAPES, foreach=(False, None),
                        dtypes=("float16", "bfloat16")):
    """The test over ``cases`` (rows of (name, kwargs)) for a test module to bind at module
    level: float16 and bfloat16, per tensor (foreach=False) and on the flat path (None: not
    passed), over parameters of ``shapes``."""
    @pytest.mark.parametrize("foreach", foreach)
    @pytest.mark.parametrize("dtype", dtypes)
    @pytest.mark.parametrize("case", cases,
                             ids=lambda c: f"{c[0]}(" + ",".join(f"{k}={v}" for k, v in
                                                                  c[1].items()) + ")")
    def test_low_precision_matches_torch(case, dtype, foreach):
        check_low_precision_matches_torch(case, dtype, foreach, shapes)

    return test_low_precision_matches_torch
