"""In-place writes to an inference tensor outside inference mode: torch's error, raised before the
data changes (torch itself writes first on some paths), for every in-place path."""
import numpy as np
import pytest
import torch

import ember

WRITES = {
    "fill_": lambda t, lib: t.fill_(3.0),
    "zero_": lambda t, lib: t.zero_(),
    "copy_": lambda t, lib: t.copy_(lib.ones(3)),
    "setitem": lambda t, lib: t.__setitem__(0, 5.0),
    "add_": lambda t, lib: t.add_(1.0),
    "mul_": lambda t, lib: t.mul_(2.0),
    "uniform_": lambda t, lib: t.uniform_(),
    "normal_": lambda t, lib: t.normal_(),
    "init.uniform_": lambda t, lib: lib.nn.init.uniform_(t),
    "init.zeros_": lambda t, lib: lib.nn.init.zeros_(t),
}


def _outcome(lib, name):
    with lib.inference_mode():
        t = lib.arange(3.0)
    try:
        WRITES[name](t, lib)
    except RuntimeError as error:
        return str(error).split(".")[0], t.tolist()
    return "ok", t.tolist()


@pytest.mark.parametrize("name", sorted(WRITES))
def test_refused_before_the_write_as_torch(name):
    message, data = _outcome(ember, name)
    torch_message, _ = _outcome(torch, name)  # torch writes some of these before it raises
    assert message == torch_message
    assert torch_message.startswith("Inplace update to inference tensor outside InferenceMode")
    np.testing.assert_array_equal(data, [0.0, 1.0, 2.0])  # ember: unchanged
