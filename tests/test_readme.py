"""The README stays true: its two top commands are the ones CI runs, every Python snippet runs,
and the compatibility table is what the code provides today."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ember.cli import _compat

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BASH = re.findall(r"```bash\n(.*?)```", README, re.S)
PYTHON = re.findall(r"```python\n(.*?)```", README, re.S)


def test_top_commands_are_install_and_train_then_install_and_test():
    assert README.index("```bash") < README.index("## ")  # at the very top
    assert BASH[0].strip() == 'pip install -e ".[train]" && ember train'
    assert BASH[1].strip() == 'pip install -e ".[test]" && python -m pytest -n 2'


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    install, test = (part.strip() for part in BASH[1].split("&&"))
    assert install in ci and test in ci
    assert "python3 -m venv .venv" in ci and "ruff check ." in ci


def test_the_train_command_is_the_console_script():
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert 'ember = "ember.cli:main"' in pyproject
    assert re.search(r'^dependencies = \["numpy[^"]*"\]$', pyproject, re.M)  # NumPy only
    assert re.search(r'^train = \[.*safetensors.*tqdm.*matplotlib.*\]$', pyproject, re.M)


@pytest.mark.parametrize("index", range(len(PYTHON)))
def test_python_snippet_runs(index, tmp_path):
    script = tmp_path / "snippet.py"
    script.write_text(PYTHON[index])
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=tmp_path, env={"PYTHONPATH": str(ROOT), "PATH": ""}, timeout=300)
    assert done.returncode == 0, done.stderr
    for line in PYTHON[index].splitlines():  # outputs promised in "# ..." comments
        code, _, promised = line.partition("# ")
        if code.strip().startswith("print(") and promised:
            shown = re.sub(r"0x[0-9a-f]+", "0x...", done.stdout)
            assert promised.strip() in shown, (promised, done.stdout)


def test_snippets_exist():
    assert len(PYTHON) >= 3 and any("import ember as torch" in s for s in PYTHON)


def test_compat_table_is_current():
    start, end = README.index(_compat.START), README.index(_compat.END)
    assert README[start + len(_compat.START):end].strip() == _compat.table().strip(), \
        "README's compatibility table is stale: run `ember compat --write README.md`"
