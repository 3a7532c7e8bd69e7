"""Shared driver for the optimizer table: the same problem run in ember and in torch."""
import copy
import inspect

import numpy as np
import pytest
import torch

import ember
from ember.optim import _flat

SHAPES = [(4, 3), (3,), (2, 2, 2), (), (5,)]


def inits(dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in SHAPES]


def _targets(dtype):
    rng = np.random.default_rng(99)
    return [rng.standard_normal(s).astype(dtype) for s in SHAPES]


def loss_fn(lib, params, step, targets, sign=1.0):
    """A smooth loss (negated for ``maximize``); parameter 3 gets no gradient on every third
    step (its grad stays None)."""
    total = None
    for i, (p, t) in enumerate(zip(params, targets)):
        if i == 3 and step % 3 == 1:
            continue
        term = ((p - lib.tensor(t)) ** 2 * (0.5 + 0.25 * i)).sum() + (p ** 4).sum() * 0.05
        total = term if total is None else total + term
    return total * sign


def make_groups(params, groups, kwargs):
    """One group, or two (the second with half the lr) when the row asks for it."""
    if groups == 1:
        return params
    return [{"params": params[:2]}, {"params": params[2:], "lr": 0.5 * kwargs.get("lr", 1e-3)}]


def build(lib, name, kwargs, arrays, groups=1):
    params = [lib.tensor(a.copy(), requires_grad=True) for a in arrays]
    opt = getattr(lib.optim, name)(make_groups(params, groups, kwargs), **kwargs)
    return params, opt


def run_steps(lib, params, opt, start, stop, targets):
    sign = -1.0 if opt.defaults.get("maximize") else 1.0
    for step in range(start, stop):
        def closure(step=step):
            opt.zero_grad()
            loss = loss_fn(lib, params, step, targets, sign)
            loss.backward()
            return loss
        opt.step(closure)


def trajectory(lib, name, kwargs, dtype, steps=50, groups=1):
    arrays, targets = inits(dtype), _targets(dtype)
    params, opt = build(lib, name, kwargs, arrays, groups)
    run_steps(lib, params, opt, 0, steps, targets)
    return params, opt


def resumed(lib, name, kwargs, dtype, steps=50, groups=1, cut=25):
    """Run ``cut`` steps, save, load into a fresh optimizer over copied params, continue."""
    targets = _targets(dtype)
    params, opt = build(lib, name, kwargs, inits(dtype), groups)
    run_steps(lib, params, opt, 0, cut, targets)
    saved = copy.deepcopy(opt.state_dict())
    params2, opt2 = build(lib, name, kwargs, [np.array(p._data) for p in params], groups)
    opt2.load_state_dict(saved)
    run_steps(lib, params2, opt2, cut, steps, targets)
    return params2, opt2


def structure(state_dict, lengths=True):
    """The layout of a state_dict: group keys and values, state keys, shapes and dtypes (and
    the lengths of lists, e.g. L-BFGS's history, unless ``lengths`` is False)."""
    groups = [{k: (v if k != "params" else list(v)) for k, v in g.items()}
              for g in state_dict["param_groups"]]
    state = {}
    for pid, entry in state_dict["state"].items():
        state[pid] = [(k, _describe(v, lengths)) for k, v in entry.items()]
    return groups, state


def _describe(v, lengths=True):
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return ("tensor", tuple(v.shape), str(v.dtype).split(".")[-1])
    if isinstance(v, list):
        return ("list", len(v) if lengths else None)
    return (type(v).__name__,)


def _ids(case):
    name, kwargs, groups = case
    opts = ",".join(f"{k}={v}" for k, v in kwargs.items())
    return f"{name}({opts})x{groups}"


def _assert_params(e_params, t_params, dtype, t_exact=None):
    """float64: tight. float32: within 2e-5, or within twice torch's own float32 error (its
    distance from the float64 run) where the problem amplifies rounding (L-BFGS)."""
    if dtype == np.float64:
        tol = dict(rtol=1e-10, atol=1e-12)
    else:
        noise = max(np.abs(t.detach().numpy() - x.detach().numpy()).max()
                    for t, x in zip(t_params, t_exact))
        tol = dict(rtol=2e-5, atol=max(2e-6, 2 * float(noise)))
    for i, (e, t) in enumerate(zip(e_params, t_params)):
        np.testing.assert_allclose(e._data, t.detach().numpy(), err_msg=f"param {i}", **tol)


