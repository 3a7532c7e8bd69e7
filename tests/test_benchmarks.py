"""Smoke test of the benchmark harness (benchmarks/run.py): it runs and writes its tables.
No timing is asserted: speed is reported in BENCHMARKS.md, never tested."""
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _env():
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": ROOT + (os.pathsep + path if path else "")}


def test_quick_run_of_one_row_writes_its_table(tmp_path):
    out = tmp_path / "B.md"
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "run.py"), "--quick",
                           "--only", "softmax", "--out", str(out)],
                          capture_output=True, text=True, env=_env(), timeout=600)
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "each framework in its own fresh process" in text
    row = next(line for line in text.splitlines() if line.startswith("| F.softmax 128x784"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[1].endswith("µs") and cells[2].endswith("µs")
    ember_time, torch_time = float(cells[1].split()[0]), float(cells[2].split()[0])
    assert abs(float(cells[3]) - ember_time / torch_time) < 0.0051  # ratio = ember/torch
    assert "MB" in cells[5]  # peak extra memory of both frameworks


def test_unknown_row_is_refused():
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "run.py"),
                           "--only", "no_such_row"], capture_output=True, text=True, env=_env())
    assert proc.returncode != 0 and "no_such_row" in proc.stderr


def test_profile_worker_charges_time_to_ember_functions():
    proc = subprocess.run([sys.executable, "-m", "benchmarks._worker", "softmax", "ember",
                           "--profile", "--repeats", "1"], cwd=ROOT, capture_output=True,
                          text=True, env=_env(), timeout=600)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    labels = [name for name, _, _ in result["functions"]]
    assert any(label.startswith("ember/") and "softmax" in label for label in labels), labels
    shares = [share for _, _, share in result["modules"]]
    assert all(0 <= s <= 1 for s in shares) and sum(shares) <= 1 + 1e-9


def test_ab_runs_each_configuration_in_its_own_environment(monkeypatch):
    from benchmarks.ab import compare, parse_config
    configs = [parse_config("one="), parse_config("split=EMBER_NUM_THREADS=2")]
    assert configs == [("one", {}), ("split", {"EMBER_NUM_THREADS": "2"})]
    monkeypatch.delenv("EMBER_NUM_THREADS", raising=False)
    results = compare("softmax", configs, rounds=2, repeats=1)
    assert [r["env"]["threads"] for r in results["one"]] == [1, 1]
    assert [r["env"]["threads"] for r in results["split"]] == [2, 2]
    assert all(r["median"] > 0 for rs in results.values() for r in rs)


def test_ab_refuses_a_malformed_configuration():
    from benchmarks.ab import main
    with pytest.raises(SystemExit):
        main(["softmax", "--config", "EMBER_NUM_THREADS"])
