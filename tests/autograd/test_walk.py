"""The engine's two walks (ember/autograd/_walk.py): the frontier walk (no DFS; the common case)
and the exact walk (hooks, targets, anomaly, create_graph). Both must run nodes in the same order,
give the same bits, and match torch, on random graphs that mix the fast-path ops with general
ones; the walk is iterative and deterministic."""
import numpy as np
import pytest
import torch

import ember
from ember.autograd.graph import Node


def _swap_halves(lib, a):
    top, bottom = a.chunk(2, dim=1)  # one node with two outputs
    return lib.cat([bottom * 2.0, top.exp()], dim=1)


def _pick(rng, values):
    return values[int(rng.integers(len(values)))]


# The random ops, by kind: f(lib, rng, a, values, leaves); rng is drawn in the same order for
# ember and torch, so both build the same graph.
_OPS = [
    lambda lib, rng, a, values, leaves: a * float(rng.uniform(0.5, 1.5)),
    lambda lib, rng, a, values, leaves: a + 0.25 if rng.random() < 0.5 else a - 0.5,
    lambda lib, rng, a, values, leaves: a.tanh() if rng.random() < 0.5 else -a,
    lambda lib, rng, a, values, leaves: a.sigmoid() if rng.random() < 0.5 else (a / 3.0).sin(),
    lambda lib, rng, a, values, leaves: a * _pick(rng, values),
    lambda lib, rng, a, values, leaves: a + _pick(rng, leaves) * 0.5,
    lambda lib, rng, a, values, leaves: a - a.sum(0, keepdim=True) * 0.1,
    lambda lib, rng, a, values, leaves: _swap_halves(lib, a),
    lambda lib, rng, a, values, leaves: (a * 0.3).exp() * leaves[0],
    lambda lib, rng, a, values, leaves: values[-1] + a,
]


def _random_graph(lib, seed, hooks=None, log=None):
    """A random DAG over three float64 leaves; returns (leaves, loss).

    Ops: tensor-scalar arithmetic and unary functions (the fast path), tensor-tensor ops with
    broadcasting, a reduction broadcast back, chunk (several outputs of one op) and sums of
    several earlier values (nodes with many consumers). With ``hooks``, a logging hook is put on
    the chosen intermediates and a post-accumulate hook on every leaf.
    """
    rng = np.random.default_rng(seed)
    shapes = [(3, 4), (1, 4), (3, 1)]
    leaves = [lib.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes]
    values = [leaves[0] * 1.0 + leaves[1] + leaves[2]]  # (3, 4)
    for i in range(int(rng.integers(8, 30))):
        a = values[int(rng.integers(len(values)))]
        v = _OPS[int(rng.integers(len(_OPS)))](lib, rng, a, values, leaves)
        if hooks is not None and i in hooks:
            v.register_hook(lambda g, i=i: log.append(("t", i)))
        values.append(v)
    if hooks is not None:
        for k, leaf in enumerate(leaves):
            leaf.register_post_accumulate_grad_hook(lambda t, k=k: log.append(("leaf", k)))
    loss = sum(v.sum() * (0.1 * (j % 3 + 1)) for j, v in enumerate(values[-4:]))
    return leaves, loss


SEEDS = range(24)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_graph_gradients_match_torch(seed):
    e_leaves, e_loss = _random_graph(ember, seed)
    t_leaves, t_loss = _random_graph(torch, seed)
    e_loss.backward()
    t_loss.backward()
    for e, t in zip(e_leaves, t_leaves):
        np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def _run_order(monkeypatch, loss):
    """The nodes in the order the engine runs them: each node reads its next_functions when it
    runs (and the frontier walk reads no other node's), so record the first read of each."""
    log, seen = [], set()
    slot = Node.__dict__["next_functions"]

    def read(node):
        if id(node) not in seen:
            seen.add(id(node))
            log.append(node)
        return slot.__get__(node)
    monkeypatch.setattr(Node, "next_functions", property(read, slot.__set__))
    loss.backward()
    monkeypatch.undo()
    return log


def _descending_seq_order(root):
    nodes, stack, seen = [], [root], {id(root)}
    while stack:
        node = stack.pop()
        if type(node).__name__ != "AccumulateGrad":
            nodes.append(node)
        for nxt, _ in node.next_functions:
            if nxt is not None and id(nxt) not in seen:
                seen.add(id(nxt))
                stack.append(nxt)
    return sorted(nodes, key=lambda n: -n._seq)


