"""The one atomic file write of ember (checkpoints, `ember train` outputs): all or nothing."""
import os
import re
import secrets
import socket
import stat

_HOST = re.sub(r"[^A-Za-z0-9_-]", "_", socket.gethostname()) or "host"


def _temp_pattern(base):
    """Matches the temporaries `atomic_write` makes for a target named ``base``."""
    return re.compile(rf"^\.{re.escape(base)}\.(?P<host>[A-Za-z0-9_-]+)-(?P<pid>\d+)"
                      r"\.[0-9a-f]{8}\.tmp$")


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # e.g. PermissionError: it exists, owned by someone else
        return True
    return True


def remove_stale_temporaries(directory, base):
    """Delete temporaries of ``base`` left by writers on this host that died (kill -9) mid-write.
    Those of live processes (a concurrent save) and of other hosts are left alone."""
    if os.name != "posix":  # os.kill(pid, 0) would not be a liveness test there
        return
    pattern = _temp_pattern(base)
    try:
        names = os.listdir(directory)
    except OSError:
        return
    for name in names:
        match = pattern.match(name)
        if match and match["host"] == _HOST and not _alive(int(match["pid"])):
            try:
                os.unlink(os.path.join(directory, name))
            except OSError:
                pass


def _fsync_dir(directory):
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # e.g. platforms that cannot open directories
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _existing_mode(target):
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        return None


def atomic_write(path, data):
    """Write ``data`` (bytes, str, or a callable given the open binary file) to ``path``.

    The data goes to a temporary file beside the target, is fsynced, then renamed over it: a
    crash leaves the previous file intact. A symlink is followed (its target is replaced, the
    link stays); a new file gets the umask's mode (0644 under umask 022), a replaced one keeps
    its mode. Temporaries that earlier killed writers left for this target are removed."""
    target = os.path.realpath(os.fspath(path))
    directory, base = os.path.split(target)
    remove_stale_temporaries(directory, base)
    mode = _existing_mode(target)
    tmp = os.path.join(directory, f".{base}.{_HOST}-{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            if mode is not None:
                os.chmod(tmp, mode)
            _write(f, data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    _fsync_dir(directory)


def _write(f, data, chunk=1 << 24):
    if callable(data):
        data(f)
        return
    view = memoryview(data.encode("utf-8") if isinstance(data, str) else data).cast("B")
    for start in range(0, len(view), chunk):
        f.write(view[start:start + chunk])
