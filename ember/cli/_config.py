"""`ember train`'s settings: command line merged with a checkpoint's config and the defaults,
the checkpoint and --out checked, all before anything is written."""
import errno
import os
import tempfile

import ember

from ._args import DEFAULTS, UsageError, check_values, flag
from ._run import CHECKPOINT_FORMAT, OUTPUTS


def _default_out():
    n = 1
    while os.path.exists(os.path.join("runs", f"train{n}")):
        n += 1
    return os.path.join("runs", f"train{n}")


def check_out(out):
    """--out must be a directory this process can create or write into; nothing is created."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise UsageError(f"--out '{out}' is a file, not a directory")
    existing = os.path.abspath(out)
    while not os.path.exists(existing):  # the nearest ancestor that exists
        existing = os.path.dirname(existing)
    if not os.path.isdir(existing):
        raise UsageError(f"--out '{out}' is below '{existing}', which is a file")
    try:
        if not os.access(existing, os.W_OK | os.X_OK):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        os.rmdir(tempfile.mkdtemp(prefix=".ember-write-test-", dir=existing))
    except OSError as error:
        raise UsageError(f"--out '{out}' cannot be written: {error.strerror} in "
                         f"'{existing}'") from None


def resolve(args):
    """Merge command line, checkpoint and defaults; validate before anything is written."""
    given = {k: getattr(args, k) for k in DEFAULTS if getattr(args, k) is not None}
    ckpt, where = None, None
    if args.resume:
        where = args.resume if isinstance(args.resume, str) else (
            os.path.join(args.out, "last.ckpt") if args.out else None)
        if where is None:
            raise UsageError("--resume needs --out DIR (or a checkpoint path)")
        ckpt = load_checkpoint(where)
    cfg = dict(DEFAULTS, **(ckpt["config"] if ckpt else {}))
    for key, value in given.items():
        if ckpt and key != "epochs" and value != cfg[key]:
            raise UsageError(f"{flag(key)} {value} differs from the checkpoint's "
                             f"{cfg[key]!r} ('{where}'); a resumed run keeps its settings")
        cfg[key] = value
    check_values(cfg)
    out = args.out or (os.path.dirname(where) or "." if where else _default_out())
    check_out(out)
    check_out_holds_no_other_run(out, ckpt, where)
    return cfg, ckpt, where, out


# what a checkpoint of `ember train` must hold, and of which type
_FIELDS = {"config": dict, "epoch": int, "model": dict, "optimizer": dict, "loader_rng": None,
           "global_rng": None, "history": list, "best": dict}


def _kind(value):
    return "null" if value is None else type(value).__name__


def _check_fields(ckpt):
    """The first thing wrong with a checkpoint's fields, or None."""
    for key, kind in _FIELDS.items():
        if key not in ckpt:
            return f"'{key}' is missing"
        value = ckpt[key]
        expected = kind or ember.Tensor
        if not isinstance(value, expected) or isinstance(value, bool):
            return f"'{key}' is {_kind(value)}, expected {expected.__name__}"
    if not (ckpt["scheduler"] is None or isinstance(ckpt["scheduler"], dict)):
        return f"'scheduler' is {_kind(ckpt['scheduler'])}, expected dict or null"
    if len(ckpt["history"]) != ckpt["epoch"] or not all(
            isinstance(h, dict) for h in ckpt["history"]):
        return (f"'history' holds {len(ckpt['history'])} entries for {ckpt['epoch']} epochs")
    unknown = sorted(set(map(str, ckpt["config"])) - set(DEFAULTS))
    if unknown:
        return f"'config' has unknown settings: {', '.join(unknown)}"
    best = ckpt["best"]
    if not (isinstance(best.get("epoch"), int) and isinstance(best.get("val_acc"), float)):
        return "'best' needs an epoch and a val_acc"
    return None


def load_checkpoint(where):
    """The checkpoint at ``where``, checked field by field: UsageError naming what is wrong."""
    if not os.path.isfile(where):
        raise UsageError(f"no checkpoint to resume: '{where}' does not exist")
    try:
        ckpt = ember.load(where)
    except (RuntimeError, OSError) as error:
        raise UsageError(str(error)) from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        raise UsageError(f"'{where}' is not a checkpoint written by `ember train`")
    problem = _check_fields(ckpt)
    if problem is None:
        try:
            check_values(dict(DEFAULTS, **ckpt["config"]))
        except UsageError as error:
            problem = f"its config is invalid ({error})"
    if problem:
        raise UsageError(f"'{where}' is damaged: {problem}")
    return ckpt


def _describe(ckpt):
    cfg = ckpt["config"]
    return (f"{cfg.get('model')}/{cfg.get('optimizer')} on {cfg.get('data') or 'digits'}, "
            f"epoch {ckpt['epoch']}")


def _held_run(out):
    """A description of the run whose outputs ``out`` holds (None if it holds none)."""
    present = [name for name in OUTPUTS if os.path.exists(os.path.join(out, name))]
    if not present:
        return None
    try:
        return _describe(ember.load(os.path.join(out, "last.ckpt")))
    except (RuntimeError, OSError, KeyError, TypeError):
        return f"{', '.join(present)}"


def _same_directory(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def check_out_holds_no_other_run(out, ckpt, where):
    """A new run needs an --out without a run; a resumed one, its own directory or an empty one
    (never another run's, whose checkpoints and metrics it would overwrite)."""
    held = _held_run(out)
    if held is None:
        return
    if ckpt is None:
        raise UsageError(f"'{out}' already holds a run ({held}); pass --resume to continue it "
                         "or choose another --out")
    if not _same_directory(out, os.path.dirname(where) or "."):
        raise UsageError(f"--out '{out}' already holds another run ({held}) than '{where}' "
                         f"({_describe(ckpt)}); resuming there would overwrite it: choose an "
                         "empty --out")
