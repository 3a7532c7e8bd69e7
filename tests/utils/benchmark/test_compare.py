"""Compare (ember/utils/benchmark/_compare.py): the tables it prints from fixed times, with each
option, must read as torch 2.13's; and what it refuses."""
import pytest
import torch.utils.benchmark as TB

import ember.utils.benchmark as EB

from ._measurements import measurements


@pytest.mark.parametrize("options", [(), ("trim_significant_figures",), ("highlight_warnings",),
                                     ("trim_significant_figures", "highlight_warnings")])
def test_compare_tables_read_as_torch(options, capsys):
    tables = []
    for B in (EB, TB):
        compare = B.Compare(measurements(B)[:5])
        for option in options:
            getattr(compare, option)()
        compare.print()
        tables.append(capsys.readouterr().out)
    assert tables[0] == tables[1]


def test_compare_refuses_what_is_not_a_measurement():
    with pytest.raises(ValueError, match="Expected an instance of `Measurement`"):
        EB.Compare([1])


@pytest.mark.parametrize("rowwise", [False, True])
def test_colorized_tables_read_as_torch(rowwise, capsys):
    # ember's colorize was a no-op: torch colours each cell against its column's (or row's) best
    tables = []
    for B in (EB, TB):
        compare = B.Compare(measurements(B))
        compare.colorize(rowwise=rowwise)
        compare.print()
        tables.append(capsys.readouterr().out)
    assert "\033[" in tables[1]
    assert tables[0] == tables[1]


def _env_measurements(B):
    times = {("A", "[1, 1]"): 4e-6, ("A", "[8, 8]"): 3e-4, ("B", "[1, 1]"): 4.1e-6,
             ("B", "[8, 8]"): 2e-3, ("A", "[2, 2]"): 9e-6, ("B", "[2, 2]"): 2e-5}
    return [B.Measurement(10, [t, t * 1.02], B.TaskSpec(stmt, "pass", label="dot",
                                                         description=d, env=env))
            for (env, d), t in times.items() for stmt in ("f(x)", "g(x)")]


def test_environments_are_named_on_their_first_row_and_colorized_as_torch(capsys):
    # ember wrote the environment on every row of the table
    tables = []
    for B in (EB, TB):
        for colorize in (False, True):
            compare = B.Compare(_env_measurements(B))
            compare.trim_significant_figures()
            if colorize:
                compare.colorize()
            compare.print()
        tables.append(capsys.readouterr().out)
    assert tables[0] == tables[1]
