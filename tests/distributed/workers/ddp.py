"""Worker: DistributedDataParallel training vs single-process training on the global batch.

argv[1] names the scenario; each rank checks its own result and prints 'PASS <rank>'.
"""
import sys

import numpy as np

import ember
import ember.distributed as dist
from ember import nn
from ember.nn.parallel import DistributedDataParallel as DDP

STEPS = 5
LOCAL_BATCH = 4


class Net(nn.Module):
    """A small MLP, optionally with a branch that the loss never uses and a running buffer."""

    def __init__(self, with_unused=False):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.fc2 = nn.Linear(16, 3)
        self.unused = nn.Linear(3, 3) if with_unused else None
        self.register_buffer("calls", ember.zeros(1))

    def forward(self, x):
        self.calls.add_(1)
        return self.fc2(ember.tanh(self.fc1(x)))


def make_net(seed, dtype=ember.float64, **kwargs):
    ember.manual_seed(seed)
    return Net(**kwargs).to(dtype)


def batches(step, size, dtype):
    """The global batch of a step, and this rank's slice of it."""
    rng = np.random.default_rng(100 + step)
    x = rng.standard_normal((LOCAL_BATCH * size, 6)).astype(dtype)
    y = rng.standard_normal((LOCAL_BATCH * size, 3)).astype(dtype)
    return ember.tensor(x), ember.tensor(y)


def local(t, rank):
    return t[rank * LOCAL_BATCH:(rank + 1) * LOCAL_BATCH]


def mse(out, y):
    return ((out - y) ** 2).mean()


def sgd_step(params, lr=0.05):
    with ember.no_grad():
        for p in params:
            p.sub_(p.grad * lr)
            p.grad = None


OPTIMIZERS = {"sgd": ("SGD", {"lr": 0.05, "momentum": 0.9}), "adam": ("Adam", {"lr": 0.01})}


def make_optimizer(name, params):
    """"plain" (a hand-written SGD step), "sgd", "adam", or "<optimizer>-fused"/"-foreach"."""
    if name == "plain":
        return None
    kind, _, flag = name.partition("-")
    cls_name, kwargs = OPTIMIZERS[kind]
    return getattr(ember.optim, cls_name)(params, **kwargs, **({flag: True} if flag else {}))


def step(opt, params):
    if opt is None:
        sgd_step(params)
    else:
        opt.step()
        opt.zero_grad()


def train(rank, size, opt_name, dtype=ember.float64, steps=STEPS, ddp_kwargs=None):
    """Train DDP (each rank on its slice) and a reference (whole batch); return both models."""
    np_dtype = np.float64 if dtype == ember.float64 else np.float32
    reference = make_net(0, dtype)
    model = DDP(make_net(rank, dtype), **(ddp_kwargs or {}))  # rank 0's weights win
    ref_opt = make_optimizer(opt_name, list(reference.parameters()))
    opt = make_optimizer(opt_name, list(model.parameters()))
    for s in range(steps):
        x, y = batches(s, size, np_dtype)
        mse(reference(x), y).backward()
        step(ref_opt, list(reference.parameters()))
        mse(model(local(x, rank)), local(y, rank)).backward()
        step(opt, list(model.parameters()))
    return model, reference


def assert_same(model, reference, rtol):
    for (name, p), q in zip(model.module.named_parameters(), reference.parameters()):
        np.testing.assert_allclose(p._data, q._data, rtol=rtol, atol=rtol * 1e-2, err_msg=name)


def assert_equal_across_ranks(model, size):
    flat = ember.cat([p.detach().reshape(-1) for p in model.parameters()])
    everyone = [ember.zeros_like(flat) for _ in range(size)]
    dist.all_gather(everyone, flat)
    for other in everyone:
        np.testing.assert_array_equal(other._data, flat._data)


def scenario_train(rank, size, opt_name, dtype=ember.float64, rtol=1e-6, **ddp_kwargs):
    model, reference = train(rank, size, opt_name, dtype, ddp_kwargs=ddp_kwargs)
    assert_same(model, reference, rtol)
    assert_equal_across_ranks(model, size)


