"""ember.utils.hooks: torch.utils.hooks's public names."""
import torch.utils.hooks as thooks

import ember
import ember.utils.hooks as ehooks


def test_names_as_torch():
    assert ehooks.RemovableHandle is type(ember.ones(1, requires_grad=True).register_hook(
        lambda g: g))
    for mod in (thooks, ehooks):
        f = mod.unserializable_hook(lambda g: g)
        assert f.__torch_unserializable__ is True
