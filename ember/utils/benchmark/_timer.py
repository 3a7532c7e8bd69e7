"""Timer: wall-clock timing of a Python statement, with warm-up and replicates."""
import enum
import textwrap
import timeit as _timeit

import numpy as np

import ember

from ._common import Measurement, TaskSpec


def timer():
    """The clock Timer reads by default (ember runs on the CPU: nothing to synchronize)."""
    return _timeit.default_timer()


class Language(enum.Enum):
    PYTHON = 0
    CPP = 1


class Timer:
    """Times ``stmt`` (Python source) run in ``globals`` after ``setup``, as torch's Timer:
    ``torch`` in the statement names ember unless ``globals`` says otherwise."""

    def __init__(self, stmt="pass", setup="pass", global_setup="", timer=timer, globals=None,
                 label=None, sub_label=None, description=None, env=None, num_threads=1,
                 language=Language.PYTHON):
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language not in (Language.PYTHON, "py", "python"):
            if language in (Language.CPP, "cpp", "c++"):
                raise NotImplementedError("ember's Timer times Python statements only")
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely this "
                             "code can simply be moved to `setup`.")
        stmt, setup = _tidy(stmt), _tidy(setup)
        namespace = dict(globals or {})
        namespace.setdefault("torch", ember)
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=namespace)
        self._task_spec = TaskSpec(stmt, setup, global_setup, label, sub_label, description,
                                   env, num_threads)

    def _timeit(self, number):
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number=1000000):
        """One Measurement of ``number`` runs, after a warm-up of ``number // 100`` (at least 2)."""
        with _threads(self._task_spec.num_threads):
            self._timeit(max(number // 100, 2))
            return Measurement(number, [self._timeit(number)], self._task_spec)

    def repeat(self, repeat=-1, number=-1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def collect_callgrind(self, *args, **kwargs):
        raise NotImplementedError("ember's Timer does not collect Callgrind instruction counts")

    def _block_size(self, min_run_time):
        """Runs per block: 1, 10, 100, ... until a block's timer overhead is negligible and the
        block takes a thousandth of ``min_run_time`` (or all of it)."""
        overhead = float(np.median([self._timeit(0) for _ in range(5)]))
        number = 1
        while True:
            taken = self._timeit(number)
            if (overhead / taken <= 1e-4 and taken >= min_run_time / 1000) or \
                    taken > min_run_time or number * 10 > 2147483647:
                return number
            number *= 10

    def _measure(self, number, stop, min_run_time, max_run_time=None, callback=None):
        times, total = [], 0.0
        while total < min_run_time or not stop(times):
            spent = self._timeit(number)
            times.append(spent)
            total += spent
            if callback:
                callback(number, spent)
            if max_run_time and total > max_run_time:
                break
        return Measurement(number, times, self._task_spec)

    def blocked_autorange(self, callback=None, min_run_time=0.2):
        """Blocks of a fixed number of runs, timed until ``min_run_time`` seconds are spent."""
        with _threads(self._task_spec.num_threads):
            number = self._block_size(min_run_time)
            return self._measure(number, lambda times: True, min_run_time, callback=callback)

    def adaptive_autorange(self, threshold=0.1, *, min_run_time=0.01, max_run_time=10.0,
                           callback=None):
        """Blocks timed until the IQR is under ``threshold`` of the median (more than 3 blocks
        and ``min_run_time`` seconds), or ``max_run_time`` seconds have passed."""
        def stop(times):
            return len(times) > 3 and Measurement(number, times, self._task_spec) \
                .meets_confidence(threshold)
        with _threads(self._task_spec.num_threads):
            number = self._block_size(0.05)
            return self._measure(number, stop, min_run_time, max_run_time, callback)


def _tidy(source):
    source = textwrap.dedent(source)
    return (source[1:] if source.startswith("\n") else source).rstrip()


class _threads:
    """ember.set_num_threads(n) for the duration of a measurement."""

    def __init__(self, n):
        self.n = n

    def __enter__(self):
        self.before = ember.get_num_threads()
        ember.set_num_threads(self.n)

    def __exit__(self, *exc):
        ember.set_num_threads(self.before)