def scenario_no_sync(rank, size):
    """Two micro-batches under no_sync, one synced: equals the summed global gradients."""
    reference, model = make_net(0), DDP(make_net(rank))
    for micro in range(3):
        x, y = batches(micro, size, np.float64)
        mse(reference(x), y).backward()
        if micro < 2:
            with model.no_sync():
                mse(model(local(x, rank)), local(y, rank)).backward()
            if size > 1:  # no communication yet: local grads differ from the reference's
                p, q = model.module.fc2.weight, reference.fc2.weight
                assert not np.allclose(p.grad._data, q.grad._data)
        else:
            mse(model(local(x, rank)), local(y, rank)).backward()
    for p, q in zip(model.module.parameters(), reference.parameters()):
        np.testing.assert_allclose(p.grad._data, q.grad._data, rtol=1e-12, atol=1e-14)


def scenario_construction(rank, size):
    """Rank 0's parameters and buffers are broadcast; buckets follow the cap; state_dict keys."""
    net = make_net(rank)
    net.calls.fill_(float(rank + 7))
    grads_before = [p.grad for p in net.parameters()]
    model = DDP(net, bucket_cap_mb=0.0001)
    want = make_net(0)
    for p, q in zip(net.parameters(), want.parameters()):
        np.testing.assert_array_equal(p._data, q._data)
    assert net.calls.item() == 7.0
    assert [p.grad for p in net.parameters()] == grads_before
    assert len(model._state.buckets) == 4, len(model._state.buckets)  # 100-byte cap: one each
    assert list(model.state_dict()) == ["module." + k for k in net.state_dict()]
    model(ember.zeros(2, 6, dtype=ember.float64))  # buffers re-broadcast before each forward
    assert net.calls.item() == 8.0


def scenario_overlap(rank, size):
    """With small buckets, the first all-reduce starts before backward has produced every
    gradient, and buckets start in the same order on every rank."""
    from ember.nn.parallel import _buckets
    model = DDP(make_net(rank), bucket_cap_mb=0.0005)
    buckets, log = model._state.buckets, []
    launch = _buckets.Bucket.launch

    def logged_launch(bucket, pg):
        log.append((buckets.index(bucket), sum(b.count for b in buckets)))
        launch(bucket, pg)
    _buckets.Bucket.launch = logged_launch
    try:
        model(ember.ones(2, 6, dtype=ember.float64)).sum().backward()
    finally:
        _buckets.Bucket.launch = launch
    assert [b for b, _ in log] == list(range(len(buckets))) and len(buckets) > 1, log
    assert log[0][1] < len(model._params), f"first bucket waited for every gradient: {log}"


def scenario_unused(rank, size):
    """find_unused_parameters: an unused layer's grad stays None; the rest are averaged."""
    reference = make_net(0, with_unused=True)
    model = DDP(make_net(rank, with_unused=True), find_unused_parameters=True)
    x, y = batches(0, size, np.float64)
    mse(reference(x), y).backward()
    mse(model(local(x, rank)), local(y, rank)).backward()
    assert model.module.unused.weight.grad is None
    for p, q in zip(model.module.fc1.parameters(), reference.fc1.parameters()):
        np.testing.assert_allclose(p.grad._data, q.grad._data, rtol=1e-12, atol=1e-14)


def scenario_unused_error(rank, size):
    """Without find_unused_parameters, an unused layer is reported on the next forward."""
    model = DDP(make_net(rank, with_unused=True))
    x = ember.zeros(2, 6, dtype=ember.float64)
    model(x).sum().backward()
    try:
        model(x)
    except RuntimeError as e:
        assert "Expected to have finished reduction in the prior iteration" in str(e), str(e)
        assert "find_unused_parameters=True" in str(e)
        return
    raise AssertionError("the second forward did not raise")


def scenario_mismatch(rank, size):
    """Different architectures on different ranks: a clear error on every rank."""
    net = make_net(0, with_unused=(rank == 1))
    try:
        DDP(net)
    except RuntimeError as e:
        assert "every rank must wrap the same model" in str(e), str(e)
        return
    raise AssertionError("DDP accepted different models")


