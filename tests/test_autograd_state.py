"""The autograd state below Tensor (ember/_autograd_state.py): grad mode is per thread and the
count of threads with it off follows every switch; version counters made in inference mode mark
inference tensors, which refuse in-place updates outside inference mode with torch's message."""
import threading

import pytest
import torch

import ember
from ember import _autograd_state as state


def test_grad_mode_is_per_thread_and_counted():
    before = state.n_disabled
    seen = {}

    def other():
        seen["enabled"] = ember.is_grad_enabled()

    with ember.no_grad():
        assert state.n_disabled == before + 1
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        with ember.no_grad():  # nested: still one thread with grad mode off
            assert state.n_disabled == before + 1
    assert seen["enabled"] is True and state.n_disabled == before
    assert ember.is_grad_enabled() and torch.is_grad_enabled()


def test_new_versions_mark_inference_tensors():
    assert type(state.new_version()) is list
    with ember.inference_mode():
        version = state.new_version()
        assert isinstance(version, state.InferenceVersion)
        version[0] += 1  # allowed inside inference mode
    assert version[0] == 1


def test_inplace_update_of_an_inference_tensor_outside_the_mode_is_refused_as_torch():
    messages = []
    for lib in (torch, ember):
        with lib.inference_mode():
            t = lib.ones(3)
        with pytest.raises(RuntimeError) as info:
            t.add_(1)
        messages.append(str(info.value))
        assert lib.equal(t, lib.ones(3)) or lib is torch  # ember refuses before writing
    assert messages[0] == messages[1]
