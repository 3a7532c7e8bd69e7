"""ember.utils.benchmark: Timer, Measurement and Compare, torch.utils.benchmark's way of timing a
Python statement (over the standard library's timeit) and reporting it."""
import enum
import statistics
import textwrap
import timeit

import ember


class Language(enum.Enum):
    """The language of a Timer's statement: ember times Python only."""

    PYTHON = 0
    CPP = 1


_LANGUAGES = {"py": Language.PYTHON, "python": Language.PYTHON, "c++": Language.CPP,
              "cpp": Language.CPP}

_UNITS = ((1e-9, "ns"), (1e-6, "us"), (1e-3, "ms"), (1.0, "s"))


def select_unit(seconds):
    """(unit name, seconds per unit) for showing ``seconds``: ns, us, ms or s."""
    scale, name = _UNITS[0]
    for candidate, candidate_name in _UNITS:
        if seconds >= candidate:
            scale, name = candidate, candidate_name
    return name, scale


def _quartile(values, fraction):
    """Linear interpolation between order statistics (NumPy's default percentile)."""
    ordered = sorted(values)
    position = fraction * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


class TaskSpec:
    """What was timed: the statement, its setup, and the labels a Compare table sorts by."""

    def __init__(self, stmt, setup, global_setup="", label=None, sub_label=None,
                 description=None, env=None, num_threads=1):
        self.stmt, self.setup, self.global_setup = stmt, setup, global_setup
        self.label, self.sub_label, self.description = label, sub_label, description
        self.env, self.num_threads = env, num_threads

    @property
    def title(self):
        base = self.label if self.label is not None else self.stmt
        if "\n" in base:
            base = "stmt:\n" + "\n".join("  " + line for line in base.splitlines())
        return f"{base}: {self.sub_label}" if self.sub_label else base

    def summarize(self):
        """The header lines of a Measurement's repr."""
        lines = [self.title + ("\n" if "\n" in self.title else "")]
        if self.description:
            lines.append(self.description)
        if self.setup != "pass":
            lines.append(f"setup: {self.setup}" if "\n" not in self.setup else
                         "setup:\n" + "\n".join("  " + s for s in self.setup.splitlines()) +
                         "\n")
        return "\n".join(lines)


class Measurement:
    """The times of ``number_per_run`` runs each (``raw_times``); ``times`` is per run."""

    def __init__(self, number_per_run, raw_times, task_spec, metadata=None):
        self.number_per_run, self.raw_times = number_per_run, list(raw_times)
        self.task_spec, self.metadata = task_spec, metadata

    @property
    def times(self):
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self):
        return _quartile(self.times, 0.5)

    @property
    def mean(self):
        return statistics.fmean(self.times)

    @property
    def iqr(self):
        return _quartile(self.times, 0.75) - _quartile(self.times, 0.25)

    @property
    def has_warnings(self):
        return len(self.times) >= 4 and self.iqr / self.median > 0.1

    def __repr__(self):
        times, threads = self.times, self.task_spec.num_threads
        unit, scale = select_unit(self.median)
        lines = [object.__repr__(self), self.task_spec.summarize()]
        if len(times) == 1:
            lines.append(f"  {self.median / scale:.2f} {unit}")
        else:
            lines.append(f"  Median: {self.median / scale:.2f} {unit}")
        if len(times) >= 4:
            low, high = _quartile(times, 0.25) / scale, _quartile(times, 0.75) / scale
            lines.append(f"  IQR:    {self.iqr / scale:.2f} {unit} ({low:.2f} to {high:.2f})")
        plural = "" if threads == 1 else "s"
        if len(times) == 1:
            lines.append(f"  1 measurement, {self.number_per_run} runs , {threads} thread{plural}")
        else:
            lines.append(f"  {len(times)} measurements, {self.number_per_run} runs per "
                         f"measurement, {threads} thread{plural}")
        if self.has_warnings:
            share = self.iqr / self.median
            why = ("This suggests significant environmental influence." if share > 0.25 else
                   "This could indicate system fluctuation.")
            lines.append(f"  WARNING: Interquartile range is {share * 100:.1f}% of the median "
                         f"measurement.\n           {why}")
        return "\n".join(lines)


def _from_task(name):
    return property(lambda self: getattr(self.task_spec, name))


for _name in ("stmt", "setup", "global_setup", "label", "sub_label", "description", "env",
              "num_threads", "title"):
    setattr(Measurement, _name, _from_task(_name))


