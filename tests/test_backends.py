"""torch.backends, torch.accelerator, torch.cuda and the default device, against torch 2.13."""
import pytest
import torch

import ember


def test_backend_flags_have_torch_defaults_and_are_settable():
    for path in ["cuda.matmul.allow_tf32", "cudnn.allow_tf32", "cudnn.benchmark",
                 "cudnn.deterministic", "cudnn.enabled",
                 "cuda.matmul.allow_fp16_reduced_precision_reduction"]:
        e, t = ember.backends, torch.backends
        for part in path.split("."):
            e, t = getattr(e, part), getattr(t, part)
        assert e == t, path
    ember.backends.cudnn.benchmark = True
    ember.backends.cuda.matmul.allow_tf32 = True
    try:
        assert ember.backends.cudnn.benchmark and ember.backends.cuda.matmul.allow_tf32
    finally:
        ember.backends.cudnn.benchmark = False
        ember.backends.cuda.matmul.allow_tf32 = False


def test_backend_queries_answer_as_a_cpu_build():
    for name in ["mps.is_available", "mps.is_built", "cuda.is_built", "cudnn.is_available",
                 "cudnn.version"]:
        module, fn = name.split(".")
        e = getattr(getattr(ember.backends, module), fn)()
        assert e == getattr(getattr(torch.backends, module), fn)(), name
    import ember.backends.cudnn as cudnn  # the import form scripts use
    assert cudnn.is_available() is False


def test_accelerator_and_cuda_queries():
    assert ember.accelerator.is_available() == torch.accelerator.is_available()
    assert ember.accelerator.current_accelerator() == torch.accelerator.current_accelerator()
    assert ember.accelerator.device_count() == torch.accelerator.device_count()
    assert ember.cuda.is_available() is False and ember.cuda.device_count() == 0
    ember.cuda.manual_seed_all(0)


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
