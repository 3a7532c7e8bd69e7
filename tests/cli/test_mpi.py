"""`mpiexec -n 2 python -m ember train`: one set of outputs from rank 0, global metrics, the same
weights as one process trained on the concatenated per-rank batches, bad input exits 2 on every
rank, a failure during training ends the job (see also workers/train_cli.py)."""
import json
import math
import os
import sys
import time

import numpy as np
import pytest
from distributed._launch import ROOT, mpiexec, run_command

import ember
from ember.cli import DEFAULTS, _run
from ember.datasets import load_source
from ember.utils.data import DistributedSampler

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "workers", "train_cli.py")

# SGD without momentum: averaging two per-rank mean gradients of equal-size batches is exactly
# the gradient of the concatenated batch, so one process can replay the run.
SGD = ["--optimizer", "sgd", "--lr", 0.1, "--momentum", 0, "--batch-size", 32, "--quiet"]
TRAIN = 1259  # the bundled digits' train split (1797 - 359 test - 179 validation)


def run_ember(n, *argv, timeout=120, cwd=ROOT):
    """``mpiexec -n n python -m ember train ARGV`` with a hard timeout; (code, stdout, stderr)."""
    cmd = [mpiexec(), "-n", str(n), sys.executable, "-m", "ember", "train", *map(str, argv)]
    return run_command(cmd, timeout, cwd=cwd, what=f"mpiexec -n {n} ember train")


def run_worker(args, timeout):
    """workers/train_cli.py on 2 ranks: (code, stdout, stderr)."""
    cmd = [mpiexec(), "-n", "2", sys.executable, WORKER, *map(str, args)]
    return run_command(cmd, timeout, what="mpiexec -n 2 train_cli.py")


