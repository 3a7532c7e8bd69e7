"""torch.cuda (ember/cuda/__init__.py): queries answer as torch on a CPU-only build; seeding,
synchronising and cache freeing are accepted; current_device fails as torch's does;
Event and Stream exist but cannot be made."""
import pytest
import torch

import ember


def test_queries_answer_as_torch():
    assert ember.cuda.is_available() == torch.cuda.is_available() is False
    assert ember.cuda.device_count() == torch.cuda.device_count() == 0
    assert ember.cuda.is_bf16_supported() == torch.cuda.is_bf16_supported()
    assert ember.cuda.is_initialized() == torch.cuda.is_initialized() is False
    assert ember.cuda._initialized == torch.cuda._initialized is False


def test_seed_sync_and_cache_calls_are_accepted():
    state = ember.random.get_rng_state()
    ember.cuda.manual_seed(0)
    ember.cuda.manual_seed_all(0)
    ember.cuda.synchronize()
    ember.cuda.empty_cache()
    assert ember.random.get_rng_state().equal(state)  # the CPU generator is untouched


def test_current_device_fails_as_torch():
    for lib in (torch, ember):
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            lib.cuda.current_device()


def test_set_device_fails_as_on_a_cpu_only_torch():
    # torch's CPU build fails on its missing CUDA binding; ember says why
    with pytest.raises(AttributeError):
        torch.cuda.set_device(0)
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        ember.cuda.set_device(0)


@pytest.mark.parametrize("make", [lambda lib: lib.cuda.Event(enable_timing=True),
                                  lambda lib: lib.cuda.Event(), lambda lib: lib.cuda.Stream()])
def test_events_and_streams_exist_but_cannot_be_made_as_on_a_cpu_only_torch(make):
    # timing helpers name torch.cuda.Event (LLMs-from-scratch's attention benchmarks): the
    # CPU build raises RuntimeError there, not AttributeError
    caught = []
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as info:
            make(lib)
        caught.append(str(info.value))
    assert caught[0] == caught[1]


def test_error_classes_scaler_and_device_predicates_as_torch():
    """Names scripts reach for on a CPU-only machine: the out-of-memory error they catch, the
    top-level GradScaler, and the device/layout predicates libraries test (all False here)."""
    for lib in (torch, ember):
        assert lib.cuda.OutOfMemoryError is lib.OutOfMemoryError
        assert issubclass(lib.OutOfMemoryError, RuntimeError)
        assert issubclass(lib.AcceleratorError, RuntimeError)
        assert lib.GradScaler is lib.amp.GradScaler
        x = lib.ones(2)
        for name in ("is_mps", "is_xpu", "is_ipu", "is_xla", "is_maia", "is_mtia", "is_vulkan",
                     "is_mkldnn", "is_quantized", "is_nested", "is_sparse_csr", "is_cuda"):
            assert getattr(x, name) is False, name
