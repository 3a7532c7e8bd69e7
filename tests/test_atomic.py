"""ember._atomic.atomic_write (under ember.save and `ember train`): modes, symlinks, stale temps."""
import os
import stat
import subprocess
import sys

import pytest

import ember
from ember._atomic import _HOST, atomic_write


def _mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_new_files_get_the_umask_mode_and_replaced_files_keep_theirs(tmp_path, umask_022):
    path = tmp_path / "c.pt"
    ember.save({"a": 1}, path)
    assert _mode(path) == 0o644  # what open(path, "wb") and torch.save give under umask 022
    os.chmod(path, 0o640)
    ember.save({"a": 2}, path)
    assert _mode(path) == 0o640 and ember.load(path) == {"a": 2}
    os.umask(0o077)
    atomic_write(tmp_path / "t.txt", "text")
    assert _mode(tmp_path / "t.txt") == 0o600


def test_saving_through_a_symlink_writes_its_target(tmp_path, umask_022):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "c.pt"
    ember.save({"v": 1}, target)
    os.chmod(target, 0o664)
    link = tmp_path / "link.pt"
    link.symlink_to(target)
    ember.save({"v": 2}, link)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert ember.load(target) == {"v": 2} and _mode(target) == 0o664
    assert sorted(os.listdir(tmp_path)) == ["link.pt", "real"]
    assert os.listdir(tmp_path / "real") == ["c.pt"]


def _dead_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_stale_temporaries_of_dead_writers_are_removed(tmp_path):
    dead, alive = _dead_pid(), os.getpid()
    stale = tmp_path / f".c.pt.{_HOST}-{dead}.0123abcd.tmp"
    live = tmp_path / f".c.pt.{_HOST}-{alive}.0123abcd.tmp"
    foreign = tmp_path / f".c.pt.otherhost-{dead}.0123abcd.tmp"
    other_target = tmp_path / f".d.pt.{_HOST}-{dead}.0123abcd.tmp"
    for p in (stale, live, foreign, other_target):
        p.write_bytes(b"partial")
    ember.save({"v": 1}, tmp_path / "c.pt")
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["c.pt", live.name, foreign.name, other_target.name])


def test_text_bytes_and_writer_functions(tmp_path):
    atomic_write(tmp_path / "a", "é")
    atomic_write(tmp_path / "b", b"\x00\x01")
    atomic_write(tmp_path / "c", lambda f: f.write(b"xyz"))
    assert (tmp_path / "a").read_text("utf-8") == "é"
    assert (tmp_path / "b").read_bytes() == b"\x00\x01"
    assert (tmp_path / "c").read_bytes() == b"xyz"
    with pytest.raises(ZeroDivisionError):
        atomic_write(tmp_path / "c", lambda f: 1 / 0)
    assert (tmp_path / "c").read_bytes() == b"xyz"
    assert sorted(os.listdir(tmp_path)) == ["a", "b", "c"]
