"""The two orders of a backward pass: the frontier walk (the common case) and the exact walk.

Both run interior nodes in descending sequence number (a node's inputs come from earlier ops, so
this is a dependency order, and the one torch's engine picks single-threaded); they differ in
what they must know first. The steps themselves (run a node, deliver, fill a leaf) are ``_run``'s.
"""
import heapq
from operator import attrgetter

from numpy import ndarray as _ndarray

from . import graph as _graph_module
from ._run import deliver, observed, run_general, run_node, run_sink
from .graph import AccumulateGrad

_seq_of = attrgetter("_seq")


class Handover:
    """Where the frontier walk stops and the exact walk goes on: the nodes still to run, and
    the node whose gradients just reached an observed leaf (None when the walk stopped at a
    node with hooks before running it)."""

    __slots__ = ("pending", "last")

    def __init__(self, pending, last=None):
        self.pending, self.last = pending, last


def walk_frontier(run, roots):
    """The common backward (no hooks, targets, anomaly or create_graph) without the DFS.

    Nodes are taken from the frontier of nodes that have received a gradient: the newest node of
    the frontier is ready, since any node still to feed it is newer and would be reached through
    a newer frontier node. Leaf sinks are filled as gradients arrive and run at the end: nothing
    can tell when they ran while no hook is set, and a hook anywhere hands the rest of the pass
    to ``walk_exact``.
    """
    heap = [(-n._seq, n) for n in roots if type(n) is not AccumulateGrad]
    heapq.heapify(heap)
    handover = _frontier_loop(run, heap)
    if handover is not None:
        walk_exact(run, handover.pending, handover.last)
        return
    for node in [n for n in run.buffers if type(n) is AccumulateGrad]:
        run_sink(run, node)


def _frontier_loop(run, heap):
    """``walk_frontier``'s loop; None when done, or the Handover to the exact walk. If a node
    fails, the leaves whose feeders had all run are filled before the error propagates, as
    torch's engine would have."""
    buffers = run.buffers
    try:  # (free in CPython 3.11+ until something raises)
        while heap:
            node = heapq.heappop(heap)[1]
            if node._special:
                return Handover([node] + [n for _, n in heap])
            node, outs = _run_chain(run, node, buffers.pop(node), heap)
            if _pass_on(run, node, outs, heap):
                return Handover([n for _, n in heap], node)
    except BaseException:
        _fill_ready_sinks(run, [n for _, n in heap])
        raise
    return None


def _run_chain(run, node, grad, heap):
    """Run ``node`` (``Node._run_backward``); then, while its one gradient for an interior node
    goes to the node the walk would pop next anyway (a one-output interior node with no gradient
    yet, newer than the whole frontier), run that one at once with the gradient in a local: pure
    scheduling. A gradient for an unobserved leaf beside it is delivered on the way, as
    ``_pass_on`` would. Returns the last node run and its gradients not yet delivered; a failing
    node is put back on the frontier."""
    buffers, m, retain = run.buffers, run.m, run.retain_graph
    # (attribute reads here see every node class: CPython 3.11 cannot specialize them, so each
    # costs a generic lookup; the node's shapes are carried over from the step that chose it)
    shapes = node._shapes
    try:
        while True:
            outs = node._run_backward(m, grad, False, retain)
            edges = node.next_functions
            n = len(edges)
            if n == 1 or n == 2 and edges[1][0] is None:
                nxt, grad = edges[0][0], outs[0]
            elif n == 2:
                nxt, grad, outs = _beside_leaf(run, edges, outs)
            else:
                return node, outs
            if nxt is None or grad is None or _graph_module._any_special and nxt._special \
                    or buffers and nxt in buffers \
                    or heap and heap[0][0] < -nxt._seq or type(nxt) is AccumulateGrad:
                return node, outs
            # a node that shares its input node's metadata gives it a gradient of that very
            # shape and dtype (Node._record's ``like``): only the rest need a check
            next_shapes = nxt._shapes
            if next_shapes is not shapes or type(grad) is not _ndarray:
                if len(next_shapes) != 1:
                    return node, outs
                grad = m.conform(grad, next_shapes[0], nxt._dtypes[0])
            node, shapes = nxt, next_shapes
    except BaseException:
        heapq.heappush(heap, (-node._seq, node))  # pending: its leaves are not filled
        raise


