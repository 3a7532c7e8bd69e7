"""`ember train`'s command line: the parser, defaults, and the checks that run before anything
is written (bad input: one line on stderr, exit code 2)."""
import argparse
import os

import ember
from ember.distributed._launch import launched_rank


class UsageError(ValueError):
    """Bad input to `ember train`: reported as one line, exit code 2."""


class PeerFailed(UsageError):
    """Another rank of an MPI launch rejected its input (that rank reports it): exit code 2."""


OPTIMIZERS = ("sgd", "adam", "adamw", "rmsprop", "adagrad", "nadam", "radam", "adamax")
SCHEDULERS = ("none", "step", "cosine", "exponential")
DEFAULTS = {"model": "mlp", "optimizer": "adam", "lr": 1e-3, "momentum": 0.9, "weight_decay": 0.0,
            "scheduler": "none", "epochs": 20, "batch_size": 32, "seed": 0, "data": None,
            "target": None, "val_fraction": 0.1, "test_fraction": 0.2}


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad arguments in one line (exit code 2), without the usage block."""

    def error(self, message):
        self.exit(2, None if launched_rank() else f"{self.prog}: error: {message}\n")


def _train_parser(sub):
    p = sub.add_parser("train", help="train a classifier (default: the bundled UCI digits)",
                       description="Train an MLP or CNN classifier; without --data it uses the "
                       "UCI digits shipped inside ember (nothing is downloaded). Under "
                       "`mpiexec -n N` it trains data-parallel on N ranks (rank 0 writes --out).")
    p.add_argument("--model", choices=("mlp", "cnn"))
    p.add_argument("--optimizer", choices=OPTIMIZERS)
    p.add_argument("--lr", type=float)
    p.add_argument("--momentum", type=float, help="for sgd and rmsprop")
    p.add_argument("--weight-decay", type=float)
    p.add_argument("--scheduler", choices=SCHEDULERS, help="learning-rate schedule per epoch")
    p.add_argument("--epochs", type=int)
    p.add_argument("--batch-size", type=int, help="samples per step (per rank under mpiexec -n N)")
    p.add_argument("--seed", type=int)
    p.add_argument("--val-fraction", type=float)
    p.add_argument("--test-fraction", type=float)
    p.add_argument("--data", help="FILE.csv (with --target COLUMN), FILE.npz (arrays x, y) or "
                   "mnist:DIR (IDX files)")
    p.add_argument("--target", help="label column of a CSV file")
    p.add_argument("--out", help="output directory (default: a new runs/trainN)")
    p.add_argument("--resume", nargs="?", const=True, metavar="CHECKPOINT",
                   help="continue from --out's last.ckpt (or the given checkpoint)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def build_parser():
    parser = _Parser(prog="ember", description="ember: PyTorch's training core over NumPy")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _train_parser(sub)
    sub.add_parser("info", help="versions, the BLAS NumPy uses, thread counts")
    compat = sub.add_parser("compat", help="print the torch API compatibility table (markdown)")
    compat.add_argument("--write", metavar="README", help="replace the table in this file")
    return parser


def _check_values(cfg):
    for key in ("lr", "momentum", "weight_decay"):
        if cfg[key] < 0:
            raise _usage(f"--{key.replace('_', '-')} must be >= 0, got {cfg[key]}")
    for key in ("epochs", "batch_size"):
        if cfg[key] < 1:
            raise _usage(f"--{key.replace('_', '-')} must be >= 1, got {cfg[key]}")
    fractions = cfg["val_fraction"], cfg["test_fraction"]
    if min(fractions) <= 0 or sum(fractions) >= 1:
        raise _usage("--val-fraction and --test-fraction must be > 0 and sum to less than 1")
    if cfg["target"] and not (cfg["data"] or "").lower().endswith((".csv", ".csv.gz", ".npz")):
        raise _usage("--target needs --data FILE.csv (or FILE.npz)")


def _usage(message):
    return UsageError(message)


def _default_out():
    n = 1
    while os.path.exists(os.path.join("runs", f"train{n}")):
        n += 1
    return os.path.join("runs", f"train{n}")


def resolve(args):
    """Merge command line, checkpoint and defaults; validate before anything is written."""
    given = {k: getattr(args, k) for k in DEFAULTS if getattr(args, k) is not None}
    ckpt, where = None, None
    if args.resume:
        where = args.resume if isinstance(args.resume, str) else (
            os.path.join(args.out, "last.ckpt") if args.out else None)
        if where is None:
            raise _usage("--resume needs --out DIR (or a checkpoint path)")
        if not os.path.isfile(where):
            raise _usage(f"no checkpoint to resume: '{where}' does not exist")
        try:
            ckpt = ember.load(where)
        except (RuntimeError, OSError) as error:
            raise _usage(str(error)) from None
        if not isinstance(ckpt, dict) or ckpt.get("format") != "ember-train/1":
            raise _usage(f"'{where}' is not a checkpoint written by `ember train`")
    cfg = dict(DEFAULTS, **(ckpt["config"] if ckpt else {}))
    for key, value in given.items():
        if ckpt and key != "epochs" and value != cfg[key]:
            raise _usage(f"--{key.replace('_', '-')} {value} differs from the checkpoint's "
                         f"{cfg[key]!r} ('{where}'); a resumed run keeps its settings")
        cfg[key] = value
    _check_values(cfg)
    out = args.out or (os.path.dirname(where) if where else _default_out())
    if not ckpt and os.path.exists(os.path.join(out, "last.ckpt")):
        raise _usage(f"'{out}' already holds a run; pass --resume to continue it or choose "
                     "another --out")
    return cfg, ckpt, where, out


