"""A training run (ember/cli/_run.py) through `ember train`, end to end: every output, resume ==
uninterrupted, user data, every bad input."""
import gzip
import json
import os

import numpy as np
import pytest

import ember
from ember.cli import main


def train(*argv):
    return main(["train", "--quiet", *map(str, argv)])


def test_train_writes_every_output(tmp_path, capsys):
    out = tmp_path / "run"
    assert train("--epochs", 2, "--out", out) == 0
    assert sorted(os.listdir(out)) == ["best.ckpt", "curves.png", "last.ckpt", "metrics.csv",
                                       "metrics.json"]
    metrics = json.loads((out / "metrics.json").read_text())
    assert [e["epoch"] for e in metrics["epochs"]] == [1, 2]
    assert metrics["test"]["acc"] > 0.8 and metrics["test"]["samples"] == 359
    lines = (out / "metrics.csv").read_text().splitlines()
    assert lines[0].startswith("epoch,train_loss,train_acc,val_loss,val_acc") and len(lines) == 3
    printed = capsys.readouterr().out
    assert "epoch   2/2" in printed and "samples/s" in printed and "test accuracy" in printed
    assert (out / "curves.png").read_bytes()[:4] == b"\x89PNG"
    last = ember.load(out / "last.ckpt")
    assert last["epoch"] == 2 and last["config"]["model"] == "mlp"


def _final_state(out):
    ckpt = ember.load(out / "last.ckpt")
    history = [{k: v for k, v in h.items() if k != "seconds"} for h in ckpt["history"]]
    return ckpt, history


def _assert_same_run(a, b):
    (ca, ha), (cb, hb) = _final_state(a), _final_state(b)
    assert ha == hb and ca["best"] == cb["best"] and ca["epoch"] == cb["epoch"]
    for k in ca["model"]:
        assert np.array_equal(ca["model"][k].numpy(), cb["model"][k].numpy()), k
    for i, state in ca["optimizer"]["state"].items():
        for k, v in state.items():
            assert np.array_equal(v.numpy(), cb["optimizer"]["state"][i][k].numpy()), (i, k)
    assert ca["scheduler"] == cb["scheduler"]
    assert np.array_equal(ca["loader_rng"].numpy(), cb["loader_rng"].numpy())
    assert json.loads((a / "metrics.json").read_text())["test"] == \
        json.loads((b / "metrics.json").read_text())["test"]


def test_resume_after_interrupt_is_bit_identical(tmp_path, monkeypatch, capsys):
    from ember.cli import _run as _train
    args = ["--epochs", 3, "--batch-size", 64, "--optimizer", "sgd", "--lr", 0.05,
            "--scheduler", "cosine"]
    a, b = tmp_path / "a", tmp_path / "b"
    assert train(*args, "--out", a) == 0
    real_epoch = _train._train_epoch

    def interrupt_third(model, loader, optimizer, epoch, epochs, quiet):
        if epoch == 3:
            raise KeyboardInterrupt
        return real_epoch(model, loader, optimizer, epoch, epochs, quiet)
    monkeypatch.setattr(_train, "_train_epoch", interrupt_third)
    assert train(*args, "--out", b) == 130  # Ctrl-C during epoch 3
    assert "interrupted" in capsys.readouterr().err
    monkeypatch.setattr(_train, "_train_epoch", real_epoch)
    ember.manual_seed(12345)  # a different global RNG state must not matter: it is restored
    assert train("--out", b, "--resume") == 0
    _assert_same_run(a, b)


