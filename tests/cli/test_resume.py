"""`ember train --resume` beyond the plain case: into another directory without a better epoch,
after a kill between the last checkpoint and the final outputs, and with more epochs (the
schedule is re-planned for the new length)."""
import json
import os

import pytest

import ember
from ember.cli import _run, main


def train(*argv):
    return main(["train", "--quiet", *map(str, argv)])


def _unbeatable(path):
    """Make the checkpoint's best validation accuracy impossible to improve on."""
    ckpt = ember.load(path)
    ckpt["best"]["val_acc"] = 2.0
    ember.save(ckpt, path)
    return ckpt["best"]["epoch"]


@pytest.mark.parametrize("keep_best", [True, False])
def test_resume_into_another_directory_without_improvement(tmp_path, capsys, keep_best):
    a, b = tmp_path / "a", tmp_path / "b"
    assert train("--epochs", 2, "--out", a) == 0
    best_epoch = _unbeatable(a / "last.ckpt")
    if not keep_best:
        os.remove(a / "best.ckpt")
    assert train("--resume", a / "last.ckpt", "--epochs", 3, "--out", b) == 0
    metrics = json.loads((b / "metrics.json").read_text())
    assert [e["epoch"] for e in metrics["epochs"]] == [1, 2, 3]
    printed = capsys.readouterr().out
    if keep_best:  # the best model came along and is the one tested
        assert (b / "best.ckpt").read_bytes() == (a / "best.ckpt").read_bytes()
        assert metrics["test"]["best_epoch"] == best_epoch
    else:
        assert not (b / "best.ckpt").exists() and metrics["test"]["best_epoch"] == 3
        assert f"best.ckpt (epoch {best_epoch}) is not in {b}: testing the last model" in printed
    assert metrics["test"]["acc"] > 0.5 and (b / "curves.png").exists()


def test_a_run_killed_before_its_final_outputs_is_completed_by_resume(tmp_path, monkeypatch,
                                                                       capsys):
    out = tmp_path / "run"

    def killed(self, out, say):
        raise KeyboardInterrupt  # as a Ctrl-C or kill right after the last checkpoint
    with monkeypatch.context() as patch:
        patch.setattr(_run.Run, "finish", killed)
        assert train("--epochs", 2, "--out", out) == 130
    assert not (out / "curves.png").exists()
    assert json.loads((out / "metrics.json").read_text())["test"] is None
    assert train("--resume", "--out", out) == 0
    assert "completing the outputs of its 2 epochs" in capsys.readouterr().out
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["test"]["samples"] == 359 and len(metrics["epochs"]) == 2
    assert (out / "curves.png").exists()
    os.remove(out / "curves.png")  # as a kill between metrics.json and curves.png
    assert train("--resume", "--out", out) == 0 and (out / "curves.png").exists()
    assert train("--resume", "--out", out) == 2  # complete: nothing left to do
    assert "has already trained 2 epochs" in capsys.readouterr().err


@pytest.mark.parametrize("scheduler", ["cosine", "step"])
def test_resume_with_more_epochs_replans_the_schedule(tmp_path, capsys, scheduler):
    args = ["--optimizer", "sgd", "--lr", 0.1, "--scheduler", scheduler, "--batch-size", 256]
    planned, resumed = tmp_path / "planned", tmp_path / "resumed"
    assert train(*args, "--epochs", 6, "--out", planned) == 0
    assert train(*args, "--epochs", 3, "--out", resumed) == 0
    assert train("--epochs", 6, "--resume", "--out", resumed) == 0
    assert f"the {scheduler} schedule is re-planned for 6 epochs" in capsys.readouterr().out
    lrs = {run: [e["lr"] for e in json.loads((run / "metrics.json").read_text())["epochs"]]
           for run in (planned, resumed)}
    assert lrs[resumed][3:] == lrs[planned][3:]  # from the resume on: the 6-epoch plan
    ckpt = ember.load(resumed / "last.ckpt")
    assert ckpt["config"]["epochs"] == 6
    assert ckpt["scheduler"] == ember.load(planned / "last.ckpt")["scheduler"]
