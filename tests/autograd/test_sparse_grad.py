"""Sparse COO gradients of embedding(sparse=True) (ember/autograd/_sparse_grad.py) against torch
2.13: the gradient's entries in torch's order (duplicates kept, merged or joined as torch sums
them), its meeting with dense gradients, hooks, autograd.grad, EmbeddingBag, and the optimizers
that train with it (bit-exact trajectories) or refuse it (torch's errors)."""
import warnings

import numpy as np
import pytest
import torch
from oracle import same_error

import ember

IDX_A = [[1, 2, 1], [4, 1, 0]]
IDX_B = [5, 1, 1]


def _weight(lib, dtype=np.float32):
    data = np.random.default_rng(3).standard_normal((6, 3)).astype(dtype)
    return lib.nn.Parameter(lib.tensor(data))


def _lookup(lib, w, idx, **kw):
    return lib.nn.functional.embedding(lib.tensor(idx), w, sparse=True, **kw)


def _scale(lib, out):
    """A fresh (contiguous) upstream gradient: out times a constant."""
    c = np.arange(out.numel(), dtype=np.float32).reshape(tuple(out.shape)) / 7 + 0.3
    return (out * lib.tensor(c.astype(out.detach().numpy().dtype))).sum()


# each case: a function of (lib, w) that runs one or more backward passes
CASES = {
    "broadcast": lambda lib, w: _lookup(lib, w, IDX_A).sum().backward(),
    "contiguous": lambda lib, w: _scale(lib, _lookup(lib, w, IDX_A)).backward(),
    "padding": lambda lib, w: _scale(lib, _lookup(lib, w, IDX_A, padding_idx=1)).backward(),
    "all_padding": lambda lib, w: _lookup(lib, w, [1, 1], padding_idx=1).sum().backward(),
    "zero_dim": lambda lib, w: _lookup(lib, w, 3).sum().backward(),
    "twice_joined": lambda lib, w: (_lookup(lib, w, IDX_A).sum()
                                    + _lookup(lib, w, IDX_B).sum() * 2).backward(),
    "twice_merged": lambda lib, w: (_scale(lib, _lookup(lib, w, IDX_A))
                                    + _scale(lib, _lookup(lib, w, IDX_B))).backward(),
    "accumulate_joined": lambda lib, w: [_lookup(lib, w, i).sum().backward()
                                         for i in (IDX_A, IDX_B)],
    "accumulate_merged": lambda lib, w: [_scale(lib, _lookup(lib, w, i)).backward()
                                         for i in (IDX_A, IDX_B, [0, 5])],
    "with_dense_first": lambda lib, w: ((w * 2).sum() + _lookup(lib, w, IDX_A).sum()).backward(),
    "dense_then_sparse": lambda lib, w: [(w * 2).sum().backward(),
                                         _lookup(lib, w, IDX_A).sum().backward()],
    "sparse_then_dense": lambda lib, w: [_lookup(lib, w, IDX_A).sum().backward(),
                                         (w * 2).sum().backward()],
}


def _grad_of(lib, case, dtype=np.float32):
    w = _weight(lib, dtype)
    CASES[case](lib, w)
    g = w.grad
    if not g.is_sparse:
        return False, g.numpy(), None, None
    return True, g._indices().numpy(), g._values().numpy(), g.is_coalesced()


@pytest.mark.parametrize("case", sorted(CASES))
def test_gradient_matches_torch(case):
    got, want = _grad_of(ember, case), _grad_of(torch, case)
    assert got[0] == want[0] and got[3] == want[3]
    for a, b in zip(got[1:3], want[1:3]):
        if b is not None:
            assert a.shape == b.shape and a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


def test_gradient_layout_and_repr():
    for lib in (ember, torch):
        w = _weight(lib)
        _lookup(lib, w, IDX_A).sum().backward()
        assert w.grad.is_sparse and w.grad.layout is lib.sparse_coo
        assert tuple(w.grad.shape) == (6, 3) and w.grad.dtype is lib.float32
    g0 = w.grad
    w = _weight(ember)
    _lookup(ember, w, IDX_A).sum().backward()
    first = w.grad
    _lookup(ember, w, IDX_B).sum().backward()
    assert w.grad is first  # sparse += sparse in place, as torch
    np.testing.assert_array_equal(w.grad.to_dense().numpy(), _dense_sum(IDX_A, IDX_B))
    assert g0.to_dense().shape == (6, 3)


def _dense_sum(*indices):
    out = np.zeros((6, 3), np.float32)
    for idx in indices:
        np.add.at(out, np.asarray(idx).reshape(-1), 1)
    return out


def test_autograd_grad_hooks_and_create_graph():
    for lib in (ember, torch):
        w = _weight(lib)
        (g,) = lib.autograd.grad(_lookup(lib, w, IDX_A).sum(), w)
        assert g.is_sparse
        (g,) = lib.autograd.grad(_lookup(lib, w, IDX_A).sum(), w, create_graph=True)
        assert g.is_sparse and not g.requires_grad and g.grad_fn is None
        seen = []
        w.register_hook(lambda grad: seen.append(grad.is_sparse))
        _lookup(lib, w, IDX_A).sum().backward()
        assert seen == [True]


