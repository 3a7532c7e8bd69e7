"""Whole-batch fetch of in-memory datasets: the same batches as torch's sample-by-sample path."""
import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import ember
import ember.utils.data as edata


def _arrays(n=50):
    rng = np.random.default_rng(0)
    return (rng.standard_normal((n, 3, 2)).astype(np.float32), rng.integers(0, 9, n),
            rng.standard_normal(n))


def _epochs(lib, data, dataset, seed, **kwargs):
    lib.manual_seed(seed)
    loader = data.DataLoader(dataset, batch_size=8, shuffle=True, **kwargs)
    return [[[t.numpy() for t in batch] for batch in loader] for _ in range(2)]


def _assert_same(e_epochs, t_epochs):
    assert len(e_epochs) == len(t_epochs)
    for e_epoch, t_epoch in zip(e_epochs, t_epochs):
        assert len(e_epoch) == len(t_epoch)
        for e_batch, t_batch in zip(e_epoch, t_epoch):
            assert len(e_batch) == len(t_batch)
            for a, b in zip(e_batch, t_batch):
                assert a.dtype == b.dtype and a.shape == b.shape
                np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("drop_last", [False, True])
def test_shuffled_tensor_dataset_batches_match_torch(drop_last):
    arrays = _arrays()
    e = edata.TensorDataset(*(ember.tensor(a) for a in arrays))
    t = tdata.TensorDataset(*(torch.tensor(a) for a in arrays))
    _assert_same(_epochs(ember, edata, e, 3, drop_last=drop_last),
                 _epochs(torch, tdata, t, 3, drop_last=drop_last))


def test_subset_of_tensor_dataset_batches_match_torch():
    arrays = _arrays()
    e = edata.TensorDataset(*(ember.tensor(a) for a in arrays))
    t = tdata.TensorDataset(*(torch.tensor(a) for a in arrays))
    e_train, _ = edata.random_split(e, [30, 20], generator=ember.Generator().manual_seed(1))
    t_train, _ = tdata.random_split(t, [30, 20], generator=torch.Generator().manual_seed(1))
    _assert_same(_epochs(ember, edata, e_train, 5), _epochs(torch, tdata, t_train, 5))


def test_whole_batch_indexes_each_tensor_once(monkeypatch):
    x = ember.arange(20).float().view(10, 2)
    dataset = edata.TensorDataset(x, ember.arange(10))

    def no_sample_indexing(self, index):
        raise AssertionError("a tensor was indexed sample by sample")

    monkeypatch.setattr(ember.Tensor, "__getitem__", no_sample_indexing)
    xb, yb = next(iter(edata.DataLoader(dataset, batch_size=4, sampler=[3, 1, 7, 0])))
    np.testing.assert_array_equal(yb.numpy(), [3, 1, 7, 0])
    np.testing.assert_array_equal(xb.numpy(), np.arange(20).reshape(10, 2)[[3, 1, 7, 0]])


def _doubled(base):
    class Doubled(base):
        def __getitem__(self, index):
            x, y = super().__getitem__(index)
            return x * 2, y
    return Doubled


def test_subclass_item_access_and_custom_collate_are_honoured():
    x, y = np.arange(12, dtype=np.float32).reshape(6, 2), np.arange(6)
    e = _doubled(edata.TensorDataset)(ember.tensor(x), ember.tensor(y))
    t = _doubled(tdata.TensorDataset)(torch.tensor(x), torch.tensor(y))
    _assert_same(_epochs(ember, edata, e, 0), _epochs(torch, tdata, t, 0))
    plain = edata.TensorDataset(ember.tensor(x), ember.tensor(y))
    samples = next(iter(edata.DataLoader(plain, batch_size=3, collate_fn=lambda b: b)))
    assert isinstance(samples, list) and len(samples) == 3
    assert all(isinstance(s, tuple) and len(s) == 2 for s in samples)
    np.testing.assert_array_equal(samples[2][0].numpy(), x[2])


def test_tensors_that_require_grad_collate_through_autograd():
    w = ember.ones(4, 2, requires_grad=True)
    (xb,) = next(iter(edata.DataLoader(edata.TensorDataset(w), batch_size=2)))
    tw = torch.ones(4, 2, requires_grad=True)
    (tb,) = next(iter(tdata.DataLoader(tdata.TensorDataset(tw), batch_size=2)))
    assert xb.requires_grad == tb.requires_grad
    assert type(xb.grad_fn).__name__ == type(tb.grad_fn).__name__