class Timer:
    """Times ``stmt`` (after ``setup``) in ``globals``; ``ember`` is there as ``torch``."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timeit.default_timer,
                 globals=None, label=None, sub_label=None, description=None, env=None,
                 num_threads=1, language="python"):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if not isinstance(language, Language):
            if language not in _LANGUAGES:
                raise ValueError(f"Invalid language `{language}`.")
            language = _LANGUAGES[language]
        if language is Language.CPP:
            raise NotImplementedError("ember times Python statements only: a Language.CPP "
                                      "Timer needs torch's C++ build")
        # torch's dedent, so that an indented triple-quoted setup runs
        stmt, setup = (textwrap.dedent(code).strip() or "pass" for code in (stmt, setup))
        namespace = {"torch": ember, **(globals or {})}
        self._task_spec = TaskSpec(stmt, setup, global_setup, label, sub_label, description,
                                   env, num_threads)
        self._timer = timeit.Timer(stmt, setup, timer=timer, globals=namespace)

    def _timeit(self, number):
        threads = ember.get_num_threads()
        ember.set_num_threads(self._task_spec.num_threads)
        try:
            return max(self._timer.timeit(number), 1e-9)
        finally:
            ember.set_num_threads(threads)

    def timeit(self, number=1000000):
        """One measurement of ``number`` runs (after a short warm-up)."""
        self._timeit(max(number // 100, 2))
        return Measurement(number, [self._timeit(number)], self._task_spec)

    def _block_size(self, min_run_time):
        number = 1
        while self._timeit(number) < min_run_time / 1000 and number < 10 ** 9:
            number *= 10
        return number

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of runs, as many as fill ``min_run_time`` seconds."""
        number = self._block_size(min_run_time)
        times = []
        while sum(times) < min_run_time or not times:
            times.append(self._timeit(number))
            if callback is not None:
                callback(number, times[-1])
        return Measurement(number, times, self._task_spec)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None):
        """Blocks of runs until the spread (IQR / median) is under ``threshold`` after at least
        ``min_run_time`` seconds, or ``max_run_time`` seconds have gone."""
        number = self._block_size(0.05)
        times = []
        while True:
            times.append(self._timeit(number))
            if callback is not None:
                callback(number, times[-1])
            measurement = Measurement(number, times, self._task_spec)
            total = sum(times)
            if total >= max_run_time or (total >= min_run_time and len(times) > 3 and
                                          measurement.iqr / measurement.median < threshold):
                return measurement


def _centred(text, width):
    """Centred, the odd space on the left (as torch's tables)."""
    right = (width - len(text)) // 2
    return " " * (width - len(text) - right) + text + " " * right


_UNIT_WORDS = {"ns": "nanoseconds", "us": "microseconds", "ms": "milliseconds", "s": "seconds"}


class Compare:
    """A table of Measurements: one per label, descriptions as columns, sub-labels as rows
    (grouped by thread count), medians in one unit (torch's layout, its spacing simplified)."""

    def __init__(self, results):
        self._results = list(results)

    def __str__(self):
        labels = list(dict.fromkeys(m.label for m in self._results))
        return "\n".join(self._table(label) for label in labels)

    def print(self):
        print(str(self))

    def _table(self, label):
        group = [m for m in self._results if m.label == label]
        columns = list(dict.fromkeys(m.description or "" for m in group))
        rows = list(dict.fromkeys((m.num_threads, m.sub_label or m.stmt) for m in group))
        unit, scale = select_unit(min(m.median for m in group))
        cells = {(m.num_threads, m.sub_label or m.stmt, m.description or ""):
                 f"{m.median / scale:.1f}" for m in group}
        name_width = max(6 + len(name) + 2 for _, name in rows)
        widths = [max([len(c)] + [len(v) for k, v in cells.items() if k[2] == c]) + 2
                  for c in columns]
        total = max(name_width + sum(w + 1 for w in widths), 13)
        lines = ["[" + f"{' ' + str(label) + ' ':-^{total - 2}}" + "]",
                 " " * name_width + "".join("|" + _centred(c, w) for c, w in zip(columns, widths))]
        for threads in dict.fromkeys(t for t, _ in rows):
            lines.append(f"{threads} threads: ".ljust(11) + "-" * (total - 11))
            for t, name in rows:
                if t == threads:
                    lines.append(("      " + name).ljust(name_width) + "".join(
                        f"|{cells.get((t, name, c), ''):>{w}}" for c, w in zip(columns, widths)))
        lines.append(f"\nTimes are in {_UNIT_WORDS[unit]} ({unit}).\n")
        return "\n".join(lines)


__all__ = ["Compare", "Language", "Measurement", "TaskSpec", "Timer", "select_unit"]
