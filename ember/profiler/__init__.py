"""ember.profiler: torch.profiler's profile (activities, schedule, on_trace_ready, step),
record_function, schedule and tensorboard_trace_handler, over ember.autograd.profiler."""
import enum
import os
import socket
import time

from ..autograd import profiler as _autograd_profiler
from ..autograd.profiler import record_function

__all__ = ["ProfilerAction", "ProfilerActivity", "profile", "record_function", "schedule",
           "supported_activities", "tensorboard_trace_handler"]


class ProfilerActivity(enum.Enum):
    """What to profile; only the CPU is timed here."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a schedule asks of a profiler at a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities():
    return {ProfilerActivity.CPU}


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """Step -> ProfilerAction: skip ``skip_first`` steps, then cycles of ``wait`` idle,
    ``warmup`` and ``active`` recorded steps (the last one saves), ``repeat`` times (0: always)."""
    if not (wait >= 0 and warmup >= 0 and active > 0 and repeat >= 0 and skip_first >= 0):
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), warmup={warmup} "
            f"(need >= 0), active={active} (need > 0), repeat={repeat} (need >= 0), "
            f"skip_first={skip_first} (need >= 0).")
    cycle = wait + warmup + active

    def action(step):
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE
    return action


_RECORDING = (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)


class profile(_autograd_profiler.profile):
    """``with profile(...) as prof:`` records ops and blocks; ``prof.step()`` moves a schedule
    on (each recorded step is a ``ProfilerStep#N`` block), and ``on_trace_ready(prof)`` runs
    when a scheduled cycle ends or the profiler stops."""

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False, with_flops=False,
                 with_modules=False, experimental_config=None, execution_trace_observer=None,
                 acc_events=False, use_cuda=None, custom_trace_id_callback=None):
        super().__init__(record_shapes=record_shapes)
        self.activities = set(activities) if activities else supported_activities()
        self.schedule, self.on_trace_ready = schedule, on_trace_ready
        self.step_num, self._step_block = 0, None
        self.current_action = ProfilerAction.RECORD if schedule is None else schedule(0)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        if self.current_action in _RECORDING:
            self._begin()

    def stop(self):
        if self.entered:
            self._end()
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def step(self):
        """End this step; start the next as the schedule says."""
        previous = self.current_action
        self.step_num += 1
        self.current_action = ProfilerAction.RECORD if self.schedule is None \
            else self.schedule(self.step_num)
        if self.entered and (previous == ProfilerAction.RECORD_AND_SAVE or
                             self.current_action not in _RECORDING):
            self._end()
            if previous == ProfilerAction.RECORD_AND_SAVE and self.on_trace_ready is not None:
                self.on_trace_ready(self)
        elif self._step_block is not None:
            self._step_block.__exit__()
            self._step_block = record_function(f"ProfilerStep#{self.step_num}").__enter__()
        if not self.entered and self.current_action in _RECORDING:
            self._begin()

    def _begin(self):
        self._events = _autograd_profiler.EventList()
        self._start()
        self._step_block = record_function(f"ProfilerStep#{self.step_num}").__enter__()

    def _end(self):
        if self._step_block is not None:
            self._step_block.__exit__()
            self._step_block = None
        self._stop()
        self.entered = False


def tensorboard_trace_handler(dir_name, worker_name=None, use_gzip=False):
    """An on_trace_ready that writes each trace to ``dir_name`` as Chrome trace JSON."""
    def handler(prof):
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        path = os.path.join(dir_name, f"{worker}.{time.time_ns()}.pt.trace.json")
        prof.export_chrome_trace(path)
    return handler