def check_trajectory_matches_torch(case, dtype):
    name, kwargs, groups = case
    e_params, e_opt = trajectory(ember, name, kwargs, dtype, groups=groups)
    t_params, t_opt = trajectory(torch, name, kwargs, dtype, groups=groups)
    t_exact = None
    if dtype == np.float32:
        t_exact, _ = trajectory(torch, name, kwargs, np.float64, groups=groups)
    _assert_params(e_params, t_params, dtype, t_exact)
    exact = dtype == np.float64  # float32 rounding may keep or drop an L-BFGS history pair
    e_groups, e_state = structure(e_opt.state_dict(), exact)
    t_groups, t_state = structure(t_opt.state_dict(), exact)
    assert e_groups == t_groups
    assert e_state == t_state


def check_fused_equals_per_tensor(case, sizes, monkeypatch):
    name, kwargs, groups = case
    # sliced: every parameter reads its gradient in place, cut in 5-element pieces;
    # packed: small parameters share runs of at most 7 elements with gathered gradients;
    # threaded: both kinds of segments, spread over three workers
    monkeypatch.setattr(_flat, "CHUNK", sizes[0])
    monkeypatch.setattr(_flat, "DIRECT", sizes[1])
    monkeypatch.setattr(_flat, "WORKERS", sizes[2])
    monkeypatch.setattr(_flat, "PARALLEL", 0 if sizes[2] > 1 else _flat.PARALLEL)
    runs = {}
    accepted = inspect.signature(getattr(ember.optim, name)).parameters
    for mode in (dict(foreach=False), dict(), dict(foreach=True), dict(fused=True)):
        if any(k not in accepted for k in mode):
            continue
        params, opt = trajectory(ember, name, {**kwargs, **mode}, np.float32, groups=groups)
        runs[str(mode)] = ([p._data.copy() for p in params], opt.state_dict())
    base_params, base_sd = runs.pop(str(dict(foreach=False)))
    for mode, (params, sd) in runs.items():
        for a, b in zip(base_params, params):
            np.testing.assert_array_equal(a, b, err_msg=mode)
        assert sd["state"].keys() == base_sd["state"].keys()
        for pid, entry in sd["state"].items():
            assert list(entry) == list(base_sd["state"][pid]), mode
            for k, v in entry.items():
                np.testing.assert_array_equal(np.asarray(v._data), base_sd["state"][pid][k]._data,
                                              err_msg=f"{mode} {pid} {k}")


def check_save_load_continue(case, foreach):
    name, kwargs, groups = case
    kwargs = {**kwargs, "foreach": foreach} if name != "LBFGS" else kwargs
    straight, _ = trajectory(ember, name, kwargs, np.float64, groups=groups)
    again, _ = resumed(ember, name, kwargs, np.float64, groups=groups)
    for a, b in zip(straight, again):
        if name in ("NAdam", "ASGD"):  # like torch, loading casts mu_product (NAdam), eta and
            # mu (ASGD: float32 values, then float64 ones) to the parameter's dtype
            np.testing.assert_allclose(a._data, b._data, rtol=1e-12 if name == "NAdam" else 1e-7)
        else:
            np.testing.assert_array_equal(a._data, b._data)


def table_tests(cases):
    """The table's three tests over ``cases`` (rows of (name, kwargs, groups)), for a test
    module to bind at module level: the trajectory against torch (values and state_dict
    layout), fused and foreach steps equal the per-tensor one, and save -> load -> continue
    equals the straight run."""
    @pytest.mark.parametrize("dtype", [np.float32, np.float64])
    @pytest.mark.parametrize("case", cases, ids=_ids)
    def test_trajectory_matches_torch(case, dtype):
        check_trajectory_matches_torch(case, dtype)

    @pytest.mark.parametrize("sizes", [(5, 4, 1), (7, 100, 1), (5, 8, 3)],
                             ids=["sliced", "packed", "threaded"])
    @pytest.mark.parametrize("case", cases, ids=_ids)
    def test_fused_equals_per_tensor(case, sizes, monkeypatch):
        check_fused_equals_per_tensor(case, sizes, monkeypatch)

    @pytest.mark.parametrize("foreach", [False, None])
    @pytest.mark.parametrize("case", cases, ids=_ids)
    def test_save_load_continue(case, foreach):
        check_save_load_continue(case, foreach)

    return test_trajectory_matches_torch, test_fused_equals_per_tensor, test_save_load_continue
