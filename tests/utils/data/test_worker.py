"""DataLoader with worker processes: same batches as torch, seeding, persistence, errors, no hangs."""
import multiprocessing
import os
import time

import numpy as np
import pytest
import torch.utils.data as tdata
from test_dataloader import assert_same_batches, pair

import ember
import ember.utils.data as edata


@pytest.mark.parametrize("num_workers,prefetch", [(1, None), (2, 1), (3, 3)])
def test_map_style_batches_match_torch(num_workers, prefetch):
    e_ds, t_ds = pair(23)
    kw = dict(batch_size=4, num_workers=num_workers, prefetch_factor=prefetch)
    assert_same_batches(edata.DataLoader(e_ds, **kw), tdata.DataLoader(t_ds, **kw))
    order = np.random.default_rng(0).permutation(23).tolist()
    assert_same_batches(edata.DataLoader(e_ds, sampler=order, drop_last=True, **kw),
                        tdata.DataLoader(t_ds, sampler=order, drop_last=True, **kw))


def _sharded_stream(lib):
    class Sharded(lib.IterableDataset):
        """Worker k of n yields k, k+n, ... below 13 (the pattern torch's docs recommend)."""

        def __iter__(self):
            info = lib.get_worker_info()
            start, step = (0, 1) if info is None else (info.id, info.num_workers)
            return iter(range(start, 13, step))
    return Sharded()


@pytest.mark.parametrize("batch_size", [None, 2])
def test_iterable_dataset_interleaving_matches_torch(batch_size):
    kw = dict(batch_size=batch_size, num_workers=3)
    assert_same_batches(edata.DataLoader(_sharded_stream(edata), **kw),
                        tdata.DataLoader(_sharded_stream(tdata), **kw))


class WhoAmI(edata.Dataset):
    def __getitem__(self, i):
        info = edata.get_worker_info()
        return [info.id, info.seed, os.getpid(), os.environ.get("INIT_MARK", ""),
                float(ember.rand(1).item())]

    def __len__(self):
        return 8


def _mark(worker_id):
    os.environ["INIT_MARK"] = f"init{worker_id}"


def test_worker_init_fn_info_and_seeds():
    rows = [b for b in edata.DataLoader(WhoAmI(), batch_size=None, num_workers=2,
                                         worker_init_fn=_mark,
                                         generator=ember.Generator().manual_seed(1))]
    ids = [r[0] for r in rows]
    assert ids == [0, 1] * 4  # tasks go to workers round-robin
    assert all(r[3] == f"init{r[0]}" for r in rows)
    seeds = {r[0]: r[1] for r in rows}
    assert seeds[1] == seeds[0] + 1  # base_seed + worker_id, as torch
    assert len({r[2] for r in rows}) == 2 and os.getpid() not in {r[2] for r in rows}
    first = [r[4] for r in rows if r[0] == 0][0]
    again = [b for b in edata.DataLoader(WhoAmI(), batch_size=None, num_workers=2,
                                          generator=ember.Generator().manual_seed(1))]
    assert [r[4] for r in again if r[0] == 0][0] == first  # the loader's generator seeds workers


def test_persistent_workers_survive_epochs_and_restart_cleanly():
    loader = edata.DataLoader(WhoAmI(), batch_size=2, num_workers=2, persistent_workers=True)
    pids = [set(b[2].tolist()) for b in loader]
    it = iter(loader)
    next(it)  # abandon this epoch part way
    again = [b for b in loader]
    assert len(again) == 4 and set().union(*pids) == set().union(
        *[set(b[2].tolist()) for b in again])
    assert [b[0].tolist() for b in again] == [[0, 0], [1, 1]] * 2


def test_persistent_workers_restart_iterable_datasets():
    loader = edata.DataLoader(_sharded_stream(edata), batch_size=None, num_workers=2,
                              persistent_workers=True)
    first = [int(x) for x in loader]
    assert sorted(first) == list(range(13)) and [int(x) for x in loader] == first


class Faulty(edata.Dataset):
    def __init__(self, mode):
        self.mode = mode

    def __getitem__(self, i):
        if i == 3:
            if self.mode == "raise":
                raise ValueError(f"bad sample {i}")
            if self.mode == "key":
                raise KeyError("missing")
            if self.mode == "die":
                os._exit(3)
            time.sleep(30)
        return i

    def __len__(self):
        return 6


def test_worker_exception_surfaces_with_traceback():
    loader = edata.DataLoader(Faulty("raise"), batch_size=2, num_workers=2)
    with pytest.raises(ValueError) as info:
        list(loader)
    msg = str(info.value)
    assert "Caught ValueError in DataLoader worker process 1" in msg
    assert "Original Traceback" in msg and "bad sample 3" in msg and "__getitem__" in msg
    with pytest.raises(KeyError, match="Caught KeyError"):
        list(edata.DataLoader(Faulty("key"), batch_size=2, num_workers=2))


def test_worker_init_fn_error_surfaces():
    def broken(worker_id):
        raise RuntimeError(f"init failed in {worker_id}")
    with pytest.raises(RuntimeError, match="init failed in 0"):
        list(edata.DataLoader(list(range(4)), num_workers=1, worker_init_fn=broken))


def test_dead_worker_raises_instead_of_hanging():
    loader = edata.DataLoader(Faulty("die"), batch_size=2, num_workers=2)
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited"):
        list(loader)


def test_timeout_raises_instead_of_hanging():
    it = iter(edata.DataLoader(Faulty("sleep"), batch_size=2, num_workers=2, timeout=0.5))
    assert next(it).tolist() == [0, 1]
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.5 seconds"):
        next(it)
    assert not any(w.is_alive() for w in it._workers)


def test_workers_exit_after_epoch_and_context_argument():
    e_ds, t_ds = pair(9)
    it = iter(edata.DataLoader(e_ds, batch_size=4, num_workers=2))
    list(it)
    assert not any(w.is_alive() for w in it._workers)
    context = multiprocessing.get_context("fork")
    assert_same_batches(edata.DataLoader(e_ds, batch_size=4, num_workers=1,
                                         multiprocessing_context=context),
                        tdata.DataLoader(t_ds, batch_size=4))
