"""The seed 002 programs (examples/seed_002_*.py) print the same with `import ember as torch`."""
import glob
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "examples", "seed_002_*.py")))
AS_EMBER = ("import sys, runpy, ember; sys.modules['torch'] = ember; "
            "runpy.run_path(sys.argv[1], run_name='__main__')")


def _normalise(text):
    """Object addresses differ between runs, and ember names itself where torch says 'torch.'."""
    return re.sub(r"0x[0-9a-f]+", "0x?", text).replace("ember.", "torch.")


def _run(args):
    proc = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return _normalise(proc.stdout)


def test_examples_exist():
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("path", EXAMPLES, ids=os.path.basename)
def test_seed_program_prints_what_torch_prints(path):
    expected = _run([path])
    assert expected.strip()
    assert _run(["-c", AS_EMBER, path]) == expected
