"""torch.backends.cudnn (ember/backends/cudnn.py): flags with torch's defaults, settable, and the
queries of a build without cuDNN."""
import pytest
import torch

import ember


def test_flags_have_torch_defaults():
    for name in ["allow_tf32", "benchmark", "deterministic", "enabled"]:
        assert getattr(ember.backends.cudnn, name) == getattr(torch.backends.cudnn, name), name


def test_flags_are_settable():
    ember.backends.cudnn.benchmark = True
    try:
        assert ember.backends.cudnn.benchmark
    finally:
        ember.backends.cudnn.benchmark = False


def test_queries_answer_as_a_cpu_build():
    assert ember.backends.cudnn.is_available() == torch.backends.cudnn.is_available()
    assert ember.backends.cudnn.version() == torch.backends.cudnn.version()
    import ember.backends.cudnn as cudnn  # the import form scripts use
    assert cudnn.is_available() is False


def test_flags_sets_every_flag_for_the_block_then_restores_as_torch():
    names = ("enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32")
    seen = []
    for lib in (ember, torch):
        cudnn = lib.backends.cudnn
        before = [getattr(cudnn, n) for n in names]
        with cudnn.flags(deterministic=True, allow_tf32=False) as value:
            seen.append((value, [getattr(cudnn, n) for n in names]))
        assert [getattr(cudnn, n) for n in names] == before
    assert seen[0] == seen[1]
    with pytest.raises(ValueError), ember.backends.cudnn.flags(benchmark=True):
        raise ValueError  # restored on the way out of an error too
    assert ember.backends.cudnn.benchmark is False
