"""The optimizer table: each (optimizer, options) row against torch 2.13, fused vs per tensor,
state_dict layout, and save -> load -> continue."""
import numpy as np
import pytest
import torch
from _table import resumed, structure, trajectory

import ember

CASES = [
    ("SGD", dict(lr=0.05), 1),
    ("SGD", dict(lr=0.05, momentum=0.9), 2),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.3, weight_decay=0.01), 1),
    ("SGD", dict(lr=0.02, momentum=0.9, nesterov=True, weight_decay=0.05), 2),
    ("SGD", dict(lr=0.01, momentum=0.5, maximize=True, weight_decay=0.1), 1),
    ("SGD", dict(lr=0.05, weight_decay=0.1, maximize=True), 1),
]


def _ids(case):
    name, kwargs, groups = case
    opts = ",".join(f"{k}={v}" for k, v in kwargs.items())
    return f"{name}({opts})x{groups}"


def _assert_params(e_params, t_params, dtype):
    tol = dict(rtol=1e-10, atol=1e-12) if dtype == np.float64 else dict(rtol=2e-5, atol=2e-6)
    for i, (e, t) in enumerate(zip(e_params, t_params)):
        np.testing.assert_allclose(e._data, t.detach().numpy(), err_msg=f"param {i}", **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_trajectory_matches_torch(case, dtype):
    name, kwargs, groups = case
    e_params, e_opt = trajectory(ember, name, kwargs, dtype, groups=groups)
    t_params, t_opt = trajectory(torch, name, kwargs, dtype, groups=groups)
    _assert_params(e_params, t_params, dtype)
    e_groups, e_state = structure(e_opt.state_dict())
    t_groups, t_state = structure(t_opt.state_dict())
    assert e_groups == t_groups
    assert e_state == t_state


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_fused_equals_per_tensor(case):
    name, kwargs, groups = case
    runs = {}
    for mode in (dict(foreach=False), dict(), dict(foreach=True), dict(fused=True)):
        if "LBFGS" == name and mode:
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


@pytest.mark.parametrize("foreach", [False, None])
@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_save_load_continue(case, foreach):
    name, kwargs, groups = case
    kwargs = {**kwargs, "foreach": foreach} if name != "LBFGS" else kwargs
    straight, _ = trajectory(ember, name, kwargs, np.float64, groups=groups)
    again, _ = resumed(ember, name, kwargs, np.float64, groups=groups)
    for a, b in zip(straight, again):
        np.testing.assert_array_equal(a._data, b._data)
