"""torch.utils.benchmark (ember/utils/benchmark): Measurement's statistics and printed summary,
Compare's tables (from fixed times, so they must read as torch's), and Timer's API and errors."""
import math

import pytest
import torch.utils.benchmark as TB

import ember
import ember.utils.benchmark as EB


def _measurements(B):
    float4 = B.TaskSpec("x.mm(y)", "pass", label="mm", sub_label="float", description="n=4")
    float8 = B.TaskSpec("x.mm(y)", "x = 1", label="mm", sub_label="float", description="n=8")
    many = B.TaskSpec("a\nb", "s\nt", label="mm", sub_label="int", description="n=8",
                      num_threads=2)
    noisy = B.TaskSpec("z", "pass", label="mm", sub_label="w", description="n=4")
    alone = B.TaskSpec("torch.add(x, 1)", "pass", description="d")
    return [B.Measurement(100, [1.2e-4, 1.3e-4, 1.25e-4, 1.9e-4, 1.1e-4], float4),
            B.Measurement(10, [3.2e-3], float8),
            B.Measurement(1000, [5e-6, 5.1e-6, 4.9e-6, 5e-6], many),
            B.Measurement(100, [1.2e-4, 1.31e-4], float4),
            B.Measurement(7, [1e-3, 2e-3, 1.1e-3, 3e-3, 1e-3], noisy),
            B.Measurement(3, [2.5, 2.0, 4.0], alone)]


def _summary(m):
    return "\n".join(repr(m).splitlines()[1:])  # the first line is the object's address


@pytest.mark.parametrize("i", range(6))
def test_measurement_statistics_and_repr_as_torch(i):
    e, t = _measurements(EB)[i], _measurements(TB)[i]
    assert _summary(e) == _summary(t)
    assert e.times == t.times and e.median == t.median and e.iqr == t.iqr
    assert math.isclose(e.mean, t.mean, rel_tol=1e-15)
    assert (e.significant_figures, e.has_warnings, e.meets_confidence(0.2)) == \
        (t.significant_figures, t.has_warnings, t.meets_confidence(0.2))
    assert (e.title, e.as_row_name, e.stmt, e.num_threads, e.env, e.label) == \
        (t.title, t.as_row_name, t.stmt, t.num_threads, t.env, t.label)
    assert repr(e).startswith("<ember.utils.benchmark._common.Measurement object at ")


@pytest.mark.parametrize("options", [(), ("trim_significant_figures",), ("highlight_warnings",),
                                     ("trim_significant_figures", "highlight_warnings")])
def test_compare_tables_read_as_torch(options, capsys):
    tables = []
    for B in (EB, TB):
        compare = B.Compare(_measurements(B)[:5])
        for option in options:
            getattr(compare, option)()
        compare.print()
        tables.append(capsys.readouterr().out)
    assert tables[0] == tables[1]


def test_units_and_significant_figures_as_torch():
    for t in (3e-10, 3e-8, 3e-5, 0.3, 30.0):
        assert EB.select_unit(t) == TB.select_unit(t)
    assert EB.trim_sigfig(3.14159, 2) == TB.trim_sigfig(3.14159, 2)  # float32 rounding, as torch
    assert EB.unit_to_english("us") == "microsecond"
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        EB.Compare([1])


def test_timer_runs_the_statement_with_torch_naming_ember():
    calls = []
    timer = EB.Timer("calls.append(torch.ones(2).sum().item())", globals={"calls": calls},
                     label="sum", num_threads=1)
    m = timer.timeit(50)
    assert (m.number_per_run, len(m.raw_times), m.label) == (50, 1, "sum")
    assert len(calls) == 50 + 2 and calls[0] == 2.0  # and a warm-up of max(50 // 100, 2) runs
    m = EB.Timer("x + 1", setup="x = torch.ones(3)").blocked_autorange(min_run_time=0.01)
    assert sum(m.raw_times) >= 0.01 and m.number_per_run >= 1
    m = EB.Timer("x + 1", setup="x = 1").adaptive_autorange(max_run_time=0.05)
    assert len(m.raw_times) >= 1
    assert ember.get_num_threads() >= 1


@pytest.mark.parametrize("call", [
    lambda B: B.Timer(1), lambda B: B.Timer(global_setup="x"),
    lambda B: B.Timer(language="fortran"), lambda B: B.Timer().repeat(),
    lambda B: B.Timer().autorange()])
def test_timer_refusals_as_torch(call):
    errors = []
    for B in (EB, TB):
        with pytest.raises(Exception) as info:
            call(B)
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]
