"""ember.utils.benchmark (ember/utils/benchmark/__init__.py): Timer runs the statement as torch's
does; Measurement's statistics and repr, and Compare's table, as torch's for the same times."""
import re

import pytest
import torch.utils.benchmark as torch_benchmark

import ember
import ember.utils.benchmark as benchmark

SPECS = [
    ([0.5], 1, dict(stmt="f()", setup="pass")),
    ([0.00123456], 10, dict(stmt="f()", setup="pass", label="L")),
    ([1.0, 1.1, 1.2, 1.3], 2, dict(stmt="f()", setup="y = 1", description="D")),
    ([1.0, 1.01, 1.02], 2, dict(stmt="f()", setup="pass", sub_label="S", num_threads=4)),
    ([5e-9, 6e-9, 5.5e-9, 5.2e-9, 5.1e-9], 3,
     dict(stmt="f()", setup="pass", label="L", sub_label="S", description="D")),
    ([2e-3] * 5, 2, dict(stmt="a\nb", setup="pass")),
    ([1.0, 1.1, 1.2, 1.3, 1.4, 9.0], 2, dict(stmt="f()", setup="pass")),
]


def _measure(lib, raw, number, spec):
    return lib.Measurement(number, raw, lib.TaskSpec(**spec))


@pytest.mark.parametrize("raw, number, spec", SPECS)
def test_measurement_statistics_and_repr_match_torch(raw, number, spec):
    ours, theirs = _measure(benchmark, raw, number, spec), _measure(torch_benchmark, raw, number,
                                                                     spec)
    for name in ("times", "median", "mean", "iqr", "has_warnings", "title", "number_per_run",
                 "label", "sub_label", "description", "num_threads", "stmt"):
        assert getattr(ours, name) == pytest.approx(getattr(theirs, name)), name
    assert repr(ours).split("\n", 1)[1] == repr(theirs).split("\n", 1)[1]


def _tokens(table):
    """A table's words and numbers, its rules and spacing left out."""
    return [token for token in re.split(r"[\s|\-\[\]]+", table) if token]


def test_compare_table_shows_torch_labels_rows_and_values():
    specs = [([1.3e-6] * 3, dict(sub_label="S2", description="D")),
             ([1.39e-2] * 3, dict(sub_label="S", description="D", num_threads=2)),
             ([2.5e-6] * 3, dict(sub_label="S2", description="Other"))]
    tables = []
    for lib in (benchmark, torch_benchmark):
        results = [_measure(lib, raw, 1, dict(stmt="f()", setup="pass", label="L", **spec))
                   for raw, spec in specs]
        tables.append(str(lib.Compare(results)))
    assert _tokens(tables[0]) == _tokens(tables[1])
    assert tables[0].splitlines()[0].startswith("[") and "Times are in microseconds" in tables[0]


def test_timer_runs_setup_and_statement_with_globals_and_torch():
    calls = []
    timer = benchmark.Timer(stmt="calls.append(torch.ones(1).item() + y)", setup="y = 1",
                            globals={"calls": calls})
    measurement = timer.timeit(50)
    assert measurement.number_per_run == 50 and len(measurement.times) == 1
    assert calls[-1] == 2.0 and len(calls) == 50 + 2  # the warm-up's runs, then the 50
    blocked = timer.blocked_autorange(min_run_time=0.01)
    assert sum(blocked.raw_times) >= 0.01 and blocked.median > 0
    adaptive = timer.adaptive_autorange(min_run_time=0.01, max_run_time=0.5)
    assert sum(adaptive.raw_times) >= 0.01
    assert ember.utils.benchmark is benchmark


def test_timer_restores_thread_count_and_refuses_a_callable():
    before = ember.get_num_threads()
    benchmark.Timer("pass", num_threads=2).timeit(3)
    assert ember.get_num_threads() == before
    for lib in (benchmark, torch_benchmark):
        with pytest.raises(ValueError, match="Currently only a `str` stmt is supported"):
            lib.Timer(stmt=lambda: 1)


def test_indented_setup_runs_and_shows_like_torch():
    shown = []
    for lib in (benchmark, torch_benchmark):
        timer = lib.Timer("z = x * y", "\n        x = 2\n        y = 3\n        ")
        shown.append(repr(timer.timeit(3)).splitlines()[1:6])
    assert shown[0] == shown[1]


def test_language_choices_like_torch_and_cpp_refused():
    assert [m.name for m in benchmark.Language] == list(torch_benchmark.Language.__members__)
    for lib in (benchmark, torch_benchmark):
        with pytest.raises(ValueError, match="Invalid language `rust`"):
            lib.Timer("x", language="rust")
    with pytest.raises(NotImplementedError, match="Python statements only"):
        benchmark.Timer("x * y;", language=benchmark.Language.CPP)
