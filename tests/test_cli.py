"""The `ember` entry point (ember/cli/__init__.py): main() dispatches the sub-commands, turns bad
input into one line on stderr and exit code 2, an interrupt into 130; the console script and
`python -m ember` run it."""
import os
import subprocess
import sys

import pytest

from ember import cli

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_console_entry_points(tmp_path):
    env = dict(os.environ, PYTHONPATH=ROOT)
    info = subprocess.run([sys.executable, "-m", "ember", "info"], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=120)
    assert info.returncode == 0
    for word in ("ember 0.1.0", "numpy", "BLAS:", "CPU cores", "OMP_NUM_THREADS"):
        assert word in info.stdout
    bad = subprocess.run([sys.executable, "-m", "ember", "train", "--data", "nope.csv",
                          "--target", "y"], capture_output=True, text=True, cwd=tmp_path,
                         env=env, timeout=120)
    assert bad.returncode == 2 and bad.stderr.strip() == \
        "ember train: error: no such file: 'nope.csv'"
    assert not (tmp_path / "runs").exists()


def test_main_reports_bad_input_in_one_line_with_exit_2(capsys, tmp_path):
    assert cli.main(["train", "--data", str(tmp_path / "nope.csv"), "--target", "y"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"ember train: error: no such file: '{tmp_path / 'nope.csv'}'"]


def test_main_turns_an_interrupt_into_exit_130(monkeypatch, capsys):
    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "info", interrupted)
    assert cli.main(["info"]) == 130
    assert capsys.readouterr().err.strip() == "ember info: interrupted"


def test_main_needs_a_command(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main([])
    assert exit_.value.code == 2 and "required" in capsys.readouterr().err
