"""Large element-wise passes split over threads (ember/ops/_parallel.py): the split path is
taken, gives bit-identical results to one thread (values and gradients, large, odd-sized and
non-contiguous inputs), agrees with torch, and the one knob (set_num_threads /
EMBER_NUM_THREADS) turns it off."""
import os
import subprocess
import sys
import threading
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional as F
from ember.ops import _parallel
from tests.oracle import close


@pytest.fixture(autouse=True)
def _restore_threads():
    before = ember.get_num_threads()
    yield
    ember.set_num_threads(before)


@pytest.fixture
def splits(monkeypatch):
    """Count the splits handed to the pool (each a list of parts)."""
    count = []
    run = _parallel._Pool.run

    def counting(self, task, bounds):
        count.append(len(bounds))
        return run(self, task, bounds)
    monkeypatch.setattr(_parallel._Pool, "run", counting)
    return count


def _array(shape, dtype, layout, seed=0):
    rng = np.random.default_rng(seed)
    data = (rng.standard_normal(shape) * 3).astype(dtype)
    if layout == "transposed":  # same shape, non-contiguous
        data = np.ascontiguousarray(np.swapaxes(data, 0, -1)).swapaxes(0, -1)
    elif layout == "strided":
        data = np.repeat(data, 2, axis=-1)[..., ::2]
    return data


def _run(op, data, threads):
    """op's value and input gradient (for a fixed, non-uniform upstream gradient)."""
    ember.set_num_threads(threads)
    x = ember.tensor(data, requires_grad=True)
    y = op(x)
    g = np.random.default_rng(1).standard_normal(y.shape).astype(y._data.dtype)
    y.backward(ember.tensor(g))
    return y._data.copy(), x.grad._data.copy()


def _layer_norm(x):
    c = x.shape[-1]
    w = ember.linspace(0.5, 1.5, c, dtype=x.dtype)
    return F.layer_norm(x, (c,), w, ember.linspace(-1, 1, c, dtype=x.dtype))


def _batch_norm(x):
    c = x.shape[1]
    w = ember.linspace(0.5, 1.5, c, dtype=x.dtype)
    return F.batch_norm(x, ember.zeros(c, dtype=x.dtype), ember.ones(c, dtype=x.dtype), w,
                        ember.linspace(-1, 1, c, dtype=x.dtype), training=True)


OPS = {
    "gelu": F.gelu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "softmax_last": lambda x: F.softmax(x, -1),
    "softmax_middle": lambda x: F.softmax(x, 1),
    "softmax_first": lambda x: F.softmax(x, 0),
    "log_softmax": lambda x: F.log_softmax(x, -1),
    "log_softmax_middle": lambda x: F.log_softmax(x, 2),
    "layer_norm": _layer_norm,
    "layer_norm_2d": lambda x: F.layer_norm(x, x.shape[-2:]),
    "group_norm": lambda x: F.group_norm(x, 3, ember.linspace(0.5, 1.5, x.shape[1],
                                                              dtype=x.dtype)),
    "batch_norm": _batch_norm,
    "relu": F.relu,
    "max_pool_2x2": lambda x: F.max_pool2d(x, 2),
    "max_pool_3x3_overlapping": lambda x: F.max_pool2d(x, 3, stride=2, padding=1),
}
SHAPES = [(17, 33, 257), (5, 9, 41, 67), (3, 12, 97, 71)]


@pytest.mark.parametrize("name", sorted(OPS))
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_split_is_bit_identical_to_one_thread(splits, name, layout, dtype):
    shape = SHAPES[2] if name in ("group_norm", "batch_norm") else SHAPES[len(name) % 2]
    data = _array(shape, dtype, layout)
    one = _run(OPS[name], data, 1)
    assert not splits
    for threads in (2, 3):
        many = _run(OPS[name], data, threads)
        for a, b in zip(one, many):
            assert a.dtype == b.dtype and a.shape == b.shape
            assert a.tobytes() == b.tobytes(), f"{name} on {threads} threads differs"
    if name != "softmax_first":  # reductions over the first axis never split
        assert splits, "the split path was not taken"


def test_non_finite_values_split_as_on_one_thread(splits):
    data = _array((9, 128, 129), np.float32, "contiguous")
    data[0, 0, :3] = [np.nan, np.inf, -np.inf]
    data[8, 5, 7] = np.nan
    for name in ("gelu", "softmax_last", "layer_norm"):
        one, two = _run(OPS[name], data, 1), _run(OPS[name], data, 2)
        assert all(a.tobytes() == b.tobytes() for a, b in zip(one, two)), name
    assert splits


