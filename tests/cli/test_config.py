"""`ember train`'s settings (ember/cli/_config.py): --out checks that create nothing, the command
line merged with a resumed checkpoint's config, and the checkpoint checks, called directly (the
same refusals through the command: tests/cli/test_command.py)."""
import os

import pytest

import ember
from ember.cli import UsageError, build_parser, main
from ember.cli._config import check_out, check_out_holds_no_other_run, load_checkpoint, resolve


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    out = tmp_path_factory.mktemp("done")
    assert main(["train", "--quiet", "--epochs", "1", "--out", str(out)]) == 0
    return out


def _args(*argv):
    return build_parser().parse_args(["train", *map(str, argv)])


def test_check_out_accepts_new_and_existing_directories_and_creates_nothing(tmp_path):
    check_out(str(tmp_path / "a" / "b"))
    check_out(str(tmp_path))
    assert os.listdir(tmp_path) == []


def test_check_out_refuses_files_and_paths_below_files(tmp_path):
    (tmp_path / "f").write_text("x")
    with pytest.raises(UsageError, match="is a file, not a directory"):
        check_out(str(tmp_path / "f"))
    with pytest.raises(UsageError, match="which is a file"):
        check_out(str(tmp_path / "f" / "run"))


def test_resolve_takes_command_line_over_defaults(tmp_path):
    cfg, ckpt, where, out = resolve(_args("--lr", 0.5, "--out", tmp_path / "run"))
    assert cfg["lr"] == 0.5 and cfg["optimizer"] == "adam" and ckpt is None and where is None
    assert out == str(tmp_path / "run")


def test_resolve_resumes_with_the_checkpoints_settings(done):
    cfg, ckpt, where, out = resolve(_args("--resume", "--out", done, "--epochs", 3))
    assert where == os.path.join(str(done), "last.ckpt") and out == str(done)
    assert cfg["epochs"] == 3 and ckpt["epoch"] == 1


def test_resolve_refuses_changed_settings_and_resume_without_out(done):
    with pytest.raises(UsageError, match="--lr 0.5 differs from the checkpoint's 0.001"):
        resolve(_args("--resume", "--out", done, "--lr", 0.5))
    with pytest.raises(UsageError, match="--resume needs --out DIR"):
        resolve(_args("--resume"))


def test_load_checkpoint_refuses_missing_and_foreign_files(tmp_path):
    with pytest.raises(UsageError, match="does not exist"):
        load_checkpoint(str(tmp_path / "none.ckpt"))
    ember.save({"w": ember.zeros(2)}, tmp_path / "other.ckpt")
    with pytest.raises(UsageError, match="is not a checkpoint written by `ember train`"):
        load_checkpoint(str(tmp_path / "other.ckpt"))


def test_load_checkpoint_names_the_damaged_field(done, tmp_path):
    ckpt = ember.load(done / "last.ckpt")
    ckpt["best"] = {"epoch": 1}
    ember.save(ckpt, tmp_path / "last.ckpt")
    with pytest.raises(UsageError, match="is damaged: 'best' needs an epoch and a val_acc"):
        load_checkpoint(str(tmp_path / "last.ckpt"))


def test_a_new_run_refuses_a_directory_holding_a_run(done):
    with pytest.raises(UsageError, match=r"already holds a run \(mlp/adam on digits, epoch 1\)"):
        check_out_holds_no_other_run(str(done), None, None)
    ckpt = load_checkpoint(str(done / "last.ckpt"))
    assert check_out_holds_no_other_run(str(done), ckpt, str(done / "last.ckpt")) is None
