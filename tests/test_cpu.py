"""ember.cpu: the device-module interface for the CPU, as torch.cpu."""
import torch

import ember


def test_device_queries_as_torch():
    assert ember.cpu.is_available() is torch.cpu.is_available()
    assert ember.cpu.device_count() == torch.cpu.device_count()
    assert ember.cpu.current_device() == torch.cpu.current_device()
    assert ember.cpu.is_initialized() is torch.cpu.is_initialized()
    assert ember.cpu.synchronize() is None and ember.cpu.set_device("cpu") is None


def test_streams_and_events_do_nothing():
    s = ember.cpu.Stream()
    assert ember.cpu.current_stream() is ember.cpu.current_stream()
    with ember.cpu.stream(s) as entered:
        assert entered is s
    e = ember.cpu.Event()
    assert e.query() is True and e.record() is None and e.synchronize() is None
    assert s.query() is True
