"""Optimizer state_dict packing and loading (ember/optim/_state_io.py): torch's layout, pickling,
load errors as torch's, a failed load changes nothing, hyper-parameters restored and state cast,
name matching (reordering, strict and non-strict), no aliasing of the source."""
import copy
import pickle

import numpy as np
import pytest
import torch
from _sgd import error, trained

import ember


@pytest.mark.parametrize("named", [False, True])
def test_state_dict_layout_matches_torch(named):
    _, e = trained(ember, named)
    _, t = trained(torch, named)
    es, ts = e.state_dict(), t.state_dict()
    assert es["param_groups"] == ts["param_groups"]
    assert list(es["param_groups"][0]) == list(ts["param_groups"][0])
    assert list(es["state"]) == list(ts["state"])
    for pid in ts["state"]:
        for key, value in ts["state"][pid].items():
            np.testing.assert_allclose(es["state"][pid][key]._data, value.numpy(), rtol=1e-5)


def test_pickle_and_deepcopy_round_trip():
    (w, b), opt = trained(ember)
    for clone in (copy.deepcopy(opt), pickle.loads(pickle.dumps(opt))):
        assert repr(clone) == repr(opt)
        assert clone.state_dict()["param_groups"] == opt.state_dict()["param_groups"]
        (w2, b2) = clone.param_groups[0]["params"]
        np.testing.assert_array_equal(clone.state[w2]["momentum_buffer"]._data,
                                      opt.state[w]["momentum_buffer"]._data)


def test_load_state_dict_errors_match_torch():
    for bad in ({"state": {}, "param_groups": []},
                {"state": {}, "param_groups": [{"params": [0, 1, 2]}]}):
        got = [error(lambda lib=lib: trained(lib)[1].load_state_dict(bad))
               for lib in (torch, ember)]
        assert got[0] is not None and got[0] == got[1]


def _snapshot(opt):
    sd = opt.state_dict()
    return (repr(opt), {k: {n: v._data.copy() for n, v in e.items()}
                        for k, e in sd["state"].items()})


def test_failed_load_leaves_optimizer_unchanged():
    _, opt = trained(ember)
    good = copy.deepcopy(opt.state_dict())
    before = _snapshot(opt)
    bad = copy.deepcopy(good)
    bad["param_groups"][0]["lr"] = 123.0
    bad["param_groups"][0]["params"].append(7)
    with pytest.raises(ValueError):
        opt.load_state_dict(bad)
    after = _snapshot(opt)
    assert before[0] == after[0]
    for k in before[1]:
        for n in before[1][k]:
            np.testing.assert_array_equal(before[1][k][n], after[1][k][n])


def test_load_restores_hyperparameters_and_casts_state():
    _, src = trained(ember)
    sd = src.state_dict()
    sd["param_groups"][0]["lr"] = 0.25
    w = ember.zeros(3, 2, dtype=ember.float64, requires_grad=True)
    b = ember.zeros(2, dtype=ember.float64, requires_grad=True)
    opt = ember.optim.SGD([w, b], lr=1.0)
    opt.load_state_dict(sd)
    assert opt.param_groups[0]["lr"] == 0.25
    assert opt.param_groups[0]["params"][0] is w
    assert opt.state[w]["momentum_buffer"].dtype == ember.float64


def test_name_matching_survives_reordering():
    (w, b), src = trained(ember, named=True)
    sd = src.state_dict()
    w2, b2 = (ember.tensor(w._data.copy(), requires_grad=True),
              ember.tensor(b._data.copy(), requires_grad=True))
    opt = ember.optim.SGD([("b", b2), ("w", w2)], lr=0.1, momentum=0.9)
    result = opt.load_state_dict(sd)
    assert result == ([], [], [])
    np.testing.assert_array_equal(opt.state[w2]["momentum_buffer"]._data,
                                  src.state[w]["momentum_buffer"]._data)
    assert opt.param_groups[0]["param_names"] == ["b", "w"]


def test_strict_name_load_reports_and_changes_nothing():
    (w, b), src = trained(ember, named=True)
    sd = src.state_dict()
    w2 = ember.zeros(2, 3, requires_grad=True)   # same name, other shape
    c = ember.zeros(4, requires_grad=True)        # a name the file lacks
    opt = ember.optim.SGD([("w", w2), ("c", c)], lr=0.5, momentum=0.9)
    with pytest.raises(ValueError) as info:
        opt.load_state_dict(sd)
    text = str(info.value)
    assert "Missing parameter names: ['c']" in text
    assert "Unexpected parameter names: ['b']" in text
    assert "size mismatch for 'w'" in text and "[3, 2]" in text
    assert opt.param_groups[0]["lr"] == 0.5 and not opt.state
    result = opt.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["c"] and result.unexpected_keys == ["b"]
    assert result.mismatched_keys == ["w"]
    assert opt.param_groups[0]["lr"] == 0.1 and w2 not in opt.state


def test_non_strict_load_keeps_state_of_unmatched_parameters():
    (w, b), src = trained(ember, named=True)
    sd = src.state_dict()
    (w2, b2), opt = trained(ember, named=True, steps=1)
    c = ember.ones(2, requires_grad=True)
    opt.add_param_group({"params": [("c", c)]})
    c.grad = ember.ones(2)
    opt.param_groups[1]["momentum"] = 0.5
    opt.step()
    kept = opt.state[c]["momentum_buffer"]
    sd["param_groups"].append({**sd["param_groups"][0], "params": [], "param_names": []})
    result = opt.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["c"] and opt.state[c]["momentum_buffer"] is kept
    np.testing.assert_array_equal(opt.state[w2]["momentum_buffer"]._data,
                                  src.state[w]["momentum_buffer"]._data)


def test_load_does_not_alias_the_source():
    (w, b), src = trained(ember)
    (w2, b2), opt = trained(ember, steps=0)
    opt.load_state_dict(src.state_dict())
    assert opt.state[w2]["momentum_buffer"] is not src.state[w]["momentum_buffer"]
