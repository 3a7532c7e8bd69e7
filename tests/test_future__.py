"""ember.__future__ (ember/__future__.py): torch's conversion switches, and how Module._apply
honours them."""
import pytest
import torch

import ember


@pytest.fixture
def switches():
    yield
    for lib in (ember, torch):
        lib.__future__.set_overwrite_module_params_on_conversion(False)
        lib.__future__.set_swap_module_params_on_conversion(False)


def test_switches_default_off_and_toggle(switches):
    for name in ("overwrite", "swap"):
        get = getattr(ember.__future__, f"get_{name}_module_params_on_conversion")
        assert get() is getattr(torch.__future__, f"get_{name}_module_params_on_conversion")()
        getattr(ember.__future__, f"set_{name}_module_params_on_conversion")(True)
        assert get() is True


@pytest.mark.parametrize("overwrite", [False, True])
@pytest.mark.parametrize("swap", [False, True])
def test_conversion_keeps_or_replaces_parameters_as_torch(switches, overwrite, swap):
    seen = []
    for lib in (ember, torch):
        lib.__future__.set_overwrite_module_params_on_conversion(overwrite)
        lib.__future__.set_swap_module_params_on_conversion(swap)
        lib.manual_seed(0)
        layer = lib.nn.Linear(3, 2)
        layer(lib.ones(1, 3)).sum().backward()
        weight = layer.weight
        layer.double()
        seen.append((weight is layer.weight, str(weight.dtype), str(layer.weight.dtype),
                     str(layer.weight.grad.dtype), type(layer.weight).__name__,
                     layer.weight.requires_grad, layer.weight.tolist()))
    assert seen[0][0] is (not overwrite or swap)
    assert (seen[0][0],) + tuple(s.replace("ember", "torch") for s in seen[0][1:4]) + seen[0][4:] \
        == seen[1]
