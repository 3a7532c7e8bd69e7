"""Measurement (a Timer's times with their median, IQR and torch's printed summary), the TaskSpec
it describes, and the time-unit helpers the printouts use."""
import collections
import dataclasses
import textwrap

import numpy as np

import ember

_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9  # 25 ns
_IQR_WARN_THRESHOLD, _IQR_GROSS_WARN_THRESHOLD = 0.1, 0.25
_UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def select_unit(t):
    """(unit, scale) that prints ``t`` seconds as a number of order 1: ns, us, ms or s."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(np.log10(t) // 3), "s")
    return unit, _UNITS[unit]


def unit_to_english(u):
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x, n):
    """``x`` rounded to ``n`` significant figures (3.14159, 2 -> 3.1)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    scale = 10.0 ** (int(np.ceil(np.log10(abs(x)))) - n)
    # in float32, as torch's (it rounds a default-dtype tensor): 3.14159, 2 -> 3.1000001430511475
    return float(np.round(np.float32(x / scale)) * np.float32(scale))


@dataclasses.dataclass(frozen=True)
class TaskSpec:
    """What a Timer runs and how its results are labelled (everything but its globals)."""
    stmt: str
    setup: str
    global_setup: str = ""
    label: str = None
    sub_label: str = None
    description: str = None
    env: str = None
    num_threads: int = 1

    @property
    def title(self):
        suffix = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + suffix
        if "\n" not in self.stmt:
            return self.stmt + suffix
        sub = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{sub}\n{textwrap.indent(self.stmt, '  ')}"

    def setup_str(self):
        if self.setup in ("pass", ""):
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, '  ')}"
        return f"setup: {self.setup}"

    def summarize(self):
        sections = [self.title, self.description or "", self.setup_str()]
        return "\n".join(f"{s}\n" if "\n" in s else s for s in sections if s)


_TASK_FIELDS = tuple(f.name for f in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(repr=False)
class Measurement:
    """Times of ``number_per_run`` runs each (``raw_times``) of one TaskSpec."""
    number_per_run: int
    raw_times: list
    task_spec: TaskSpec
    metadata: dict = None

    def __getattr__(self, name):  # stmt, label, num_threads, ...: the task's
        if name in _TASK_FIELDS:
            return getattr(self.task_spec, name)
        raise AttributeError(f"'Measurement' object has no attribute '{name}'")

    @property
    def times(self):
        """Seconds per run of the statement, one per replicate."""
        return [t / self.number_per_run for t in self.raw_times]

    def _quantile(self, q):
        return float(np.quantile(np.asarray(self.times, np.float64), q))

    @property
    def median(self):
        return self._quantile(0.5)

    @property
    def mean(self):
        # summed in ascending order, as torch's: the last bit can differ from other orders
        return ember.tensor(sorted(self.times), dtype=ember.float64).mean().item()

    @property
    def iqr(self):
        return self._quantile(0.75) - self._quantile(0.25)

    def meets_confidence(self, threshold=_IQR_WARN_THRESHOLD):
        return self.iqr / self.median < threshold

    @property
    def significant_figures(self):
        """Figures of the median that the spread of the middle half of the times supports."""
        ordered = sorted(self.times)
        n = len(ordered)
        middle = ordered[n // 4:int(np.ceil(3 * n / 4))]
        spread = max(1.645 * float(np.std(middle)) / np.sqrt(len(middle)),
                     _MIN_CONFIDENCE_INTERVAL)
        figures = int(np.floor(np.log10(self.median / spread)))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def _warnings(self):
        if self.meets_confidence(_IQR_WARN_THRESHOLD):
            return ()
        why = ("This could indicate system fluctuation." if
               self.meets_confidence(_IQR_GROSS_WARN_THRESHOLD) else
               "This suggests significant environmental influence.")
        return (f"  WARNING: Interquartile range is {self.iqr / self.median * 100:.1f}% of the "
                f"median measurement.\n           {why}",)

    @property
    def has_warnings(self):
        return bool(self._warnings)

    @property
    def title(self):
        return self.task_spec.title

    @property
    def as_row_name(self):
        return self.sub_label or self.stmt or "[Unknown]"

    def __repr__(self):
        n = len(self.raw_times)
        unit, scale = select_unit(self.median)
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{self.median / scale:.2f} {unit}"]
        if n >= 4:
            low, high = self._quantile(0.25) / scale, self._quantile(0.75) / scale
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({low:.2f} to {high:.2f})")
        threads = f"{self.num_threads} thread{'s' if self.num_threads > 1 else ''}"
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads}")
        lines.extend(self._warnings)
        return "\n".join(lines)

    @staticmethod
    def merge(measurements):
        """One Measurement (one run per time) per distinct TaskSpec, pooling the replicates."""
        grouped = collections.defaultdict(list)
        for m in measurements:
            grouped[m.task_spec].extend(m.times)
        return [Measurement(1, times, spec) for spec, times in grouped.items()]
