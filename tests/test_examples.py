"""The examples run under ember and, with the import swapped, under torch: printed output equal.

The examples are PyTorch scripts whose only change is ``import ember as torch``; ember draws
torch's random stream, so even their random data and initial weights are torch's.
"""
import importlib.util
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = sorted(p.name for p in (ROOT / "examples").glob("*.py"))


def _run(source, tmp_path):
    script = tmp_path / "script.py"
    script.write_text(source)
    env = dict(os.environ, PYTHONPATH=str(ROOT))  # this checkout's ember, not an installed one
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def _as_torch(source):
    """The same script importing torch: every 'ember' in an import line becomes 'torch'."""
    return re.sub(r"^(\s*(?:import|from)\s.*)$",
                  lambda m: re.sub(r"\bember\b", "torch", m.group(1)), source, flags=re.M)


def _needs_optim(source):
    return "optim" in source and importlib.util.find_spec("ember.optim") is None


@pytest.mark.slow
@pytest.mark.parametrize("name", EXAMPLES)
def test_example_prints_what_torch_prints(name, tmp_path):
    source = (ROOT / "examples" / name).read_text()
    if _needs_optim(source):
        pytest.skip("ember.optim is not in this checkout yet")
    ember_out = _run(source, tmp_path)
    torch_out = _run(_as_torch(source), tmp_path)
    assert ember_out.replace("ember", "torch") == torch_out
    assert ember_out.strip()


def test_import_swap_rewrites_only_imports():
    src = "import ember as torch\nfrom ember import optim\nx = 'ember'\n"
    assert _as_torch(src) == "import torch as torch\nfrom torch import optim\nx = 'ember'\n"


def test_seed_004_as_written_fails_in_both(tmp_path):
    """The seed's y = 2 * X + 1 keeps X's graph: the second backward() is refused by both."""
    source = (ROOT / "examples" / "linear_regression.py").read_text()
    source = source.replace("y = 2 * X.detach() + 1", "y = 2 * X + 1")
    if _needs_optim(source):
        pytest.skip("ember.optim is not in this checkout yet")
    for text in (source, _as_torch(source)):
        script = tmp_path / "seed.py"
        script.write_text(text)
        done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                              env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120)
        assert done.returncode == 1
        assert "Trying to backward through the graph a second time" in done.stderr
