"""The autograd profiler's machinery (public as ember.autograd.profiler): profile and
record_function, timing each op and labelled block on the CPU; key_averages() and its table, as
torch.autograd.profiler's (torch.profiler builds on it).

Ops are seen through the graph's observer (the hook an ONNX trace uses): each op's time is the
time since the previous event ended, so Python between ops is counted in the next op.
"""
import contextlib
import json
import time

from . import graph as _graph

_active = []  # the running profiles, innermost last


class FunctionEvent:
    """One op call or record_function block: times in microseconds."""

    def __init__(self, name, start, end, input_shapes=(), parent=None):
        self.name, self.key = name, name
        self.time_range_start, self.time_range_end = start, end
        self.cpu_time_total = end - start
        self.children_time = 0.0
        self.input_shapes, self.cpu_parent, self.count = list(input_shapes), parent, 1

    @property
    def self_cpu_time_total(self):
        return self.cpu_time_total - self.children_time

    @property
    def cpu_time(self):
        return self.cpu_time_total / self.count

    def __repr__(self):
        return (f"<FunctionEvent name={self.name} cpu_time={_format_us(self.cpu_time_total)} "
                f"self_cpu_time={_format_us(self.self_cpu_time_total)}>")


class FunctionEventAvg:
    """The events of one name (and input shapes, when grouped by them) summed."""

    def __init__(self, key, input_shapes):
        self.key = self.name = key
        self.input_shapes = input_shapes
        self.count, self.cpu_time_total, self.self_cpu_time_total = 0, 0.0, 0.0

    def add(self, event):
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        return self

    @property
    def cpu_time(self):
        return self.cpu_time_total / max(self.count, 1)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time="
                f"{_format_us(self.self_cpu_time_total)} cpu_time={_format_us(self.cpu_time)} "
                f"count={self.count}>")


def _format_us(us):
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


class EventList(list):
    """A list of events with torch's summaries: key_averages, total_average, table."""

    def key_averages(self, group_by_input_shapes=False, group_by_stack_n=0):
        groups = {}
        for event in self:
            shapes = str(event.input_shapes) if group_by_input_shapes else ""
            name = "ProfilerStep*" if event.key.startswith("ProfilerStep#") else event.key
            groups.setdefault((name, shapes), FunctionEventAvg(name, event.input_shapes)).add(event)
        return EventList(groups.values())

    def total_average(self):
        total = FunctionEventAvg("Total", [])
        for event in self:
            total.add(event)
        return total

    @property
    def self_cpu_time_total(self):
        return sum(event.self_cpu_time_total for event in self)

    def table(self, sort_by=None, row_limit=100, max_name_column_width=55, header=None,
              top_level_events_only=False):
        """torch's text table: name, self and total CPU time with shares, average, calls."""
        rows = sorted(self, key=lambda e: getattr(e, sort_by), reverse=True) if sort_by \
            else list(self)
        if row_limit is not None and row_limit > 0:
            rows = rows[:row_limit]
        total = self.self_cpu_time_total or 1.0
        titles = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
                  "# of Calls"]
        name_width = min(max([len("Name")] + [len(e.key) for e in rows]) + 4,
                         max_name_column_width)
        rule = "-" * name_width + "  " + "  ".join("-" * 12 for _ in titles) + "  "
        lines = [] if header is None else [header]
        lines += [rule, "Name".rjust(name_width) + "  " +
                  "  ".join(t.rjust(12) for t in titles) + "  ", rule]
        for e in rows:
            name = e.key if len(e.key) <= name_width else e.key[:name_width - 3] + "..."
            cells = [f"{e.self_cpu_time_total / total * 100:.2f}%",
                     _format_us(e.self_cpu_time_total),
                     f"{e.cpu_time_total / total * 100:.2f}%", _format_us(e.cpu_time_total),
                     _format_us(e.cpu_time), str(e.count)]
            lines.append(name.rjust(name_width) + "  " +
                         "  ".join(c.rjust(12) for c in cells) + "  ")
        lines += [rule, f"Self CPU time total: {_format_us(self.self_cpu_time_total)}", ""]
        return "\n".join(lines)

    def export_chrome_trace(self, path):
        """The events as a Chrome trace (chrome://tracing, Perfetto): one complete event each."""
        trace = [{"name": e.name, "ph": "X", "ts": e.time_range_start,
                  "dur": e.cpu_time_total, "pid": 0, "tid": 0, "cat": "cpu_op",
                  "args": {"Input Dims": e.input_shapes}} for e in self]
        with open(path, "w") as handle:
            json.dump({"traceEvents": trace}, handle)


