"""Worker: `ember train` (ember.cli.main) on every rank, with rank 1 failing as argv[1] says.

Modes: "none" (plain `ember train`); "data" (rank 1 alone cannot read the data); "otherdata" /
"othervalues" (rank 1 reads one sample fewer / other pixel values); "raise" / "interrupt" (an
exception / Ctrl-C on rank 1 after the first step of epoch 2). Other arguments go to `ember train`.
"""
import itertools
import os
import sys

from ember import cli, datasets
from ember.cli import _run


def fail_on_rank_1(mode):
    if mode == "none" or os.environ.get("PMI_RANK", os.environ.get("OMPI_COMM_WORLD_RANK")) != "1":
        return
    if mode in ("otherdata", "othervalues"):
        real_load = datasets.load_source

        def other(*args):
            x, y = real_load(*args)
            return (x[:-1], y[:-1]) if mode == "otherdata" else (x + (x == x.max()), y)
        datasets.load_source = other
        return
    if mode == "data":
        def unreadable(*args):
            raise datasets.DataError("permission denied: 'digits' (on this rank only)")
        datasets.load_source = unreadable
        return
    real = _run._train_epoch

    def failing(model, loader, optimizer, epoch, epochs, quiet):
        if epoch < 2:
            return real(model, loader, optimizer, epoch, epochs, quiet)
        # one synchronized step first: rank 0 is then past its epoch-1 summary
        real(model, itertools.islice(loader, 1), optimizer, epoch, epochs, quiet)
        raise RuntimeError("rank 1 failed in epoch 2") if mode == "raise" else KeyboardInterrupt
    _run._train_epoch = failing


if __name__ == "__main__":
    fail_on_rank_1(sys.argv[1])
    code = cli.main(["train", *sys.argv[2:]])
    print(f"EXIT {code}", flush=True)
    sys.exit(code)
