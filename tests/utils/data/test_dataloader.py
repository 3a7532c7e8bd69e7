"""DataLoader in the main process against torch's: batches, order, lengths, options, errors."""
import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import ember
import ember.utils.data as edata


def to_np(batch):
    if isinstance(batch, (list, tuple)):
        return [to_np(b) for b in batch]
    if isinstance(batch, dict):
        return {k: to_np(v) for k, v in batch.items()}
    return batch.numpy() if hasattr(batch, "numpy") else batch


def assert_same_batches(e_loader, t_loader):
    e, t = [to_np(b) for b in e_loader], [to_np(b) for b in t_loader]
    assert len(e) == len(t), f"{len(e)} batches vs torch's {len(t)}"
    for a, b in zip(e, t):
        np.testing.assert_equal(a, b)


def pair(n=10):
    x = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    y = np.arange(n) % 4
    return (edata.TensorDataset(ember.tensor(x), ember.tensor(y)),
            tdata.TensorDataset(torch.tensor(x), torch.tensor(y)))


@pytest.mark.parametrize("n,batch_size,drop_last", [(10, 3, False), (10, 3, True), (10, 5, True),
                                                    (3, 8, False), (3, 8, True), (10, None, False)])
def test_sequential_batches_and_len_match_torch(n, batch_size, drop_last):
    e_ds, t_ds = pair(n)
    e = edata.DataLoader(e_ds, batch_size=batch_size, drop_last=drop_last)
    t = tdata.DataLoader(t_ds, batch_size=batch_size, drop_last=drop_last)
    assert len(e) == len(t)
    assert_same_batches(e, t)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_explicit_sampler_and_batch_sampler_match_torch(seed):
    e_ds, t_ds = pair(11)
    order = np.random.default_rng(seed).permutation(11).tolist()
    assert_same_batches(edata.DataLoader(e_ds, batch_size=4, sampler=order),
                        tdata.DataLoader(t_ds, batch_size=4, sampler=order))
    batches = [order[:2], order[2:7], order[7:]]
    assert_same_batches(edata.DataLoader(e_ds, batch_sampler=batches),
                        tdata.DataLoader(t_ds, batch_sampler=batches))
    assert len(edata.DataLoader(e_ds, batch_sampler=batches)) == 3


def _shuffled_order(lib, data, loader_cls, n, seed):
    """Indices visited by loader_cls(shuffle=True, generator=seeded) and by the draw protocol
    torch follows: one base-seed draw per iterator, then randperm from the same generator."""
    g = lib.Generator().manual_seed(seed)
    loader = loader_cls(list(range(n)), batch_size=4, shuffle=True, generator=g)
    got = [i for b in loader for i in b.tolist()]
    g = lib.Generator().manual_seed(seed)
    lib.empty((), dtype=lib.int64).random_(generator=g)
    return got, lib.randperm(n, generator=g).tolist()


@pytest.mark.parametrize("seed", [0, 7])
def test_shuffle_with_generator_follows_torch_draw_protocol(seed):
    t_got, t_expected = _shuffled_order(torch, tdata, tdata.DataLoader, 13, seed)
    assert t_got == t_expected  # the protocol describes torch ...
    e_got, e_expected = _shuffled_order(ember, edata, edata.DataLoader, 13, seed)
    assert e_got == e_expected  # ... and ember follows it


def test_shuffle_reproducible_per_seed_and_new_order_each_epoch():
    def epochs(seed):
        loader = edata.DataLoader(list(range(50)), batch_size=7, shuffle=True,
                                  generator=ember.Generator().manual_seed(seed))
        return [[i for b in loader for i in b.tolist()] for _ in range(2)]
    a, b = epochs(3), epochs(3)
    assert a == b and a[0] != a[1] and sorted(a[0]) == list(range(50))
    ember.manual_seed(4)
    c = [i for b in edata.DataLoader(list(range(50)), shuffle=True) for i in b.tolist()]
    ember.manual_seed(4)
    assert c == [i for b in edata.DataLoader(list(range(50)), shuffle=True) for i in b.tolist()]


def test_iterable_dataset_batches_and_len_match_torch():
    def make(base):
        class Stream(base):
            def __iter__(self):
                return iter(range(10))

            def __len__(self):
                return 10
        return Stream()
    for bs, dl in [(3, False), (3, True), (None, False)]:
        e = edata.DataLoader(make(edata.IterableDataset), batch_size=bs, drop_last=dl)
        t = tdata.DataLoader(make(tdata.IterableDataset), batch_size=bs, drop_last=dl)
        assert len(e) == len(t)
        assert_same_batches(e, t)


def test_custom_collate_fn_and_dict_samples():
    e = edata.DataLoader([{"a": i, "b": [i, i]} for i in range(5)], batch_size=2)
    t = tdata.DataLoader([{"a": i, "b": [i, i]} for i in range(5)], batch_size=2)
    assert_same_batches(e, t)
    assert list(edata.DataLoader(range(5), batch_size=2, collate_fn=sum)) == [1, 5, 4]


BAD_OPTIONS = [dict(shuffle=True, sampler=[0]), dict(batch_sampler=[[0]], batch_size=2),
               dict(batch_sampler=[[0]], drop_last=True), dict(batch_size=None, drop_last=True),
               dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2),
               dict(persistent_workers=True), dict(num_workers=1, prefetch_factor=-1)]


@pytest.mark.parametrize("kwargs", BAD_OPTIONS)
def test_bad_options_match_torch(kwargs):
    with pytest.raises(ValueError) as t_info:
        tdata.DataLoader(list(range(5)), **kwargs)
    with pytest.raises(ValueError) as e_info:
        edata.DataLoader(list(range(5)), **kwargs)
    assert str(e_info.value) == str(t_info.value)


def test_iterable_dataset_rejects_shuffle_like_torch():
    for lib in (edata, tdata):
        class Stream(lib.IterableDataset):
            def __iter__(self):
                return iter(range(3))
        with pytest.raises(ValueError, match="expected unspecified shuffle option"):
            lib.DataLoader(Stream(), shuffle=True)


def test_fixed_attributes_cannot_be_set():
    loader = edata.DataLoader(list(range(4)))
    with pytest.raises(ValueError, match="batch_size attribute should not be set after"):
        loader.batch_size = 2
    assert edata.get_worker_info() is None


def test_worker_count_and_pin_memory_warnings_as_torch():
    """torch warns when an iterator starts with more workers than usable CPUs, and when
    pin_memory is asked for without an accelerator; ember was silent."""
    import os
    import warnings
    too_many = len(os.sched_getaffinity(0)) + 1
    seen = []
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            data = lib.utils.data.TensorDataset(lib.arange(8.0))
            for kwargs in (dict(num_workers=too_many), dict(pin_memory=True), dict()):
                list(lib.utils.data.DataLoader(data, batch_size=4, **kwargs))
        seen.append({str(w.message) for w in record if issubclass(w.category, UserWarning)})
    assert seen[1] == seen[0] and len(seen[0]) == 2