def _now_us():
    return time.perf_counter_ns() / 1000.0


def _op_name(node):
    """torch's name for the op a node records: MulBackward0 -> aten::mul."""
    if isinstance(node, _graph.Untracked):
        return f"aten::{node.name}"
    stem = type(node).__name__
    cut = stem.find("Backward")
    return f"aten::{(stem[:cut] if cut > 0 else stem).lower()}"


class profile:
    """Record every op and record_function block run inside ``with profile() as prof:``."""

    def __init__(self, enabled=True, *, use_cuda=False, use_device=None, record_shapes=False,
                 with_flops=False, profile_memory=False, with_stack=False, with_modules=False,
                 use_kineto=False, use_cpu=True, experimental_config=None, acc_events=False,
                 custom_trace_id_callback=None):
        self.enabled, self.record_shapes = enabled, record_shapes
        self._events, self._open, self._mark = EventList(), [], None
        self._previous = None
        self.entered = False

    def __enter__(self):
        if self.enabled:
            self._start()
        return self

    def __exit__(self, *exc):
        if self.enabled:
            self._stop()
        return False

    def _start(self):
        self.entered = True
        self._previous = (_graph._anomaly_mode, _graph._observer)
        previous_observer = self._previous[1]

        def observe(node, inputs, kwargs, out):
            self._record_op(node, inputs)
            if previous_observer is not None:  # an enclosing profile or ONNX trace sees it too
                previous_observer(node, inputs, kwargs, out)
        _graph._anomaly_mode, _graph._observer = True, observe
        _active.append(self)
        self._mark = _now_us()

    def _stop(self):
        _graph._anomaly_mode, _graph._observer = self._previous
        if self in _active:
            _active.remove(self)

    def _finish(self, event):
        parent = self._open[-1] if self._open else None
        event.cpu_parent = parent
        if parent is not None:
            parent.children_time += event.cpu_time_total
        self._events.append(event)
        self._mark = event.time_range_end

    def _record_op(self, node, inputs):
        end = _now_us()
        shapes = [list(t.shape) if hasattr(t, "shape") else [] for t in inputs] \
            if self.record_shapes else []
        self._finish(FunctionEvent(_op_name(node), self._mark, end, shapes))

    def _open_block(self, name):
        event = FunctionEvent(name, _now_us(), 0.0)
        self._open.append(event)
        self._mark = event.time_range_start
        return event

    def _close_block(self, event):
        event.time_range_end = _now_us()
        event.cpu_time_total = event.time_range_end - event.time_range_start
        self._open.remove(event)
        self._finish(event)

    def events(self):
        return self._events

    @property
    def function_events(self):
        return self._events

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        return self._events.key_averages(group_by_input_shape, group_by_stack_n)

    def total_average(self):
        return self._events.total_average()

    @property
    def self_cpu_time_total(self):
        return self._events.self_cpu_time_total

    def table(self, *args, **kwargs):
        return self._events.table(*args, **kwargs)

    def export_chrome_trace(self, path):
        return self._events.export_chrome_trace(path)

    def __str__(self):
        return self.table()


class record_function(contextlib.ContextDecorator):
    """Label a block (or, as a decorator, each call of a function) in the running profiles."""

    def __init__(self, name, args=None):
        self.name, self.args, self._events = name, args, []

    def __enter__(self):
        self._events = [(p, p._open_block(self.name)) for p in _active]
        return self

    def __exit__(self, *exc):
        for prof, event in self._events:
            prof._close_block(event)
        self._events = []
        return False


@contextlib.contextmanager
def emit_nvtx(enabled=True, record_shapes=False):
    """Accepted for compatibility: there is no NVTX on the CPU."""
    yield


__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg", "emit_nvtx", "profile",
           "record_function"]
