"""ember/_switches.py: torch's global switches read back what was set (no-ops otherwise), with
torch's errors; set_anomaly_enabled switches ember's anomaly mode."""
import pytest
import torch
from oracle import same_error

import ember


@pytest.mark.parametrize("setter,getter,value", [
    ("use_deterministic_algorithms", "are_deterministic_algorithms_enabled", True),
    ("set_float32_matmul_precision", "get_float32_matmul_precision", "high"),
    ("set_warn_always", "is_warn_always_enabled", True),
    ("set_anomaly_enabled", "is_anomaly_enabled", True),
    ("set_num_interop_threads", "get_num_interop_threads", 3)])
def test_set_and_read_back(setter, getter, value):
    before = getattr(ember, getter)()
    assert before == getattr(torch, getter)()
    try:
        getattr(ember, setter)(value)
        assert getattr(ember, getter)() == value
    finally:
        getattr(ember, setter)(before)
    assert getattr(ember, getter)() == before


def test_anomaly_switch_is_ember_anomaly_mode():
    ember.set_anomaly_enabled(True)
    try:
        assert ember.autograd.is_anomaly_enabled()
    finally:
        ember.set_anomaly_enabled(False)
    assert not ember.autograd.is_anomaly_enabled()


def test_deterministic_warn_only():
    ember.use_deterministic_algorithms(True, warn_only=True)
    try:
        assert ember.is_deterministic_algorithms_warn_only_enabled()
    finally:
        ember.use_deterministic_algorithms(False)


def test_errors_as_torch():
    same_error(lambda L: L.use_deterministic_algorithms(1))
    same_error(lambda L: L.set_num_interop_threads(0))
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match="no effect"):
            lib.set_float32_matmul_precision("fastest")
        assert lib.get_float32_matmul_precision() == "highest"


@pytest.mark.parametrize("mode", [0, 1, 2, "default", "warn", "error", 3, "loud", 1.0])
def test_deterministic_debug_mode_as_torch(mode):
    seen = []
    for lib in (torch, ember):
        before = lib.get_deterministic_debug_mode()
        try:
            lib.set_deterministic_debug_mode(mode)
            seen.append((lib.get_deterministic_debug_mode(),
                         lib.are_deterministic_algorithms_enabled(),
                         lib.is_deterministic_algorithms_warn_only_enabled()))
        except (TypeError, RuntimeError) as error:
            seen.append((type(error), str(error).replace("torch.", "")))
        finally:
            lib.set_deterministic_debug_mode(before)
    assert seen[1] == seen[0]


def test_anomaly_check_nan_setting_as_torch():
    for lib in (torch, ember):
        states = [lib.is_anomaly_check_nan_enabled()]
        lib.set_anomaly_enabled(True, False)
        states.append(lib.is_anomaly_check_nan_enabled())
        lib.set_anomaly_enabled(False)
        states.append(lib.is_anomaly_check_nan_enabled())
        assert states == [True, False, True]
        assert lib.to_dlpack is lib.utils.dlpack.to_dlpack