@pytest.mark.parametrize("seed", SEEDS)
def test_frontier_walk_runs_nodes_in_descending_sequence_order(seed, monkeypatch):
    """The order of the exact walk (and of torch's engine, single-threaded): every node that
    gets a gradient, newest first."""
    leaves, loss = _random_graph(ember, seed)
    expected = _descending_seq_order(loss.grad_fn)
    ran = _run_order(monkeypatch, loss)
    assert [n for n in ran if type(n).__name__ != "AccumulateGrad"] == expected
    assert len(expected) > 8


@pytest.mark.parametrize("seed", SEEDS)
def test_frontier_and_exact_walks_give_the_same_bits(seed):
    grads = []
    for exact in (False, True):
        leaves, loss = _random_graph(ember, seed)
        if exact:  # a hook on the root sends the whole pass to the exact walk
            loss.register_hook(lambda g: None)
        loss.backward()
        grads.append([leaf.grad.numpy() for leaf in leaves])
    for a, b in zip(*grads):
        assert np.array_equal(a, b)


def _leaf_chain(lib, hook_on=None, log=None):
    """A chain whose binary nodes each have a leaf beside the interior input (y * w + b, w * y,
    b - y): the frontier walk delivers those leaves' gradients on the way."""
    rng = np.random.default_rng(7)
    x, w, b = (lib.tensor(rng.standard_normal(16), dtype=lib.float32, requires_grad=True)
               for _ in range(3))
    if hook_on is not None:
        (x, w, b)[hook_on].register_post_accumulate_grad_hook(lambda t: log.append(t.grad.sum()))
    y = x
    for i in range(12):
        y = (y * w + b).tanh()
        y = w * y if i % 2 else b - y
    return (x, w, b), y.sum()


@pytest.mark.parametrize("hook_on", [None, 0, 1, 2])
def test_leaves_beside_a_chain_get_torchs_bits(hook_on):
    """With or without a hook on a leaf (which hands the pass to the exact walk), the leaves'
    gradients are torch's and, bit for bit, the exact walk's."""
    results = []
    for lib, exact in ((torch, False), (ember, False), (ember, True)):
        leaves, loss = _leaf_chain(lib, hook_on, [])
        if exact:
            loss.register_hook(lambda g: None)
        loss.backward()
        results.append([leaf.grad.numpy().copy() for leaf in leaves])
    for t, frontier, exact in zip(*results):
        np.testing.assert_allclose(frontier, t, rtol=1e-5, atol=1e-6)
        assert np.array_equal(frontier, exact)


@pytest.mark.parametrize("seed", SEEDS)
def test_hooks_anywhere_fire_in_torchs_order(seed):
    rng = np.random.default_rng(seed + 1000)
    hooks = set(rng.choice(30, size=3, replace=False).tolist())
    logs = []
    for lib in (torch, ember):
        log = []
        leaves, loss = _random_graph(lib, seed, hooks, log)
        loss.backward()
        logs.append((log, [leaf.grad.numpy().copy() for leaf in leaves]))
    assert logs[1][0] == logs[0][0]
    for e, t in zip(logs[1][1], logs[0][1]):
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-12)


def test_leaves_filled_before_a_failing_node_match_torch():
    """A node that fails mid-pass: the leaves whose every feeder had run hold their gradient
    (as torch's engine, which fills a leaf as soon as it is ready); the others stay empty."""
    results = []
    for lib in (torch, ember):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([0.5, -1.0], requires_grad=True)
        c = lib.tensor([3.0, 4.0], requires_grad=True)
        y = b.exp()
        loss = (y * 2.0).sum() + (a * 3.0).sum() * 2.0 + (c * b).sum()
        y.add_(1)  # ExpBackward0's saved output is now stale: it fails, and it runs last
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            loss.backward()
        results.append([None if t.grad is None else t.grad.tolist() for t in (a, b, c)])
    assert results[1] == results[0]
    assert results[1][0] == [6.0, 6.0] and results[1][1] is None and results[1][2] == [0.5, -1.0]