def _beside_leaf(run, edges, outs):
    """A two-input node's gradients: the one edge the chain may follow, its gradient, and the
    gradients left to deliver. The other's gradient, when it goes to an unobserved leaf, is
    delivered here (None when there is nothing to follow: ``outs`` go to ``_pass_on``)."""
    (a, _), (b, nr) = edges
    ga, gb = outs
    if gb is None:
        return a, ga, outs
    if a is None or ga is None:
        return b, gb, outs
    if type(b) is AccumulateGrad and not observed(b):
        deliver(run, b, nr, gb)
        return a, ga, (ga, None)
    if type(a) is AccumulateGrad and not observed(a):
        deliver(run, a, edges[0][1], ga)
        return b, gb, (None, gb)
    return None, None, outs


def _pass_on(run, node, outs, heap):
    """Deliver ``node``'s gradients; nodes that get their first one join the frontier. True
    when an observed leaf (one with hooks) received a gradient."""
    seen = False
    for (nxt, nr), g in zip(node.next_functions, outs):
        if nxt is None or g is None or not deliver(run, nxt, nr, g):
            continue
        if type(nxt) is AccumulateGrad:
            seen = seen or observed(nxt)
        else:
            heapq.heappush(heap, (-nxt._seq, nxt))
    return seen


def _fill_ready_sinks(run, pending):
    """After a failure: run the leaf sinks that nothing in ``pending`` (or below) still feeds."""
    run.sinks = _graph(pending)[1]
    for node in [n for n in run.buffers if type(n) is AccumulateGrad]:
        if not run.sinks.get(node):
            run_sink(run, node)


def walk_exact(run, pending, last=None):
    """Run ``pending`` nodes and all below them in torch's order, leaf sinks as soon as ready.

    This needs the whole graph first (a DFS). Sinks already holding a gradient with nothing left
    to wait for run at once; those ``last`` (the node just run) fed run last, in its edge order,
    as they would have run during its edges.
    """
    buffers = run.buffers
    order, run.sinks = _graph(pending + [n for n in buffers if type(n) is AccumulateGrad])
    ready = [n for n in buffers if type(n) is AccumulateGrad and not run.sinks.get(n)]
    if last is not None and ready:
        fed = list({id(n): n for n, _ in last.next_functions if n in ready}.values())
        ready = [n for n in ready if n not in fed] + fed
    for node in ready:
        run_sink(run, node)
    _exact_loop(run, order)


def _exact_loop(run, order):
    """Run each node on its summed gradient and pass the results to its inputs."""
    pop = run.buffers.pop
    plain = run.targets is None and not _graph_module._anomaly_mode and not run.create_graph
    for node in order:
        grad = pop(node, None)
        if grad is None:
            _skip(run, node)
            continue
        if plain and not node._special:
            outs = run_node(run, node, grad)
        else:
            outs = run_general(run, node, grad)
            if outs is None:
                _skip(run, node)
                continue
        edges = node.next_functions
        for (nxt, nr), g in zip(edges, outs):
            if nxt is None:
                continue
            if g is not None:
                deliver(run, nxt, nr, g)
            if type(nxt) is AccumulateGrad:
                _count_down(run, nxt)
        if len(outs) < len(edges):
            _skip(run, node, len(outs))


def _count_down(run, sink):
    """One feeder of ``sink`` is done: fill the leaf when it was the last."""
    left = run.sinks[sink] - 1
    run.sinks[sink] = left
    if not left:
        run_sink(run, sink)


def _skip(run, node, start=0):
    """A node that produced nothing still counts as done for the leaves it feeds."""
    for nxt, _ in node.next_functions[start:]:
        if type(nxt) is AccumulateGrad:
            _count_down(run, nxt)


def _graph(nodes):
    """Interior nodes in the order to run them, and the number of edges into each leaf sink.

    AccumulateGrad sinks run as soon as everything feeding them has run, as in torch.
    """
    sinks = {}
    seen = set()
    stack = []
    for node in nodes:
        if node not in seen:
            seen.add(node)
            stack.append(node)
    order = []
    while stack:
        node = stack.pop()
        if type(node) is AccumulateGrad:
            continue
        order.append(node)
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            if type(nxt) is AccumulateGrad:
                sinks[nxt] = sinks.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    order.sort(key=_seq_of, reverse=True)
    return order, sinks
