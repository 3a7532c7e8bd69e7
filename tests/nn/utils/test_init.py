"""nn.utils.skip_init against torch: the module's shapes, no random numbers drawn, the errors."""
import numpy as np
import pytest
import torch

import ember
from ember.nn import utils


@pytest.mark.parametrize("cls, args, kwargs", [
    ("Linear", (5, 3), {}),
    ("Conv2d", (2, 4, 3), {"bias": False}),
    ("BatchNorm1d", (), {"num_features": 6}),
])
def test_module_built_without_drawing_random_numbers(cls, args, kwargs):
    ember.manual_seed(3)
    torch.manual_seed(3)
    e_mod = utils.skip_init(getattr(ember.nn, cls), *args, **kwargs)
    t_mod = torch.nn.utils.skip_init(getattr(torch.nn, cls), *args, **kwargs)
    assert type(e_mod) is getattr(ember.nn, cls)
    e_state, t_state = e_mod.state_dict(), t_mod.state_dict()
    assert list(e_state) == list(t_state)
    for key in e_state:
        assert tuple(e_state[key].shape) == tuple(t_state[key].shape)
        assert str(e_state[key].dtype).split(".")[-1] == str(t_state[key].dtype).split(".")[-1]
    assert all(isinstance(p, ember.nn.Parameter) and p.requires_grad
               for p in e_mod.parameters())
    # torch builds on the meta device and draws nothing: the next draw is the same
    np.testing.assert_array_equal(ember.rand(4).numpy(), torch.rand(4).numpy())


def test_dtype_and_device_arguments():
    m = utils.skip_init(ember.nn.Linear, 2, 2, dtype=ember.float64, device="cpu")
    assert m.weight.dtype == ember.float64 and m.weight.device.type == "cpu"


def test_errors_as_torch():
    class NoDevice(ember.nn.Module):
        def __init__(self, n):
            super().__init__()

    with pytest.raises(RuntimeError, match="Expected a Module; got <class 'int'>"):
        utils.skip_init(int)
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip "
                                           "initialization"):
        utils.skip_init(NoDevice, 1)
