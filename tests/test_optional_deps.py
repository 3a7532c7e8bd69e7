"""NumPy is ember's only hard dependency: without the "train" extra (safetensors, tqdm,
matplotlib) the core imports and runs, and each missing piece says what to install."""
import subprocess
import sys

import pytest

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]


def _run_without(modules, code, tmp_path):
    """Run ``code`` in a fresh interpreter where importing ``modules`` fails."""
    blocker = "import sys\n" + "".join(f"sys.modules[{m!r}] = None\n" for m in modules)
    script = tmp_path / "script.py"
    script.write_text(blocker + code)
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=tmp_path, env={"PYTHONPATH": str(ROOT), "PATH": ""}, timeout=120)


def test_core_trains_with_numpy_only(tmp_path):
    done = _run_without(["safetensors", "tqdm", "matplotlib", "torch"], """
import ember as torch
x = torch.randn(32, 3); y = x @ torch.tensor([[1.0], [2.0], [3.0]])
model = torch.nn.Linear(3, 1); opt = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(100):
    opt.zero_grad(); loss = torch.nn.functional.mse_loss(model(x), y); loss.backward(); opt.step()
print(loss.item() < 1e-3, [m for m in ("safetensors", "tqdm", "matplotlib") if sys.modules.get(m)])
""", tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "[]"]


def test_save_and_load_without_safetensors_name_the_extra(tmp_path):
    done = _run_without(["safetensors", "safetensors.numpy"], """
import ember
open("y.ckpt", "wb").write(b"\\0" * 16)
for call in (lambda: ember.save({"w": ember.ones(2)}, "x.ckpt"), lambda: ember.load("y.ckpt")):
    try:
        call()
    except ImportError as error:
        print(error)
""", tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2, done.stdout
    for line in lines:
        assert "safetensors package, which is not installed: pip install 'ember[train]'" in line
    assert not (tmp_path / "x.ckpt").exists()


@pytest.mark.parametrize("missing, message, files", [
    ("tqdm", "tqdm is not installed, so no progress bars (pip install tqdm)",
     {"best.ckpt", "last.ckpt", "metrics.csv", "metrics.json", "curves.png"}),
    ("matplotlib", "matplotlib is not installed: skipped curves.png (pip install matplotlib)",
     {"best.ckpt", "last.ckpt", "metrics.csv", "metrics.json"}),
])
def test_train_degrades_without_tqdm_or_matplotlib(tmp_path, missing, message, files):
    done = _run_without([missing], """
from ember.cli import main
sys.exit(main(["train", "--epochs", "1", "--out", "run"]))
""", tmp_path)
    assert done.returncode == 0, done.stderr
    assert message in done.stdout + done.stderr
    assert set(p.name for p in (tmp_path / "run").iterdir()) == files
