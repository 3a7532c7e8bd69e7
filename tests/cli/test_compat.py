"""`ember compat` (ember/cli/_compat.py): the compatibility table lists what each namespace
provides, replace_in rewrites only the marked part, and --write refuses a file without markers
(leaving it untouched)."""
import pytest

import ember
from ember.cli import UsageError, main
from ember.cli._compat import END, START, replace_in, table


def _row(text, namespace):
    return next(line for line in text.splitlines() if line.startswith(f"| `{namespace}` |"))


def test_table_lists_the_names_with_counts():
    text = table()
    row = _row(text, "torch.optim")
    names = [cell.strip("` ") for cell in row.split("|")[2].split(",")]
    assert "SGD" in names and "AdamW" in names and int(row.split("|")[3]) == len(names)
    assert all(hasattr(ember.optim, name) for name in names)
    assert "`zeros`" in _row(text, "torch") and "`backward`" in _row(text, "torch.Tensor")


def test_replace_in_rewrites_only_between_the_markers():
    text = f"head\n{START}\nold table\n{END}\ntail\n"
    new = replace_in(text)
    assert new.startswith(f"head\n{START}\n") and new.endswith(f"{END}\ntail\n")
    assert "old table" not in new and table() in new


def test_compat_prints_the_table(capsys):
    assert main(["compat"]) == 0
    assert capsys.readouterr().out == table()


def test_write_replaces_the_table_in_a_file(tmp_path):
    path = tmp_path / "README.md"
    path.write_text(f"intro\n{START}\nstale\n{END}\n")
    assert main(["compat", "--write", str(path)]) == 0
    assert path.read_text() == f"intro\n{START}\n{table()}{END}\n"


def test_write_refuses_a_file_without_markers(tmp_path, capsys):
    path = tmp_path / "README.md"
    path.write_text("no markers\n")
    assert main(["compat", "--write", str(path)]) == 2
    assert "has no <!-- compat:start --> ... <!-- compat:end --> markers" in \
        capsys.readouterr().err
    assert path.read_text() == "no markers\n"
    with pytest.raises(UsageError):
        from ember.cli._compat import compat_command
        compat_command(str(path))
