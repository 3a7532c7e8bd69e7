"""The torch.utils.benchmark package surface (ember/utils/benchmark/__init__.py): the names it
exports are torch's, of the same kind, and the Language enum reads as torch's."""
import inspect

import pytest
import torch.utils.benchmark as TB

import ember.utils.benchmark as EB


@pytest.mark.parametrize("name", EB.__all__)
def test_exported_names_are_torchs(name):
    e, t = getattr(EB, name), getattr(TB, name)
    assert (inspect.isclass(e), callable(e)) == (inspect.isclass(t), callable(t))
    if inspect.isfunction(t):
        assert list(inspect.signature(e).parameters) == list(inspect.signature(t).parameters)


def test_language_as_torch():
    assert [(x.name, x.value) for x in EB.Language] == [(x.name, x.value) for x in TB.Language]


def test_timer_default_clock_and_measurement_type():
    m = EB.Timer("pass", timer=EB.timer).timeit(3)
    assert isinstance(m, EB.Measurement) and isinstance(m.task_spec, EB.TaskSpec)
    assert isinstance(EB.timer(), float)