def test_resume_with_more_epochs_equals_longer_run(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    assert train("--epochs", 3, "--batch-size", 64, "--out", a) == 0
    assert train("--epochs", 2, "--batch-size", 64, "--out", b) == 0
    assert train("--epochs", 3, "--out", b, "--resume") == 0
    _assert_same_run(a, b)


def _write_idx(path, array):
    header = bytes([0, 0, 8, array.ndim]) + b"".join(d.to_bytes(4, "big") for d in array.shape)
    with gzip.open(path, "wb") as f:
        f.write(header + array.astype(np.uint8).tobytes())


def test_user_data_csv_npz_and_mnist(tmp_path):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 90)
    x = rng.standard_normal((90, 4)) + y[:, None] * 3
    rows = ["a,b,label,c,d"] + [f"{r[0]},{r[1]},{['cat', 'dog', 'eel'][k]},{r[2]},{r[3]}"
                                for r, k in zip(x, y)]
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    assert train("--data", tmp_path / "d.csv", "--target", "label", "--epochs", 10,
                 "--out", tmp_path / "csv") == 0
    assert json.loads((tmp_path / "csv" / "metrics.json").read_text())["test"]["acc"] > 0.8
    np.savez(tmp_path / "d.npz", x=rng.standard_normal((60, 16)), y=np.arange(60) % 2)
    assert train("--data", tmp_path / "d.npz", "--model", "cnn", "--epochs", 1,
                 "--out", tmp_path / "npz") == 0
    mnist = tmp_path / "mnist"
    mnist.mkdir()
    _write_idx(mnist / "train-images-idx3-ubyte.gz", rng.integers(0, 255, (50, 12, 12)))
    _write_idx(mnist / "train-labels-idx1-ubyte.gz", np.arange(50) % 10)
    assert train("--data", f"mnist:{mnist}", "--model", "cnn", "--epochs", 1,
                 "--out", tmp_path / "m") == 0
    ckpt = ember.load(tmp_path / "m" / "last.ckpt")
    assert tuple(ckpt["model"]["0.weight"].shape) == (16, 1, 3, 3)


def _snapshot(directory):
    return {n: (directory / n).read_bytes() for n in sorted(os.listdir(directory))}


@pytest.fixture(scope="module")
def done_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("done")
    assert train("--epochs", 1, "--out", out) == 0
    return out


def _bad_inputs(tmp, done):
    (tmp / "text.csv").write_text("a,b,y\n1,2,0\n3,oops,1\n")
    (tmp / "ragged.csv").write_text("a,b,y\n1,2,0\n3,1\n")
    np.savez(tmp / "wrong.npz", features_only=np.ones((4, 2)))
    ember.save({"a": 1}, tmp / "other.ckpt")
    (tmp / "torch.pt").write_bytes(b"\x80\x04K\x01.")
    ckpt = ember.load(done / "last.ckpt")
    ckpt["config"]["model"] = "cnn"
    ember.save(ckpt, tmp / "othermodel.ckpt")
    return [
        (["--data", tmp / "missing.csv", "--target", "y"], "no such file"),
        (["--data", tmp / "text.csv", "--target", "nope"], "column 'nope' not found"),
        (["--data", tmp / "text.csv", "--target", "y"], "non-numeric value 'oops' in column 'b'"),
        (["--data", tmp / "text.csv"], "--target COLUMN is required"),
        (["--data", tmp / "ragged.csv", "--target", "y"], "line 3 has 2 fields"),
        (["--data", tmp / "wrong.npz"], "needs arrays named x and y"),
        (["--data", f"mnist:{tmp}/nodir"], "no such directory"),
        (["--data", tmp / "data.parquet"], "unknown data format"),
        (["--resume", tmp / "other.ckpt"], "not a checkpoint written by `ember train`"),
        (["--resume", tmp / "torch.pt"], "pickle/zip checkpoint"),
        (["--resume", tmp / "othermodel.ckpt", "--epochs", 5], "does not fit this model/data"),
        (["--resume", done / "last.ckpt", "--model", "cnn"], "--model cnn differs from"),
        (["--resume", done / "last.ckpt"], "has already trained 1 epochs"),
        (["--resume", "--out", tmp / "empty"], "no checkpoint to resume"),
        (["--out", done], "already holds a run"),
        (["--epochs", 0], "--epochs must be >= 1"),
        (["--lr", -1], "--lr must be >= 0"),
        (["--val-fraction", 0.5, "--test-fraction", 0.5], "sum to less than 1"),
        (["--target", "y"], "--target needs --data FILE.csv"),
        (["--model", "transformer"], "invalid choice: 'transformer'"),
        (["--epochs", "two"], "invalid int value: 'two'"),
    ]


def test_every_bad_input_is_one_line_exit_2_and_touches_nothing(tmp_path, done_run, capsys):
    before = _snapshot(done_run)
    for argv, message in _bad_inputs(tmp_path, done_run):
        listing = sorted(os.listdir(tmp_path))
        try:
            code = train(*argv)
        except SystemExit as exit_:  # argparse's errors
            code = exit_.code
        captured = capsys.readouterr()
        err = captured.err.strip()
        assert code == 2, (argv, err)
        assert len(err.splitlines()) == 1 and message in err, (argv, err)
        assert "Traceback" not in err and captured.out == ""
        assert sorted(os.listdir(tmp_path)) == listing, argv
    assert _snapshot(done_run) == before
