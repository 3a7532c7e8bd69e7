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
