"""torch.cpu: the CPU device module (the same calls as torch.cuda's, for the device ember runs on).

Streams and events exist for code written against the device-module interface; on the CPU
everything runs in order, so they do nothing.
"""
from . import amp  # noqa: F401  (torch.cpu.amp)


def is_available():
    return True


def device_count():
    return 1


def current_device():
    return "cpu"


def set_device(device):
    """Accepted for the device-module interface (the CPU is the only device)."""


def synchronize(device=None):
    """Nothing to wait for: CPU work is done when the call returns."""


def is_initialized():
    return True


class Stream:
    """torch.cpu.Stream: work on the CPU runs in order on the caller's thread."""

    def __init__(self, priority=-1):
        self.priority = priority

    def wait_stream(self, stream):
        pass

    def wait_event(self, event):
        pass

    def record_event(self, event=None):
        return event if event is not None else Event()

    def query(self):
        return True

    def synchronize(self):
        pass


class Event:
    """torch.cpu.Event: complete as soon as recorded."""

    def query(self):
        return True

    def record(self, stream=None):
        pass

    def wait(self, stream=None):
        pass

    def synchronize(self):
        pass


_CURRENT = Stream()


def current_stream(device=None):
    return _CURRENT


class StreamContext:
    """``with torch.cpu.stream(s):`` (nothing changes on the CPU)."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        return self.stream

    def __exit__(self, *exc):
        return False


def stream(stream):
    return StreamContext(stream)
