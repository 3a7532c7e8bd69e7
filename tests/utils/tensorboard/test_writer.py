"""SummaryWriter (ember/utils/tensorboard/writer.py) writes TensorBoard event files that read back."""
import glob
import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import ember

event_pb2 = pytest.importorskip("tensorboardX.proto.event_pb2",
                                reason="tensorboardX (the `tensorboard` extra) is not installed")


def _events(directory):
    """Every Event in the directory's event files (TFRecord framing: length, crc, data, crc)."""
    events = []
    for path in sorted(glob.glob(os.path.join(directory, "**", "events.out.tfevents.*"),
                                 recursive=True)):
        blob = Path(path).read_bytes()
        at = 0
        while at < len(blob):
            (length,) = struct.unpack("<Q", blob[at:at + 8])
            event = event_pb2.Event()
            event.ParseFromString(blob[at + 12:at + 12 + length])
            events.append((os.path.relpath(os.path.dirname(path), directory), event))
            at += 12 + length + 4
    return events


def _scalars(events):
    return [(where, e.step, v.tag, v.simple_value) for where, e in events
            for v in e.summary.value if v.HasField("simple_value")]


def test_scalars_and_histograms_read_back(tmp_path):
    with ember.utils.tensorboard.SummaryWriter(log_dir=str(tmp_path)) as writer:
        for step in range(3):
            writer.add_scalar("loss", ember.tensor(1.5 / (step + 1)), step)
            writer.add_scalar("lr", 0.1, global_step=step)
        writer.add_scalars("acc", {"train": ember.tensor(0.75), "val": 0.5}, 7)
        writer.add_histogram("w", ember.arange(10.0), 2)
        writer.flush()
        assert writer.get_logdir() == str(tmp_path)
    events = _events(str(tmp_path))
    scalars = _scalars(events)
    assert [(s, v) for w, s, t, v in scalars if t == "loss" and w == "."] == \
        [(0, 1.5), (1, 0.75), (2, 0.5)]
    assert [(s, v) for w, s, t, v in scalars if t == "lr"] == [(i, np.float32(0.1)) for i in
                                                                range(3)]
    # one run directory per curve, named as torch's: <log_dir>/<main_tag>_<tag>
    assert sorted((w, s, v) for w, s, t, v in scalars if t == "acc") == \
        [("acc_train", 7, 0.75), ("acc_val", 7, 0.5)]
    histos = [(e.step, v.histo) for _, e in events for v in e.summary.value if v.tag == "w"]
    (step, histo), = histos
    assert step == 2 and (histo.min, histo.max, histo.num, histo.sum) == (0, 9, 10, 45)


def test_tags_and_runs_are_named_as_torch(tmp_path):
    """torch keeps tags as given (tensorboardX alone would write 'loss__train_'), reads '/' in
    add_scalars' main tag as '_' in the run's name, and writes new_style scalars as tensors."""
    with ember.utils.tensorboard.SummaryWriter(log_dir=str(tmp_path)) as writer:
        for step in range(2):
            writer.add_scalars("a/b c", {"x=1": ember.tensor(0.5 + step), "y": 2.0}, step)
            writer.add_scalar("loss (train)", 1.0 + step, step)
        writer.add_scalar("n", ember.tensor(3.0), 4, new_style=True)
        writer.add_scalar("d", 3.0, 5, new_style=True, double_precision=True)
        with pytest.raises(AssertionError, match="one element"):
            writer.add_scalar("bad", ember.ones(2))
    events = _events(str(tmp_path))
    assert sorted(_scalars(events)) == [
        (".", 0, "loss (train)", 1.0), (".", 1, "loss (train)", 2.0),
        ("a_b c_x=1", 0, "a/b c", 0.5), ("a_b c_x=1", 1, "a/b c", 1.5),
        ("a_b c_y", 0, "a/b c", 2.0), ("a_b c_y", 1, "a/b c", 2.0)]
    tensors = {v.tag: (e.step, v.metadata.plugin_data.plugin_name, list(v.tensor.float_val),
                       list(v.tensor.double_val)) for _, e in events for v in e.summary.value
               if v.HasField("tensor")}
    assert tensors == {"n": (4, "scalars", [3.0], []), "d": (5, "scalars", [], [3.0])}


def test_missing_tensorboardx_names_the_extra(tmp_path):
    script = tmp_path / "script.py"
    script.write_text("import sys\nsys.modules['tensorboardX'] = None\nimport ember\n"
                      "from ember.utils.tensorboard import SummaryWriter\n"
                      "try:\n    SummaryWriter('runs')\nexcept ImportError as error:\n"
                      "    print(error)\n")
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=tmp_path, env={"PYTHONPATH": str(root), "PATH": ""}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "tensorboardX" in done.stdout and "ember[tensorboard]" in done.stdout