@pytest.fixture(scope="module")
def two_ranks(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist") / "run"
    code, stdout, stderr = run_ember(2, "--epochs", 2, "--out", out, *SGD)
    assert code == 0, f"stdout:\n{stdout}\nstderr:\n{stderr}"
    return out, stdout


def test_two_ranks_write_one_set_of_global_outputs(two_ranks):
    out, stdout = two_ranks
    assert sorted(os.listdir(out)) == ["best.ckpt", "curves.png", "last.ckpt", "metrics.csv",
                                       "metrics.json"]
    assert "data-parallel on 2 ranks, batch 32 per rank (64 per step)" in stdout
    assert stdout.count("test accuracy") == 1 and stdout.count("epoch   2/2") == 1  # rank 0 only
    metrics = json.loads((out / "metrics.json").read_text())
    # DistributedSampler pads 1259 to 2 x 630 by repeating one sample: 1260 seen per epoch
    assert [e["samples"] for e in metrics["epochs"]] == [2 * math.ceil(TRAIN / 2)] * 2
    assert metrics["test"]["samples"] == 359 and metrics["test"]["acc"] > 0.8
    ckpt = ember.load(out / "last.ckpt")
    assert ckpt["world_size"] == 2 and ckpt["epoch"] == 2
    assert all(not k.startswith("module.") for k in ckpt["model"])  # the bare model's keys


def _replay_on_one_process(epochs, batch, ranks=2):
    """Single-process SGD on each step's batch = rank 0's batch followed by rank 1's."""
    cfg = dict(DEFAULTS, optimizer="sgd", lr=0.1, momentum=0.0, batch_size=batch)
    x, y = load_source(None, None)
    train_x, train_y = _run.prepare_data(cfg, x, y)["train"]
    ember.manual_seed(cfg["seed"])
    model = _run.build_model("mlp", tuple(train_x.shape[1:]), 10)
    optimizer = _run.build_optimizer(cfg, model.parameters())
    losses = []
    for epoch in range(epochs):
        shares = []
        for rank in range(ranks):
            sampler = DistributedSampler(range(TRAIN), ranks, rank, shuffle=True, seed=0)
            sampler.set_epoch(epoch)
            shares.append(list(sampler))
        total = 0.0
        for start in range(0, len(shares[0]), batch):
            index = ember.tensor(sum((s[start:start + batch] for s in shares), []))
            loss = ember.nn.functional.cross_entropy(model(train_x[index]), train_y[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(index)
        losses.append(total / (len(shares[0]) * ranks))
    return model.state_dict(), losses


def test_two_ranks_equal_one_process_on_the_concatenated_batches(two_ranks):
    out, _ = two_ranks
    ckpt = ember.load(out / "last.ckpt")
    expected, losses = _replay_on_one_process(epochs=2, batch=32)
    for key, value in expected.items():
        np.testing.assert_allclose(ckpt["model"][key].numpy(), value.numpy(), rtol=1e-4,
                                   atol=1e-5, err_msg=key)
    np.testing.assert_allclose([h["train_loss"] for h in ckpt["history"]], losses, rtol=1e-5)


def test_bad_input_exits_2_on_every_rank(tmp_path):
    for argv, message in [(["--data", "nope.csv", "--target", "y"], "no such file: 'nope.csv'"),
                          (["--epochs", "two"], "argument --epochs: invalid int value: 'two'"),
                          (["--lr", -1], "--lr must be >= 0, got -1.0")]:
        start = time.monotonic()
        code, out, err = run_ember(2, *argv, cwd=tmp_path, timeout=60)
        assert code == 2 and out == "", (argv, out, err)
        assert err.strip() == f"ember train: error: {message}", argv  # once, from rank 0
        assert time.monotonic() - start < 30 and os.listdir(tmp_path) == []


@pytest.mark.parametrize("mode, argv, message", [
    ("none", ["--lr", -1], "--lr must be >= 0, got -1.0"),
    ("data", [], "rank 1: permission denied: 'digits' (on this rank only)"),
    ("otherdata", [], "rank 1 holds other data or another checkpoint than rank 0 (train/val/test "
     "1258/179/359 vs 1259/179/359, epoch 0 vs 0, or different values); every rank must read "
     "the same --data and --resume"),
    ("othervalues", [], "rank 1 holds other data or another checkpoint than rank 0 (train/val/"
     "test 1259/179/359 vs 1259/179/359, epoch 0 vs 0, or different values); every rank must "
     "read the same --data and --resume")])
def test_input_rejected_by_any_rank_returns_2_on_every_rank(tmp_path, mode, argv, message):
    code, out, err = run_worker([mode, *argv, "--out", tmp_path / "o"], timeout=60)
    assert code == 2 and out.count("EXIT 2") == 2, (out, err)  # main() returned 2 on both
    assert err.strip() == f"ember train: error: {message}"
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("mode, message", [
    ("raise", "RuntimeError: rank 1 failed in epoch 2\nember train: rank 1 raised RuntimeError; "
              "aborting all 2 ranks"),
    ("interrupt", "ember train: rank 1 interrupted; aborting all 2 ranks"),
])
def test_failure_during_training_ends_the_job(tmp_path, mode, message):
    start = time.monotonic()
    code, out, err = run_worker([mode, "--epochs", 3, "--batch-size", 128, "--quiet", "--out",
                                 tmp_path], timeout=60)
    assert code != 0 and "EXIT" not in out and message in err, (out, err)
    assert "epoch   1/3" in out and "epoch   2/3" not in out
    assert time.monotonic() - start < 45


def test_resume_on_two_ranks_equals_the_uninterrupted_run(two_ranks, tmp_path):
    """Rank 0 wrote the epoch-1 checkpoint; every rank loads it and epoch 2 comes out the same."""
    full, _ = two_ranks
    out = tmp_path / "resumed"
    for argv in (["--epochs", 1, "--out", out, *SGD], ["--epochs", 2, "--out", out, "--resume",
                                                       "--quiet"]):
        code, stdout, stderr = run_ember(2, *argv)
        assert code == 0, f"stdout:\n{stdout}\nstderr:\n{stderr}"
    assert "resuming after epoch 1" in stdout
    a, b = ember.load(full / "last.ckpt"), ember.load(out / "last.ckpt")
    for key in a["model"]:
        np.testing.assert_array_equal(a["model"][key].numpy(), b["model"][key].numpy(), key)
    drop = lambda history: [{k: v for k, v in h.items() if k != "seconds"} for h in history]
    assert drop(a["history"]) == drop(b["history"])


def test_one_process_counts_every_train_sample(tmp_path, capsys):
    from ember.cli import main
    assert main(["train", "--epochs", "1", "--batch-size", "256", "--quiet", "--out",
                 str(tmp_path)]) == 0
    metrics = json.loads((tmp_path / "metrics.json").read_text())
    assert [e["samples"] for e in metrics["epochs"]] == [TRAIN]
    assert "data-parallel" not in capsys.readouterr().out


def test_one_process_resumes_a_two_rank_run(two_ranks, tmp_path, capsys):
    import shutil

    from ember.cli import main
    out = tmp_path / "copy"
    shutil.copytree(two_ranks[0], out)
    assert main(["train", "--epochs", "3", "--out", str(out), "--resume", "--quiet"]) == 0
    assert "resuming after epoch 2 (trained on 2 rank(s) so far" in capsys.readouterr().out
    ckpt = ember.load(out / "last.ckpt")
    assert ckpt["world_size"] == 1 and [h["samples"] for h in ckpt["history"]] == [1260] * 2 + [
        TRAIN]
