"""The fused optimizer path (ember/optim/_flat.py): one shared buffer per block, a layout built
once and rebuilt after load or a data swap, balanced segments, threaded steps after fork. (Fused
equals per-tensor for every optimizer row: the per-optimizer files, through _table.table_tests.)"""
import numpy as np
import pytest
from _table import trajectory

import ember
from ember.optim import _flat


def test_fused_path_shares_one_buffer():
    params, opt = trajectory(ember, "Adam", dict(lr=0.01), np.float32, steps=3)
    layout = opt._flat_cache[id(opt.param_groups[0])]
    assert len(layout.blocks) == 1 and len(layout.blocks[0].params) == 4
    block = layout.blocks[0]
    for p in block.params:
        assert p._data.base is block.flat
        assert opt.state[p]["exp_avg"]._data.base is block.arrays["exp_avg"]


@pytest.mark.parametrize("name,kwargs", [("SGD", {}), ("SGD", dict(momentum=0.9)),
                                         ("Adam", {}), ("NAdam", {})])
def test_fused_layout_is_built_once(name, kwargs):
    params = [ember.tensor(np.ones(s, np.float32), requires_grad=True) for s in [(3, 2), (4,)]]
    opt = getattr(ember.optim, name)(params, lr=0.1, **kwargs)
    layouts = []
    for _ in range(3):
        for p in params:
            p.grad = ember.ones(p.shape)
        opt.step()
        layouts.append(opt._flat_cache[id(opt.param_groups[0])])
    assert layouts[0] is layouts[1] is layouts[2] and len(layouts[0].blocks) == 1


def test_fused_layout_is_rebuilt_after_load_and_data_swap():
    params, opt = trajectory(ember, "Adam", dict(lr=0.01), np.float32, steps=2)
    group = opt.param_groups[0]
    old = opt._flat_cache[id(group)]
    opt.load_state_dict(opt.state_dict())
    assert "_flat_cache" not in opt.__dict__
    params[0].data = ember.zeros(params[0].shape)
    for p in params:
        p.grad = ember.ones(p.shape)
    opt.step()
    new = opt._flat_cache[id(opt.param_groups[0])]
    assert new is not old and new.blocks[0].valid(opt)


def test_balance_splits_segments_evenly():
    segments = [(0, 10), (10, 20), (20, 25), (25, 30), (30, 40)]
    parts = _flat._balance([(a, b, None, 0, None) for a, b in segments], 2)
    assert [[seg[:2] for seg in part] for part in parts] == [[(0, 10), (10, 20)],
                                                             [(20, 25), (25, 30), (30, 40)]]
    assert _flat._balance([(0, 5, None, 0, None)], 4) == [[(0, 5, None, 0, None)]]


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_threaded_step_works_in_a_forked_child(monkeypatch):
    import os
    monkeypatch.setattr(_flat, "PARALLEL", 0)
    monkeypatch.setattr(_flat, "WORKERS", 2)
    params, opt = trajectory(ember, "Adam", dict(lr=0.01), np.float32, steps=2)  # pool made
    pid = os.fork()
    if pid == 0:  # child: the parent's worker thread does not exist here
        code = 1
        try:
            for p in params:
                p.grad = ember.ones(p.shape)
            opt.step()
            code = 0
        finally:
            os._exit(code)
    import time
    deadline = time.monotonic() + 60
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    if not done:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    assert done and status == 0, "the step hung or failed in the forked child"
