"""`ember train` from parsed arguments: validate everything, then train in one process or on
every rank of ``mpiexec -n N``."""
import os
import traceback

import ember
from ember import datasets
from ember._atomic import atomic_write
from ember.datasets import DataError
from ember.distributed._group import abort_job

from . import _mpi, _run
from ._args import UsageError
from ._config import resolve


def _prepare(args, dist):
    """Everything that can reject the input, before anything is written."""
    cfg, ckpt, where, out = resolve(args)
    x, y = datasets.load_source(cfg["data"], cfg["target"])
    splits = _run.prepare_data(cfg, x, y)
    run = _run.Run(cfg, splits, int(y.max()) + 1, dist)
    if ckpt is not None:
        run.restore(ckpt, where)
        if run.epoch >= cfg["epochs"] and _run.outputs_complete(out, run.epoch):
            raise UsageError(f"'{where}' has already trained {run.epoch} epochs; pass --epochs N "
                             f"with N > {run.epoch} to continue")
    return cfg, ckpt, where, out, run


def _carry_best(where, out, ckpt):
    """Resuming into another directory: bring the best model's checkpoint along, so that the
    test at the end uses it even if no later epoch is better."""
    source = os.path.join(os.path.dirname(where), "best.ckpt")
    target = os.path.join(out, "best.ckpt")
    if os.path.exists(target) or not os.path.isfile(source):
        return
    try:
        best = ember.load(source)
        fits = best.get("epoch") == ckpt["best"]["epoch"] and best.get("config") == ckpt["config"]
    except (RuntimeError, OSError, AttributeError):
        return  # damaged: the run ends testing its last model, and says so
    if fits:
        with open(source, "rb") as f:
            atomic_write(target, f.read())


def train(args):
    """Single process, or data-parallel on every rank of ``mpiexec -n N`` (N > 1)."""
    dist = _mpi.join_world()
    if dist is None:
        return _train_here(args, *_prepare(args, None))
    try:
        prepared, failed = _prepare(args, dist), None
    except (UsageError, DataError) as error:
        prepared, failed = None, error
    mine = _mpi.fingerprint(prepared[-1]) if prepared else None
    _mpi.agree(dist, failed, mine)  # all ranks go on, or all exit 2
    try:
        return _train_here(args, *prepared)
    except KeyboardInterrupt:  # the other ranks would wait for this one: end them all
        _abort(130, f"ember train: rank {dist.get_rank()} interrupted; aborting all "
               f"{dist.get_world_size()} ranks")
    except Exception as error:
        traceback.print_exc()
        _abort(1, f"ember train: rank {dist.get_rank()} raised {type(error).__name__}; "
               f"aborting all {dist.get_world_size()} ranks")


def _abort(code, message):
    """End every rank (MPI_Abort) after saying why on stderr."""
    abort_job(code, message)


def _resuming(cfg, ckpt, epoch, size):
    before = ckpt.get("world_size", 1)
    if epoch >= cfg["epochs"]:
        return f"; completing the outputs of its {epoch} epochs"
    longer = ckpt["config"]["epochs"] != cfg["epochs"] and cfg["scheduler"] in ("step", "cosine")
    replanned = (f"; the {cfg['scheduler']} schedule is re-planned for {cfg['epochs']} epochs"
                 if longer else "")
    return f"; resuming after epoch {epoch}" + replanned + (
        f" (trained on {before} rank(s) so far: the data order changes)" if before != size
        else "")


def _say(line):
    print(line, flush=True)  # each line out at once, even if an MPI abort ends the job next


def _train_here(args, cfg, ckpt, where, out, run):
    lead = run.rank == 0
    if lead:
        os.makedirs(out, exist_ok=True)
        if ckpt is not None:
            _carry_best(where, out, ckpt)
        size = run.dist.get_world_size() if run.dist else 1
        parallel = (f"; data-parallel on {size} ranks, batch {cfg['batch_size']} per rank "
                    f"({cfg['batch_size'] * size} per step)" if size > 1 else "")
        print(f"ember train: {cfg['model']} on {cfg['data'] or 'UCI digits (bundled)'}: "
              f"{len(run.splits['train'][1])} train / {len(run.splits['val'][1])} val / "
              f"{len(run.splits['test'][1])} test samples; {cfg['optimizer']} lr {cfg['lr']}"
              + parallel + (_resuming(cfg, ckpt, run.epoch, size) if ckpt else ""), flush=True)
    run.fit(out, quiet=args.quiet, say=_say)
    if run.dist is not None:
        run.dist.destroy_process_group()
    return 0


