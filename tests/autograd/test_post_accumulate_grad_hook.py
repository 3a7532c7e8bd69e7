"""Tensor.register_post_accumulate_grad_hook: runs after .grad is accumulated, as torch's."""
import pytest
import torch

import ember


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_hook_sees_accumulated_grad_and_can_be_removed(lib):
    w = lib.ones(3, requires_grad=True)
    seen = []
    handle = w.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
    (w * 2).sum().backward()
    (w * w).sum().backward()
    handle.remove()
    (w * 3).sum().backward()
    assert seen == [[2.0] * 3, [4.0] * 3]
    assert w.grad.tolist() == [7.0] * 3


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_hook_errors(lib):
    w = lib.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="cannot be registered on non-leaf tensors"):
        (w * 2).register_post_accumulate_grad_hook(print)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        lib.ones(2).register_post_accumulate_grad_hook(print)