@pytest.mark.parametrize("name", ["softmax_last", "gelu", "layer_norm", "log_softmax"])
def test_parts_run_in_the_callers_numpy_error_state(splits, name):
    """ember computes NaN and inf silently, as torch: on every thread, not just the caller's."""
    data = _array((300, 1000), np.float32, "contiguous")
    data[290:] = -np.inf  # rows of the last part only: a worker's, or the caller's
    data[295, 7] = np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        one, two = _run(OPS[name], data, 1), _run(OPS[name], data, 2)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(one, two))
    assert splits


@pytest.mark.parametrize("name,torch_op", [
    ("gelu", torch.nn.functional.gelu),
    ("softmax_last", lambda x: torch.softmax(x, -1)),
    ("layer_norm", lambda x: torch.nn.functional.layer_norm(
        x, (x.shape[-1],), torch.linspace(0.5, 1.5, x.shape[-1]),
        torch.linspace(-1, 1, x.shape[-1]))),
])
def test_split_agrees_with_torch(splits, name, torch_op):
    data = _array(SHAPES[0], np.float32, "contiguous")
    value, grad = _run(OPS[name], data, 2)
    assert splits
    t = torch.tensor(data, requires_grad=True)
    out = torch_op(t)
    out.backward(torch.tensor(np.random.default_rng(1).standard_normal(out.shape)
                              .astype(np.float32)))
    close(value, out, rtol=1e-5, atol=1e-5)
    close(grad, t.grad, rtol=1e-4, atol=1e-4, what="grad")


def test_small_arrays_stay_on_the_callers_thread(splits):
    ember.set_num_threads(2)
    F.gelu(ember.randn(64, 1000))  # 64k elements: below the threshold
    assert not splits
    F.gelu(ember.randn(64, 1025))
    assert splits == [2]


def test_a_failing_part_raises_in_the_caller():
    ember.set_num_threads(2)

    def task(lo, hi):
        if lo:
            raise ValueError(f"part {lo}:{hi} failed")
    with pytest.raises(ValueError, match="part 50:100 failed"):
        _parallel.split(100, task, 1 << 20)
    done = []  # the pool still works afterwards
    _parallel.split(100, lambda lo, hi: done.append((lo, hi)), 1 << 20)
    assert sorted(done) == [(0, 50), (50, 100)]


def test_parts_no_worker_has_started_run_on_the_caller(monkeypatch):
    """A worker the OS has not scheduled yet delays nothing: the caller runs its part too."""
    class Stalled:
        jobs = _parallel.SimpleQueue()  # never read
    monkeypatch.setattr(_parallel._POOL, "workers", [Stalled()])
    ember.set_num_threads(2)
    ran = []
    _parallel.split(10, lambda lo, hi: ran.append((lo, hi, threading.get_ident())), 1 << 20)
    assert sorted(ran) == [(0, 5, threading.get_ident()), (5, 10, threading.get_ident())]
    data = _array((300, 1000), np.float32, "contiguous")
    stalled = _run(F.gelu, data, 2)
    monkeypatch.undo()
    one = _run(F.gelu, data, 1)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(one, stalled))


@pytest.mark.parametrize("bad,message", [(0, "expects a positive integer"),
                                         (-1, "expects a positive integer"),
                                         (2.5, "expects an int, but got float"),
                                         (True, "expects an int, but got bool")])
def test_set_num_threads_refuses_what_torch_refuses(bad, message):
    before = ember.get_num_threads()
    for module in (ember, torch):
        with pytest.raises(RuntimeError, match=message):
            module.set_num_threads(bad)
    assert ember.get_num_threads() == before


def test_set_num_threads_one_turns_the_split_off(splits):
    ember.set_num_threads(1)
    assert ember.get_num_threads() == 1
    F.gelu(ember.randn(300, 1000))
    assert not splits
    ember.set_num_threads(2)
    F.gelu(ember.randn(300, 1000))
    assert splits == [2]


@pytest.mark.parametrize("value,expected", [("1", "1"), ("3", "3"),
                                            ("", "1")])
def test_environment_variable_sets_the_default(value, expected):
    env = dict(os.environ, EMBER_NUM_THREADS=value)
    out = subprocess.run([sys.executable, "-c", "import ember; print(ember.get_num_threads())"],
                         env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == expected


def test_a_bad_environment_variable_is_named():
    env = dict(os.environ, EMBER_NUM_THREADS="two")
    out = subprocess.run([sys.executable, "-c", "import ember"], env=env, capture_output=True,
                         text=True)
    assert out.returncode != 0
    assert "EMBER_NUM_THREADS must be a positive integer, got 'two'" in out.stderr


def test_a_forked_child_splits_with_its_own_threads():
    code = ("import os, ember, ember.nn.functional as F; ember.set_num_threads(2); "
            "x = ember.randn(300, 1000); a = F.gelu(x); pid = os.fork()\n"
            "if pid == 0:\n"
            "    os._exit(0 if ember.equal(F.gelu(x), a) else 1)\n"
            "_, status = os.waitpid(pid, 0); assert os.waitstatus_to_exitcode(status) == 0")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