def test_hook_may_not_make_it_dense():
    def run(lib):
        w = _weight(lib)
        w.register_hook(lambda grad: grad.to_dense())
        _lookup(lib, w, IDX_A).sum().backward()
    same_error(run)


def test_scale_grad_by_freq_is_refused_at_backward():
    def run(lib):
        w = _weight(lib)
        out = _lookup(lib, w, IDX_A, scale_grad_by_freq=True)
        out.sum().backward()
    same_error(run)


def test_module_and_interior_weight():
    for lib in (ember, torch):
        lib.manual_seed(0)
        emb = lib.nn.Embedding(6, 3, sparse=True)
        emb(lib.tensor(IDX_A)).sum().backward()
        assert emb.weight.grad.is_sparse
    w = _weight(ember)
    _lookup(ember, w * 1, IDX_A).sum().backward()  # through an interior node: dense here
    np.testing.assert_array_equal(w.grad.to_dense().numpy(), _dense_sum(IDX_A))


@pytest.mark.parametrize("kw", [dict(mode="sum"), dict(mode="mean"),
                                dict(mode="sum", padding_idx=2, per_sample_weights=True)])
def test_embedding_bag(kw):
    def grad(lib):
        w = _weight(lib)
        args = dict(kw)
        if args.pop("per_sample_weights", None):
            args["per_sample_weights"] = lib.tensor([1.0, 2.0, 3.0, 4.0])
        out = lib.nn.functional.embedding_bag(lib.tensor([1, 2, 1, 4]), w, lib.tensor([0, 2]),
                                              sparse=True, **args)
        _scale(lib, out).backward()
        return w.grad._indices().numpy(), w.grad._values().numpy(), w.grad.is_coalesced()
    got, want = grad(ember), grad(torch)
    np.testing.assert_array_equal(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    assert got[2] == want[2]


# ------------------------------------------------------------------ optimizers
def _train(lib, name, kwargs, dtype, steps=4):
    w = _weight(lib, dtype)
    opt = getattr(lib.optim, name)([w], **kwargs)
    for step in range(steps):
        opt.zero_grad()
        idx = IDX_A if step % 2 == 0 else IDX_B
        out = _lookup(lib, w, idx)
        loss = (out ** 2).sum() if step % 3 else _scale(lib, out)
        loss.backward()
        if step == 2:  # accumulate a second pass into the same gradient
            _lookup(lib, w, [0, 5, 5]).sum().backward()
        opt.step()
    return w.detach().numpy()


OPTIMIZERS = [("SGD", dict(lr=0.1)), ("SGD", dict(lr=0.1, maximize=True)),
              ("SGD", dict(lr=0.1, momentum=0.9)),
              ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3)),
              ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
              ("SparseAdam", dict(lr=0.1)), ("Adagrad", dict(lr=0.1)),
              ("Adagrad", dict(lr=0.1, lr_decay=0.01, maximize=True, eps=1e-3,
                               initial_accumulator_value=0.2))]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name,kwargs", OPTIMIZERS)
def test_optimizer_trajectory_bit_exact(name, kwargs, dtype):
    np.testing.assert_array_equal(_train(ember, name, kwargs, dtype),
                                  _train(torch, name, kwargs, dtype))


def test_optimizer_with_dense_and_sparse_parameters():
    def run(lib):
        w = _weight(lib)
        lin = lib.nn.Parameter(lib.full((2, 3, 3), 1.5))
        opt = lib.optim.SGD([w, lin], lr=0.1)
        for _ in range(2):
            opt.zero_grad(set_to_none=False)
            (_lookup(lib, w, IDX_A) * lin).pow(2).sum().backward()
            opt.step()
        return w.detach().numpy(), lin.detach().numpy()
    (w, lin), (tw, tlin) = run(ember), run(torch)
    np.testing.assert_array_equal(w, tw)
    np.testing.assert_allclose(lin, tlin, rtol=1e-6)  # the dense rule: its own tests


@pytest.mark.parametrize("name,kwargs", [
    ("Adam", {}), ("AdamW", {}), ("RMSprop", {}), ("Adadelta", {}), ("Adamax", {}),
    ("NAdam", {}), ("RAdam", {}), ("ASGD", {}), ("Rprop", {}), ("Adafactor", {}),
    ("SGD", dict(weight_decay=0.1)), ("Adagrad", dict(weight_decay=0.1))])
def test_optimizers_that_refuse_sparse_gradients(name, kwargs):
    def run(lib):
        w = _weight(lib)
        _lookup(lib, w, IDX_A).sum().backward()
        before = w.detach().clone()
        opt = getattr(lib.optim, name)([w], **kwargs)
        try:
            opt.step()
        finally:
            assert (w.detach() == before).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(run)


def test_lbfgs_takes_the_dense_form():
    def run(lib):
        w = _weight(lib, np.float64)
        opt = lib.optim.LBFGS([w], max_iter=3)

        def closure():
            opt.zero_grad()
            loss = (_lookup(lib, w, IDX_A) ** 2).sum()
            loss.backward()
            return loss
        opt.step(closure)
        return w.detach().numpy()
    np.testing.assert_allclose(run(ember), run(torch), rtol=1e-12)