def test_custom_function_reads_leaf_grads_as_in_torch():
    """A custom Function's backward runs user code: it sees leaves filled as torch fills them."""
    seen = []
    for lib in (torch, ember):
        a = lib.tensor([1.0, 2.0], requires_grad=True)

        class Peek(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1.0

            @staticmethod
            def backward(ctx, g):
                seen.append(None if a.grad is None else a.grad.tolist())
                return g

        b = lib.tensor([3.0], requires_grad=True)
        (Peek.apply(b * 2.0).sum() + (a * 5.0).sum()).backward()
    assert seen[1] == seen[0]


def test_backward_from_several_roots_sharing_nodes_matches_torch():
    grads = []
    for lib in (torch, ember):
        x = lib.tensor([0.3, -0.7, 1.1], requires_grad=True)
        h = (x * 2.0).tanh()
        r1, r2 = (h * h).sum(), (h.sigmoid() + x).sum()
        lib.autograd.backward([r2, r1, h.sum()])
        grads.append(x.grad.tolist())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6)


# ---------------------------------------------------------------- walk properties
@pytest.mark.slow
def test_long_chain_is_iterative():
    x = ember.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.sum().backward()
    assert x.grad.item() == 1.0


def test_backward_is_deterministic():
    order = []
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    for run in range(2):
        a, b = x * 2, x * 3
        a.register_hook(lambda g: order.append(("a", run)))
        b.register_hook(lambda g: order.append(("b", run)))
        (a * b).sum().backward()
    assert [o[0] for o in order[:2]] == [o[0] for o in order[2:]]


def test_hook_order_matches_torch():
    logs = []
    for lib in (torch, ember):
        log = []
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a, b = x * 2, x.exp()
        c = a * b
        for name, t in (("a", a), ("b", b), ("c", c), ("x", x)):
            t.register_hook(lambda g, name=name: log.append(name))
        (c.sum() + a.sum()).backward()
        logs.append(log)
    assert logs[0] == logs[1]


_FIRST_HOOK_CODE = """
import json, sys
import ember
marks = sys.argv[1]
x = ember.arange(4.0).requires_grad_()
y = x * 1.5
seen = []
z = (y + 0.5).tanh()
if marks == "tensor_hook":
    z.register_hook(lambda g: seen.append(g.tolist()) or g * 3)
elif marks == "node_prehook":
    z.grad_fn.register_prehook(lambda go: (go[0] * 3,))
elif marks == "retain_grad":
    z.retain_grad()
elif marks == "function":
    class Triple(ember.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            return a * 1.0
        @staticmethod
        def backward(ctx, g):
            return g * 3
    z = Triple.apply(z)
w = (-(z * 2.0) - 0.25).sigmoid()
w.sum().backward()
print(json.dumps([x.grad.tolist(), seen, z.grad.tolist() if marks == "retain_grad" else None]))
"""


@pytest.mark.parametrize("marks", ["tensor_hook", "node_prehook", "retain_grad", "function"])
def test_the_first_hook_of_a_fresh_process_is_honored_by_the_frontier_chain(marks):
    # the chain reads nodes' _special flags only once any node was marked (Node._mark_special):
    # the first mark in a fresh process must be seen mid-chain, as torch
    import json
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", _FIRST_HOOK_CODE, marks], capture_output=True,
                         text=True, cwd=__file__.rsplit("/tests/", 1)[0])
    assert out.returncode == 0, out.stderr
    grad, seen, retained = json.loads(out.stdout)
    x = torch.arange(4.0).requires_grad_()
    z = (x * 1.5 + 0.5).tanh()
    hooked = []
    if marks == "tensor_hook":
        z.register_hook(lambda g: hooked.append(g.tolist()) or g * 3)
    elif marks == "node_prehook":
        z.grad_fn.register_prehook(lambda go: (go[0] * 3,))
    elif marks == "retain_grad":
        z.retain_grad()
    elif marks == "function":
        z = z * 1.0
        z.register_hook(lambda g: g * 3)
    (-(z * 2.0) - 0.25).sigmoid().sum().backward()
    np.testing.assert_allclose(grad, x.grad.tolist(), rtol=1e-3, atol=1e-6)  # (tanh: ulps)
    assert len(seen) == len(hooked)
    if marks == "retain_grad":
        np.testing.assert_allclose(retained, z.grad.tolist(), rtol=1e-3, atol=1e-6)
