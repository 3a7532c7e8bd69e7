"""Worker: every collective on every rank, checked against NumPy on all ranks' inputs."""
import numpy as np

import ember
import ember.distributed as dist

DTYPES = ["float32", "float64", "int64", "int32", "float16"]
OPS = {"SUM": np.sum, "AVG": np.mean, "MAX": np.max, "MIN": np.min, "PRODUCT": np.prod}


def data(rank, shape, dtype, salt=0):
    """Rank ``rank``'s input: every rank can rebuild every other rank's."""
    rng = np.random.default_rng(1000 * salt + rank)
    return (rng.standard_normal(shape) * 4).astype(dtype)


def expect_equal(got, want, what, rtol=1e-6):
    got = got._data if isinstance(got, ember.Tensor) else got
    assert got.dtype == np.asarray(want).dtype, f"{what}: dtype {got.dtype} vs {want.dtype}"
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6, err_msg=what)


def check_all_reduce(rank, size):
    for dtype in DTYPES:
        for name, reduce_fn in OPS.items():
            inputs = [data(r, (3, 4), dtype, salt=len(name)) for r in range(size)]
            t = ember.tensor(inputs[rank])
            dist.all_reduce(t, op=getattr(dist.ReduceOp, name))
            stacked = np.stack(inputs)
            want = reduce_fn(stacked.astype(np.float64), axis=0)
            if name == "AVG" and dtype.startswith("int"):
                want = np.floor_divide(stacked.sum(0), size)
            rtol = 2e-3 if dtype == "float16" else 1e-6
            expect_equal(t, want.astype(dtype), f"all_reduce {name} {dtype}", rtol)
    t = ember.tensor(np.arange(12.0).reshape(3, 4) * (rank + 1)).t()  # non-contiguous view
    dist.all_reduce(t)
    expect_equal(t, (np.arange(12.0).reshape(3, 4) * sum(range(1, size + 1))).T, "transposed")
    t = ember.tensor(float(rank))  # 0-dim
    version = t._version
    dist.all_reduce(t, op=dist.ReduceOp.MAX)
    expect_equal(t, np.array(size - 1.0, dtype=np.float32), "0-dim")
    assert t._version > version, "all_reduce must bump the version counter"
    b = ember.tensor([rank == 0, rank == 1])
    dist.all_reduce(b, op=dist.ReduceOp.MAX)
    expect_equal(b, np.array([True, size > 1]), "bool MAX (or)")


def check_broadcast_and_reduce(rank, size):
    for src in range(size):
        t = ember.tensor(data(rank, (5,), "float64", salt=src))
        same = t
        dist.broadcast(t, src=src)
        assert t is same
        expect_equal(t, data(src, (5,), "float64", salt=src), f"broadcast from {src}")
    for dst in range(size):
        inputs = [data(r, (2, 3), "float32", salt=7) for r in range(size)]
        t = ember.tensor(inputs[rank])
        dist.reduce(t, dst=dst, op=dist.ReduceOp.SUM)
        if rank == dst:
            expect_equal(t, np.sum(inputs, axis=0).astype(np.float32), f"reduce to {dst}", 1e-5)


def check_gathers(rank, size):
    inputs = [data(r, (2, 3), "float32", salt=3) for r in range(size)]
    out = [ember.zeros(2, 3) for _ in range(size)]
    dist.all_gather(out, ember.tensor(inputs[rank]))
    for r in range(size):
        expect_equal(out[r], inputs[r], f"all_gather[{r}]")
    big = ember.zeros(2 * size, 3)
    dist.all_gather_into_tensor(big, ember.tensor(inputs[rank]))
    expect_equal(big, np.concatenate(inputs), "all_gather_into_tensor")
    for dst in range(size):
        lst = [ember.zeros(2, 3) for _ in range(size)] if rank == dst else None
        dist.gather(ember.tensor(inputs[rank]), lst, dst=dst)
        if rank == dst:
            for r in range(size):
                expect_equal(lst[r], inputs[r], f"gather to {dst} [{r}]")
    for src in range(size):
        chunks = [data(src * 10 + r, (4,), "int64", salt=5) for r in range(size)]
        lst = [ember.tensor(c) for c in chunks] if rank == src else None
        t = ember.zeros(4, dtype=ember.int64)
        dist.scatter(t, lst, src=src)
        expect_equal(t, chunks[rank], f"scatter from {src}")


def check_reduce_scatter(rank, size):
    inputs = [[data(r * size + i, (3,), "float64", salt=9) for i in range(size)]
              for r in range(size)]
    out = ember.zeros(3, dtype=ember.float64)
    dist.reduce_scatter(out, [ember.tensor(a) for a in inputs[rank]])
    expect_equal(out, sum(inputs[r][rank] for r in range(size)), "reduce_scatter")
    out = ember.zeros(3, dtype=ember.float64)
    dist.reduce_scatter_tensor(out, ember.tensor(np.concatenate(inputs[rank])),
                               op=dist.ReduceOp.MAX)
    expect_equal(out, np.max([inputs[r][rank] for r in range(size)], axis=0),
                 "reduce_scatter_tensor MAX")


def check_async_and_p2p(rank, size):
    t = ember.ones(3) * (rank + 1)
    work = dist.all_reduce(t, async_op=True)
    assert work.wait() is True and work.is_completed()
    expect_equal(t, np.full(3, size * (size + 1) / 2, dtype=np.float32), "async all_reduce")
    assert dist.barrier() is None
    if size > 1:
        if rank == 0:
            dist.send(ember.arange(5), dst=1)
        elif rank == 1:
            t = ember.zeros(5, dtype=ember.int64)
            assert dist.recv(t) == 0
            expect_equal(t, np.arange(5), "recv")


def check_errors(rank, size):
    def raises(exc, text, fn, *args, **kwargs):
        try:
            fn(*args, **kwargs)
        except exc as e:
            assert text in str(e), f"{text!r} not in {str(e)!r}"
            return
        raise AssertionError(f"{fn.__name__} did not raise {exc.__name__}")
    other = [ember.zeros(2)] * size
    if size > 1:
        target = 1 - rank if rank < 2 else 0
        if rank < 2:
            raises(ValueError, "must NOT be specified on non-destination ranks", dist.gather,
                   ember.zeros(2), other, dst=target)
    raises(ValueError, "must hold world_size", dist.all_gather, other[:1] * (size + 1),
           ember.zeros(2))
    raises(ValueError, "Invalid src rank", dist.broadcast, ember.zeros(2), src=size)
    raises(TypeError, "Expected parameter `tensor`", dist.all_reduce, np.zeros(2))
    raises(ValueError, "twice", dist.init_process_group, "mpi")


def main():
    dist.init_process_group(backend="mpi")
    rank, size = dist.get_rank(), dist.get_world_size()
    assert dist.is_initialized() and dist.get_backend() == "mpi"
    for check in (check_all_reduce, check_broadcast_and_reduce, check_gathers,
                  check_reduce_scatter, check_async_and_p2p, check_errors):
        check(rank, size)
        dist.barrier()
    dist.destroy_process_group()
    assert not dist.is_initialized()
    print(f"PASS {rank}", flush=True)


if __name__ == "__main__":
    main()
