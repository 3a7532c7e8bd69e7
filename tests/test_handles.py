"""One RemovableHandle for every register_*_hook, as torch.utils.hooks.RemovableHandle."""
import torch

import ember
from ember.utils.hooks import RemovableHandle


def _handles(lib):
    x = lib.ones(2, requires_grad=True)
    y = x * 2
    m = lib.nn.Linear(2, 2)
    opt = lib.optim.SGD(m.parameters(), lr=0.1)
    return [x.register_hook(lambda g: g), y.grad_fn.register_hook(lambda *a: None),
            y.grad_fn.register_prehook(lambda *a: None), x.register_post_accumulate_grad_hook(
                lambda t: None), m.register_forward_hook(lambda *a: None),
            m.register_forward_pre_hook(lambda *a: None), m.register_full_backward_hook(
                lambda *a: None), opt.register_step_pre_hook(lambda *a: None),
            opt.register_step_post_hook(lambda *a: None)]


def test_every_hook_returns_the_public_handle_as_torch():
    assert all(isinstance(h, torch.utils.hooks.RemovableHandle) for h in _handles(torch))
    handles = _handles(ember)
    assert all(isinstance(h, RemovableHandle) for h in handles)
    assert len({h.id for h in handles}) == len(handles)


def test_remove_unregisters_dict_and_list_hooks():
    calls = []
    x = ember.ones(2, requires_grad=True)
    with x.register_hook(lambda g: calls.append("tensor")):
        m = ember.nn.Linear(2, 2)
        handle = m.register_forward_hook(lambda *a: calls.append("module"))
        (m(x).sum()).backward()
        handle.remove()
        handle.remove()  # twice: nothing left to remove
        m(x)
    (x * 1).sum().backward()
    assert calls == ["module", "tensor"]
