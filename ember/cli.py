"""The `ember` command: `ember train` (the main job), `ember info`, `ember compat`."""
import argparse
import os
import sys

OPTIMIZERS = ("sgd", "adam", "adamw", "rmsprop", "adagrad", "nadam", "radam", "adamax")
SCHEDULERS = ("none", "step", "cosine", "exponential")
DEFAULTS = {"model": "mlp", "optimizer": "adam", "lr": 1e-3, "momentum": 0.9, "weight_decay": 0.0,
            "scheduler": "none", "epochs": 20, "batch_size": 32, "seed": 0, "data": None,
            "target": None, "val_fraction": 0.1, "test_fraction": 0.2}


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad arguments in one line (exit code 2), without the usage block."""

    def error(self, message):
        from ._train_mpi import launched_rank
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
    from ._train import UsageError
    return UsageError(message)


def _default_out():
    n = 1
    while os.path.exists(os.path.join("runs", f"train{n}")):
        n += 1
    return os.path.join("runs", f"train{n}")


def _resolve(args):
    """Merge command line, checkpoint and defaults; validate before anything is written."""
    import ember
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


def _prepare(args, dist):
    """Everything that can reject the input, before anything is written."""
    from . import _train
    from .datasets import load_source
    cfg, ckpt, where, out = _resolve(args)
    x, y = load_source(cfg["data"], cfg["target"])
    splits = _train.prepare_data(cfg, x, y)
    run = _train.Run(cfg, splits, int(y.max()) + 1, dist)
    if ckpt is not None:
        run.restore(ckpt, where)
        if run.epoch >= cfg["epochs"]:
            raise _usage(f"'{where}' has already trained {run.epoch} epochs; pass --epochs N "
                         f"with N > {run.epoch} to continue")
    return cfg, ckpt, out, run


def train(args):
    """Single process, or data-parallel on every rank of ``mpiexec -n N`` (N > 1)."""
    from . import _train, _train_mpi
    from .datasets import DataError
    dist = _train_mpi.join_world()
    if dist is None:
        return _train_here(args, *_prepare(args, None))
    try:
        prepared, failed = _prepare(args, dist), None
    except (_train.UsageError, DataError) as error:
        prepared, failed = None, error
    mine = _train_mpi.fingerprint(prepared[-1]) if prepared else None
    _train_mpi.agree(dist, failed, mine)  # all ranks go on, or all exit 2
    try:
        return _train_here(args, *prepared)
    except KeyboardInterrupt:  # the other ranks would wait for this one: end them all
        _abort(130, f"ember train: rank {dist.get_rank()} interrupted; aborting all "
               f"{dist.get_world_size()} ranks")
    except Exception as error:
        import traceback
        traceback.print_exc()
        _abort(1, f"ember train: rank {dist.get_rank()} raised {type(error).__name__}; "
               f"aborting all {dist.get_world_size()} ranks")


def _abort(code, message):
    """End every rank (MPI_Abort) after saying why on stderr."""
    from .distributed._group import abort_job
    abort_job(code, message)


def _resuming(ckpt, epoch, size):
    before = ckpt.get("world_size", 1)
    return f"; resuming after epoch {epoch}" + (
        f" (trained on {before} rank(s) so far: the data order changes)" if before != size
        else "")


def _say(line):
    print(line, flush=True)  # each line out at once, even if an MPI abort ends the job next


def _train_here(args, cfg, ckpt, out, run):
    lead = run.rank == 0
    if lead:
        os.makedirs(out, exist_ok=True)
        size = run.dist.get_world_size() if run.dist else 1
        parallel = (f"; data-parallel on {size} ranks, batch {cfg['batch_size']} per rank "
                    f"({cfg['batch_size'] * size} per step)" if size > 1 else "")
        print(f"ember train: {cfg['model']} on {cfg['data'] or 'UCI digits (bundled)'}: "
              f"{len(run.splits['train'][1])} train / {len(run.splits['val'][1])} val / "
              f"{len(run.splits['test'][1])} test samples; {cfg['optimizer']} lr {cfg['lr']}"
              + parallel + (_resuming(ckpt, run.epoch, size) if ckpt else ""), flush=True)
    run.fit(out, quiet=args.quiet, say=_say)
    if run.dist is not None:
        run.dist.destroy_process_group()
    return 0


def info():
    """Print versions, NumPy's BLAS and thread settings."""
    import platform

    import numpy as np

    import ember
    print(f"ember {ember.__version__} ({os.path.dirname(ember.__file__)})")
    print(f"python {platform.python_version()} on {platform.platform()}")
    print(f"numpy {np.__version__}")
    for name in ("safetensors", "tqdm", "matplotlib"):
        try:
            module = __import__(name)
            print(f"{name} {getattr(module, '__version__', '?')}")
        except ImportError:
            print(f"{name} not installed")
    print(f"BLAS: {_blas_name(np)}")
    print(f"CPU cores: {os.cpu_count()}; usable: {len(os.sched_getaffinity(0))}"
          if hasattr(os, "sched_getaffinity") else f"CPU cores: {os.cpu_count()}")
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        print(f"{var}={os.environ.get(var, '(unset)')}")
    return 0


def _blas_name(np):
    try:
        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return f"{blas.get('name')} {blas.get('version', '')}".strip()
    except Exception:  # older NumPy without mode="dicts"
        return "unknown (see numpy.show_config())"


def main(argv=None):
    """Entry point of the `ember` console script; returns the exit code."""
    from ._train import PeerFailed, UsageError
    from .datasets import DataError
    args = build_parser().parse_args(argv)
    try:
        if args.command == "train":
            return train(args)
        if args.command == "info":
            return info()
        from ._compat import compat_command
        return compat_command(args.write)
    except (UsageError, DataError) as error:
        if not isinstance(error, PeerFailed):  # the failing rank reports it
            print(f"ember {args.command}: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"ember {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
