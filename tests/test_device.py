"""torch.device (ember/_device.py) and comparisons with non-tensors, against torch 2.13."""
import pickle

import pytest
import torch

import ember

SPECS = [("cpu",), ("cuda",), ("cuda:1",), ("mps",), ("cuda", 0), ("cpu", 0), ("meta",),
         ("cuda:12",)]


@pytest.mark.parametrize("spec", SPECS)
def test_device_builds_as_torch(spec):
    e, t = ember.device(*spec), torch.device(*spec)
    assert (e.type, e.index, str(e)) == (t.type, t.index, str(t))
    assert repr(e) == repr(t)
    assert e == ember.device(*spec) and hash(e) == hash(ember.device(*spec))
    assert pickle.loads(pickle.dumps(e)) == e


def test_device_equality_counts_the_index():
    for a, b in [("cuda", "cuda:0"), ("cpu", ("cpu", 0)), ("cuda:0", "cuda:1")]:
        b = b if isinstance(b, tuple) else (b,)
        assert (ember.device(a) == ember.device(*b)) == (torch.device(a) == torch.device(*b))
    assert ember.device("cuda", 1) == ember.device("cuda:1")


@pytest.mark.parametrize("spec", [("foo",), ("cuda:x",), ("cuda:-1",), ("cuda", -1), ("CUDA",),
                                  ("cuda:0 ",), ("cuda:1", 1), (0,)])
def test_bad_device_raises_as_torch(spec):
    with pytest.raises(RuntimeError) as t_err:
        torch.device(*spec)
    with pytest.raises(RuntimeError) as e_err:
        ember.device(*spec)
    assert str(e_err.value) == str(t_err.value)


def _uses(lib, where):
    x = lib.zeros(2)
    return [lambda: x.to(where), lambda: x.to(device=where), lambda: lib.zeros(2, device=where),
            lambda: lib.tensor([1.0], device=where), lambda: lib.randn(2, device=where),
            lambda: lib.zeros_like(x, device=where), lambda: lib.nn.Linear(2, 2).to(where),
            lambda: lib.arange(3, device=where)]


@pytest.mark.parametrize("where", ["cuda", "cuda:1", "mps"])
def test_using_a_gpu_device_fails_as_on_a_cpu_build(where):
    # torch's factories on 'mps' fail with a long dispatcher NotImplementedError; only moves
    # to 'mps' are compared
    count = 2 if where == "mps" else None
    for use_e, use_t in list(zip(_uses(ember, where), _uses(torch, where)))[:count]:
        with pytest.raises(Exception) as t_err:
            use_t()
        with pytest.raises(t_err.type, match=str(t_err.value)):
            use_e()
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        ember.zeros(2).cuda()


def test_cpu_device_is_accepted_everywhere():
    assert ember.zeros(2, device="cpu").device == ember.device("cpu")
    assert ember.zeros(2).to("cpu:0").tolist() == [0.0, 0.0]
    assert ember.ones(2, device=ember.device("cpu")).sum().item() == 2


@pytest.mark.parametrize("other", [None, "a", [1, 2], (1,), object()])
def test_comparison_with_non_numbers_as_torch(other):
    e, t = ember.tensor([1, 2]), torch.tensor([1, 2])
    assert (e == other) == (t == other) and (e != other) == (t != other)
    for op in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        assert getattr(e, op)(other) is NotImplemented
    with pytest.raises(TypeError):
        e < other  # noqa: B015


def test_slice_with_zero_dim_tensor_bounds():
    i_e, i_t = ember.tensor(2), torch.tensor(2)
    e, t = ember.arange(20.0), torch.arange(20.0)
    assert e[i_e:i_e + 8].tolist() == t[i_t:i_t + 8].tolist()
    assert (ember.tensor(2) == None) is False  # noqa: E711


def test_set_default_device():
    ember.set_default_device("cpu")
    assert repr(ember.get_default_device()) == repr(torch.get_default_device())
    assert ember.zeros(2).device == ember.device("cpu")
    ember.set_default_device("cuda")
    torch.set_default_device("cuda")
    try:
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            torch.zeros(1)
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            ember.zeros(1)
    finally:
        ember.set_default_device(None)
        torch.set_default_device(None)
    assert ember.zeros(1).tolist() == [0.0]
