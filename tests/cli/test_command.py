"""The `ember train` command (ember/cli/_command.py) validates everything before writing: on bad
input one line on stderr naming the problem, exit code 2, and --out left uncreated; crafted data
files, settings, output directories and damaged checkpoints."""
import gzip
import json
import os

import numpy as np
import pytest

import ember
from ember.cli import main


def train(*argv):
    return main(["train", "--quiet", *map(str, argv)])


@pytest.fixture(scope="module")
def done_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("done")
    assert train("--epochs", 1, "--out", out) == 0
    return out


def _csv(path, labels, features=None, text=None):
    rows = ["a,b,y"] + [f"{i},{(features or {}).get(i, i % 3)},{v}" for i, v in enumerate(labels)]
    path.write_text(text if text is not None else "\n".join(rows) + "\n")
    return path


def _npz(path, x, y):
    np.savez(path, x=x, y=y)
    return path


def _data_cases(tmp):
    classes = [0, 1] * 10
    x = np.random.default_rng(0).standard_normal((20, 16))
    nan_x = x.copy()
    nan_x[3, 2] = np.nan
    (tmp / "plain.csv.gz").write_text("a,y\n1,0\n")
    blob = gzip.compress(("a,b,y\n" + "1,2,0\n" * 500).encode())
    (tmp / "cut.csv.gz").write_bytes(blob[: len(blob) // 2])
    (tmp / "latin1.csv").write_bytes("a,b,y\n1,2,caf\xe9\n3,4,th\xe9\n".encode("latin-1"))
    (tmp / "huge.csv").write_text("a,b,y\n1,2," + "x" * 200_000 + "\n")
    mnist = {name: tmp / name for name in ("cut", "plain", "header")}
    for d in mnist.values():
        d.mkdir()
    labels = gzip.compress(bytes([0, 0, 8, 1, 0, 0, 0, 4, 1, 2, 3, 4]))
    images = gzip.compress(bytes([0, 0, 8, 3, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4]) + bytes(64))
    for d in mnist.values():
        (d / "train-labels-idx1-ubyte.gz").write_bytes(labels)
    (mnist["cut"] / "train-images-idx3-ubyte.gz").write_bytes(images[:-12])
    (mnist["plain"] / "train-images-idx3-ubyte.gz").write_bytes(b"not gzip at all")
    (mnist["header"] / "train-images-idx3-ubyte").write_bytes(bytes([0, 0, 8, 3, 0, 0]))
    return [
        (["--data", _csv(tmp / "cont.csv", [0.37 * i for i in range(20)]), "--target", "y"],
         "column 'y' holds continuous values (e.g. 0.37), not class labels"),
        (["--data", _csv(tmp / "nanl.csv", classes[:-1] + ["nan"]), "--target", "y"],
         "column 'y' has missing or infinite labels (nan in row 20)"),
        (["--data", _csv(tmp / "empty.csv", classes[:4] + [""] + classes[5:]), "--target", "y"],
         "column 'y' has an empty label in row 5"),
        (["--data", _csv(tmp / "nanf.csv", classes, {7: "nan"}), "--target", "y"],
         "the features have missing or infinite values (NaN/inf), e.g. in row 8"),
        (["--data", _npz(tmp / "nany.npz", x, np.where(np.arange(20) == 4, np.nan, 1.0))],
         "'y' in"),
        (["--data", _npz(tmp / "cony.npz", x, np.linspace(0, 1, 20))], "continuous values"),
        (["--data", _npz(tmp / "nanx.npz", nan_x, classes)],
         "have missing or infinite values (NaN/inf), e.g. in row 4"),
        (["--data", _npz(tmp / "obj.npz", np.array([{"a": 1}] * 20, dtype=object), classes)],
         "array 'x' in"),
        (["--data", _npz(tmp / "flat.npz", np.arange(20.0), classes)],
         "features 'x' in"),
        (["--data", _npz(tmp / "four.npz", x[:, :4], classes), "--model", "cnn"],
         "--model cnn needs images of at least 4x4 pixels (it pools twice by 2); got 2x2"),
        (["--data", tmp / "latin1.csv", "--target", "y"], "is not UTF-8 text (byte 0xe9"),
        (["--data", tmp / "plain.csv.gz", "--target", "y"], "is not a gzip file"),
        (["--data", tmp / "cut.csv.gz", "--target", "y"], "is a truncated or corrupt gzip file"),
        (["--data", tmp / "huge.csv", "--target", "y"],
         "line 2: field larger than field limit (131072)"),
        (["--data", f"mnist:{mnist['cut']}"], "is a truncated or corrupt gzip file"),
        (["--data", f"mnist:{mnist['plain']}"], "is not a gzip file"),
        (["--data", f"mnist:{mnist['header']}"], "is truncated or damaged: its header"),
    ]


_SETTINGS = [
    (["--lr", "nan"], "--lr must be a finite number, got nan"),
    (["--lr", "inf"], "--lr must be a finite number, got inf"),
    (["--momentum", "nan"], "--momentum must be a finite number, got nan"),
    (["--weight-decay=-inf"], "--weight-decay must be a finite number, got -inf"),
    (["--val-fraction", "nan"], "--val-fraction must be a finite number, got nan"),
    (["--test-fraction", "nan"], "--test-fraction must be a finite number, got nan"),
    (["--seed", -1], "--seed must be >= 0, got -1"),
    (["--seed", 2 ** 64], "--seed must be < 2**64"),
    (["--batch-size", 0], "--batch-size must be >= 1, got 0"),
]


def _check_rejected(capsys, tmp_path, argv, message, out):
    listing, existed = sorted(os.listdir(tmp_path)), os.path.exists(out)
    try:
        code = train(*argv, "--out", out)
    except SystemExit as exit_:
        code = exit_.code
    captured = capsys.readouterr()
    err = captured.err.strip()
    assert code == 2, (argv, err)
    assert len(err.splitlines()) == 1 and message in err, (argv, err)
    assert err.startswith("ember train: error: ") and captured.out == ""
    assert sorted(os.listdir(tmp_path)) == listing, argv
    assert os.path.exists(out) == existed, argv  # never created


def test_bad_data_files(tmp_path, capsys):
    cases = _data_cases(tmp_path)
    for i, (argv, message) in enumerate(cases):
        _check_rejected(capsys, tmp_path, argv, message, tmp_path / f"out{i}")


@pytest.mark.parametrize("argv, message", _SETTINGS)
def test_bad_settings(tmp_path, capsys, argv, message):
    _check_rejected(capsys, tmp_path, argv, message, tmp_path / "out")


def test_a_utf8_bom_does_not_hide_the_label_column(tmp_path):
    rows = ["label,a,b"] + [f"{i % 2},{i},{i % 5}" for i in range(40)]  # BOM + "label"
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbf" + "\n".join(rows).encode())
    assert train("--data", tmp_path / "bom.csv", "--target", "label", "--epochs", 1,
                 "--out", tmp_path / "run") == 0


def test_bad_output_directories(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    _check_rejected(capsys, tmp_path, [], "--out '" + str(tmp_path / "file") + "' is a file",
                    tmp_path / "file")
    _check_rejected(capsys, tmp_path, [], "which is a file", tmp_path / "file" / "sub" / "run")
    if os.geteuid() == 0:  # root writes anywhere permissions allow nothing: use /proc
        unwritable = "/proc/ember-test-run"
    else:
        (tmp_path / "ro").mkdir(mode=0o500)
        unwritable = tmp_path / "ro" / "run"
    _check_rejected(capsys, tmp_path, [], "cannot be written", unwritable)
    assert (tmp_path / "file").read_text() == "x"


def _damaged(done, tmp, name, change):
    ckpt = ember.load(done / "last.ckpt")
    change(ckpt)
    path = tmp / name
    path.mkdir()
    ember.save(ckpt, path / "last.ckpt")
    return path / "last.ckpt"


def _bf16_checkpoint(done, tmp):
    """last.ckpt with one weight stored as BF16 (as a tool may rewrite it)."""
    from safetensors.torch import load_file, save_file
    header = json.loads((done / "last.ckpt").read_bytes()[8:][:int.from_bytes(
        (done / "last.ckpt").read_bytes()[:8], "little")])
    tensors = load_file(done / "last.ckpt")
    import torch
    tensors["model.1.weight"] = tensors["model.1.weight"].to(torch.bfloat16)
    (tmp / "bf16").mkdir()
    save_file(tensors, tmp / "bf16" / "last.ckpt", metadata=header["__metadata__"])
    return tmp / "bf16" / "last.ckpt"


def test_damaged_checkpoints(tmp_path, capsys, done_run):
    cases = [
        (lambda c: c.pop("config"), "is damaged: 'config' is missing"),
        (lambda c: c.pop("loader_rng"), "is damaged: 'loader_rng' is missing"),
        (lambda c: c.update(history=None), "is damaged: 'history' is null, expected list"),
        (lambda c: c.update(epoch="1"), "is damaged: 'epoch' is str, expected int"),
        (lambda c: c.update(history=[]), "'history' holds 0 entries for 1 epochs"),
        (lambda c: c["config"].update(lr=float("nan")),
         "its config is invalid (--lr must be a finite number, got nan)"),
        (lambda c: c["config"].update(model="rnn"), "--model must be one of mlp, cnn"),
        (lambda c: c["config"].update(colour="red"), "'config' has unknown settings: colour"),
        (lambda c: c.update(loader_rng=ember.zeros(3)), "does not fit this model/data"),
    ]
    for i, (change, message) in enumerate(cases):
        where = _damaged(done_run, tmp_path, f"c{i}", change)
        _check_rejected(capsys, tmp_path, ["--resume", where, "--epochs", 2], message,
                        tmp_path / f"out{i}")
    if not hasattr(ember, "bfloat16"):
        _check_rejected(capsys, tmp_path, ["--resume", _bf16_checkpoint(done_run, tmp_path),
                                           "--epochs", 2], "pip install ml_dtypes",
                        tmp_path / "outbf")


def test_resuming_into_another_runs_directory_is_refused(tmp_path, capsys, done_run):
    cnn = tmp_path / "cnn"
    assert train("--model", "cnn", "--epochs", 1, "--out", cnn) == 0
    capsys.readouterr()
    before = {n: (done_run / n).read_bytes() for n in os.listdir(done_run)}
    _check_rejected(capsys, tmp_path, ["--resume", cnn / "last.ckpt", "--epochs", 2],
                    "already holds another run (mlp/adam on digits, epoch 1) than", done_run)
    assert {n: (done_run / n).read_bytes() for n in os.listdir(done_run)} == before
