"""Measurement, TaskSpec and the unit helpers (ember/utils/benchmark/_common.py): statistics,
printed summaries, titles, merge, units and significant figures, compared with torch 2.13."""
import math

import pytest
import torch.utils.benchmark as TB

import ember.utils.benchmark as EB

from ._measurements import measurements


def _summary(m):
    return "\n".join(repr(m).splitlines()[1:])  # the first line is the object's address


@pytest.mark.parametrize("i", range(6))
def test_measurement_statistics_and_repr_as_torch(i):
    e, t = measurements(EB)[i], measurements(TB)[i]
    assert _summary(e) == _summary(t)
    assert e.times == t.times and e.median == t.median and e.iqr == t.iqr
    assert math.isclose(e.mean, t.mean, rel_tol=1e-15)
    assert (e.significant_figures, e.has_warnings, e.meets_confidence(0.2)) == \
        (t.significant_figures, t.has_warnings, t.meets_confidence(0.2))
    assert (e.title, e.as_row_name, e.stmt, e.num_threads, e.env, e.label) == \
        (t.title, t.as_row_name, t.stmt, t.num_threads, t.env, t.label)
    assert repr(e).startswith("<ember.utils.benchmark._common.Measurement object at ")


def test_units_and_significant_figures_as_torch():
    for t in (3e-10, 3e-8, 3e-5, 0.3, 30.0):
        assert EB.select_unit(t) == TB.select_unit(t)
    assert EB.trim_sigfig(3.14159, 2) == TB.trim_sigfig(3.14159, 2)  # float32 rounding, as torch
    assert EB.unit_to_english("us") == "microsecond"


@pytest.mark.parametrize("x,n", [(0.000123456, 3), (98765.4321, 1), (-2.71828, 4), (1.0, 2),
                                 (123.0, 5)])
def test_trim_sigfig_as_torch(x, n):
    assert EB.trim_sigfig(x, n) == TB.trim_sigfig(x, n)


@pytest.mark.parametrize("u", ["ns", "us", "ms", "s"])
def test_unit_to_english_as_torch(u):
    assert EB.unit_to_english(u) == TB.unit_to_english(u)


@pytest.mark.parametrize("kwargs", [
    dict(stmt="x + 1", setup="pass"),
    dict(stmt="x + 1", setup="x = 1", label="add", sub_label="int", description="small"),
    dict(stmt="a\nb", setup="s\nt", sub_label="two"),
    dict(stmt="a\nb", setup="", description="d"),
    dict(stmt="f()", setup="pass", sub_label="sub"),
], ids=["bare", "labelled", "multiline", "multiline-no-setup", "sub-label"])
def test_task_spec_titles_and_summaries_as_torch(kwargs):
    e, t = EB.TaskSpec(**kwargs), TB.TaskSpec(**kwargs)
    assert (e.title, e.setup_str(), e.summarize()) == (t.title, t.setup_str(), t.summarize())


def test_merge_pools_replicates_as_torch():
    e, t = EB.Measurement.merge(measurements(EB)), TB.Measurement.merge(measurements(TB))
    assert len(e) == len(t) == 5
    for a, b in zip(e, t):
        assert (a.number_per_run, a.raw_times, a.title, a.description) == \
            (b.number_per_run, b.raw_times, b.title, b.description)
        assert _summary(a) == _summary(b)