def scenario_loader(rank, size):
    """Two epochs through DataLoader + DistributedSampler (23 samples: padded) with DDP equal
    single-process training on the union of the ranks' batches at each step."""
    from ember.utils.data import DataLoader, DistributedSampler, TensorDataset
    rng = np.random.default_rng(3)
    data = TensorDataset(ember.tensor(rng.standard_normal((23, 6))),
                         ember.tensor(rng.standard_normal((23, 3))))
    samplers = [DistributedSampler(data, size, r, seed=11) for r in range(size)]
    loaders = [DataLoader(data, batch_size=3, sampler=s) for s in samplers]
    reference, model = make_net(0), DDP(make_net(rank))
    ref_opt = make_optimizer("sgd", list(reference.parameters()))
    opt = make_optimizer("sgd", list(model.parameters()))
    for epoch in range(2):
        for sampler in samplers:
            sampler.set_epoch(epoch)
        for batches_of_ranks in zip(*loaders):
            x = ember.cat([b[0] for b in batches_of_ranks])
            y = ember.cat([b[1] for b in batches_of_ranks])
            # padding gives every rank equal batches, so the global mean is their mean
            assert len({b[0].shape[0] for b in batches_of_ranks}) == 1
            mse(reference(x), y).backward()
            step(ref_opt, list(reference.parameters()))
            mse(model(batches_of_ranks[rank][0]), batches_of_ranks[rank][1]).backward()
            step(opt, list(model.parameters()))
    assert_same(model, reference, 1e-6)
    assert_equal_across_ranks(model, size)


def scenario_checkpoint(rank, size, path):
    """Save from rank 0 only, load on every rank, continue: equals uninterrupted training."""
    _, uninterrupted = train(rank, size, "adam", steps=STEPS)
    model = DDP(make_net(rank))
    opt = make_optimizer("adam", list(model.parameters()))
    for s in range(STEPS):
        if s == 3:
            if rank == 0:
                ember.save({"model": model.module.state_dict(), "optim": opt.state_dict()}, path)
            dist.barrier()  # the file is complete before anyone reads it
            state = ember.load(path, map_location="cpu")
            model = DDP(make_net(rank + 10))
            model.module.load_state_dict(state["model"])
            opt = make_optimizer("adam", list(model.parameters()))
            opt.load_state_dict(state["optim"])
        x, y = batches(s, size, np.float64)
        mse(model(local(x, rank)), local(y, rank)).backward()
        step(opt, list(model.parameters()))
    assert_same(model, uninterrupted, 1e-6)
    assert_equal_across_ranks(model, size)


SCENARIOS = {
    "plain": lambda r, s: scenario_train(r, s, "plain"),
    "sgd": lambda r, s: scenario_train(r, s, "sgd"),
    "adam": lambda r, s: scenario_train(r, s, "adam"),
    "sgd-foreach": lambda r, s: scenario_train(r, s, "sgd-foreach"),
    "sgd-fused": lambda r, s: scenario_train(r, s, "sgd-fused"),
    "adam-foreach": lambda r, s: scenario_train(r, s, "adam-foreach"),
    "adam-fused": lambda r, s: scenario_train(r, s, "adam-fused"),
    "float32": lambda r, s: scenario_train(r, s, "sgd", ember.float32, rtol=1e-6),
    "buckets": lambda r, s: scenario_train(r, s, "sgd", bucket_cap_mb=0.0005),
    "no_sync": scenario_no_sync,
    "construction": scenario_construction,
    "overlap": scenario_overlap,
    "loader": scenario_loader,
    "unused": scenario_unused,
    "unused_error": scenario_unused_error,
    "mismatch": scenario_mismatch,
}


def main(names):
    dist.init_process_group("mpi")
    rank, size = dist.get_rank(), dist.get_world_size()
    for name in names:
        name, _, path = name.partition("=")
        if path:
            scenario_checkpoint(rank, size, path)
        else:
            SCENARIOS[name](rank, size)
        dist.barrier()
    dist.destroy_process_group()
    print(f"PASS {rank}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
