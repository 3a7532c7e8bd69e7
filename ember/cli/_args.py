"""`ember train`'s command line: the parser, defaults, and the checks that run before anything
is written (bad input: one line on stderr, exit code 2)."""
import argparse
import math

from ember.distributed._launch import launched_rank


class UsageError(ValueError):
    """Bad input to `ember train`: reported as one line, exit code 2."""


class PeerFailed(UsageError):
    """Another rank of an MPI launch rejected its input (that rank reports it): exit code 2."""


MODELS = ("mlp", "cnn")
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
    p.add_argument("--model", choices=MODELS)
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


_CHOICES = {"model": MODELS, "optimizer": OPTIMIZERS, "scheduler": SCHEDULERS}
_REALS = ("lr", "momentum", "weight_decay", "val_fraction", "test_fraction")
_INTEGERS = (("epochs", 1), ("batch_size", 1), ("seed", 0))
_SEED_LIMIT = 2 ** 64  # torch.manual_seed's range (non-negative part)


def flag(key):
    return "--" + key.replace("_", "-")


def _check_integers(cfg):
    for key, low in _INTEGERS:
        if type(cfg[key]) is not int or cfg[key] < low:
            raise UsageError(f"{flag(key)} must be >= {low}, got {cfg[key]!r}")
    if cfg["seed"] >= _SEED_LIMIT:
        raise UsageError(f"--seed must be < 2**64, got {cfg['seed']}")


def check_values(cfg):
    """Every setting in range (NaN and inf included), whether from the command line or from a
    checkpoint's config."""
    for key, choices in _CHOICES.items():
        if cfg[key] not in choices:
            raise UsageError(f"{flag(key)} must be one of {', '.join(choices)}, got {cfg[key]!r}")
    for key in _REALS:
        value = cfg[key]
        if type(value) not in (int, float) or not math.isfinite(value):
            raise UsageError(f"{flag(key)} must be a finite number, got {value!r}")
    for key in ("lr", "momentum", "weight_decay"):
        if cfg[key] < 0:
            raise UsageError(f"{flag(key)} must be >= 0, got {cfg[key]}")
    _check_integers(cfg)
    fractions = cfg["val_fraction"], cfg["test_fraction"]
    if min(fractions) <= 0 or sum(fractions) >= 1:
        raise UsageError("--val-fraction and --test-fraction must be > 0 and sum to less than 1")
    for key in ("data", "target"):
        if cfg[key] is not None and not isinstance(cfg[key], str):
            raise UsageError(f"{flag(key)} must be a string, got {cfg[key]!r}")
    if cfg["target"] and not (cfg["data"] or "").lower().endswith((".csv", ".csv.gz", ".npz")):
        raise UsageError("--target needs --data FILE.csv (or FILE.npz)")
