"""The backward pass: an iterative walk of the graph in dependency order, newest node first."""
import heapq
from operator import attrgetter

import numpy as np
from numpy import ndarray as _ndarray

from .. import _fp
from .._tensor import Tensor
from ..ops import _math  # NumPy only (ops is a namespace package): no import cycle
from . import grad_mode
from . import graph as _graph_module
from .graph import FREED, PASS, SAVED_ONE, SCALAR, UNVERSIONED_PAIR, AccumulateGrad, _raise_freed


def _make_seed(tensor, gradient):
    if gradient is None:
        if tensor._data.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if tensor._data.dtype.kind != "f":
            raise RuntimeError(f"grad can be implicitly created only for real scalar outputs "
                               f"but got {tensor.dtype}")
        return Tensor._make(np.ones_like(tensor._data))
    if not isinstance(gradient, Tensor):
        gradient = Tensor._make(np.asarray(gradient, dtype=tensor._data.dtype))
    if gradient._data.shape != tensor._data.shape:
        raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of "
                           f"{gradient.shape!r} and output[0] has a shape of {tensor.shape!r}.")
    return gradient


def _roots(tensors, grad_tensors):
    roots = []
    for i, (t, g) in enumerate(zip(tensors, grad_tensors)):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got "
                            f"{type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        node = t._grad_fn if t._grad_fn is not None else t._accumulator()
        roots.append((node, t._output_nr, _make_seed(t, g)))
    return roots


def _as_tuple(x):
    if x is None:
        return None
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, inputs=None):
    """Accumulate gradients of ``tensors`` into the .grad of graph leaves (or of ``inputs``)."""
    tensors = _as_tuple(tensors)
    grad_tensors = _as_tuple(grad_tensors if grad_tensors is not None else grad_variables)
    if grad_tensors is None:
        grad_tensors = (None,) * len(tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(grad_tensors)} tensors and {len(tensors)} gradients")
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    if retain_graph is None:
        retain_graph = create_graph
    targets = None if inputs is None else _targets(inputs)
    captured = _execute(_roots(tensors, grad_tensors), retain_graph, create_graph, targets,
                        accumulate=True)
    for t in inputs or ():
        g = captured.get(_key_of(t)) if t._grad_fn is not None else None
        if g is not None:  # backward(inputs=[non_leaf]) fills the non-leaf's .grad, as torch
            t._grad = g if t._grad is None else t._grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """Return the gradients of ``outputs`` w.r.t. ``inputs`` without touching any .grad."""
    outputs = _as_tuple(outputs)
    inputs = _as_tuple(inputs)
    if allow_unused is None:
        allow_unused = materialize_grads
    grad_outputs = _as_tuple(grad_outputs) or (None,) * len(outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad requires one grad_output per output: got {len(grad_outputs)} "
                           f"grad_outputs and {len(outputs)} outputs")
    for i, t in enumerate(inputs):
        if not isinstance(t, Tensor) or not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if retain_graph is None:
        retain_graph = create_graph
    targets = _targets(inputs)
    captured = _execute(_roots(outputs, grad_outputs), retain_graph, create_graph, targets,
                        accumulate=False)
    result = []
    for i, t in enumerate(inputs):
        g = captured.get(_key_of(t))
        if g is None:
            if materialize_grads:
                g = Tensor._make(np.zeros_like(t._data))
            elif not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
        result.append(g)
    return tuple(result)


def _key_of(t):
    if t._grad_fn is None:
        return (t._accumulator(), 0)
    return (t._grad_fn, t._output_nr)


def _targets(inputs):
    keys = {}
    for t in inputs:
        if not isinstance(t, Tensor):
            raise TypeError(f"inputs must be Tensors, got {type(t).__name__}")
        node, nr = _key_of(t)
        keys.setdefault(node, set()).add(nr)
    return keys


def _graph(nodes):
    """Interior nodes in the order to run them, and the number of edges into each leaf sink.

    A node's inputs always come from earlier ops, so descending sequence number is a valid
    dependency order (the order torch's engine picks, single-threaded). AccumulateGrad sinks
    run as soon as everything feeding them has run, as in torch.
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


_seq_of = attrgetter("_seq")


class _Run:
    """The state of one backward pass: gradient buffers and what to do at the leaves."""

    __slots__ = ("m", "create_graph", "retain_graph", "targets", "needed", "accumulate",
                 "buffers", "sinks", "captured")

    def __init__(self, m, create_graph, retain_graph, targets, accumulate):
        self.m, self.create_graph, self.retain_graph = m, create_graph, retain_graph
        self.targets, self.accumulate = targets, accumulate
        self.buffers, self.captured, self.needed = {}, {}, None


def _execute(roots, retain_graph, create_graph, targets, accumulate):
    token = _fp.quiet()  # NaN and inf flow through backward silently, as torch's
    try:
        return _run_pass(roots, retain_graph, create_graph, targets, accumulate)
    finally:
        _fp.restore(token)


def _run_pass(roots, retain_graph, create_graph, targets, accumulate):
    run = _Run(_math.tensor_math if create_graph else _math.array_math, create_graph,
               retain_graph, targets, accumulate)
    if targets is not None:
        run.needed = _needed(roots, targets)
    for node, nr, seed in roots:
        _accumulate_buffer(run.buffers, node, nr, seed if create_graph else seed._data, run.m)
    nodes = list({id(n): n for n, _, _ in roots}.values())
    frontier = targets is None and not create_graph and not _graph_module._anomaly_mode
    for node in nodes:
        if type(node) is AccumulateGrad and _observed(node):
            frontier = False
    state = grad_mode._state  # grad mode is create_graph's during the pass (set_grad_enabled)
    prev = state.enabled
    state.enabled = bool(create_graph)
    try:
        if frontier:
            _walk_frontier(run, nodes)
        else:
            _walk_exact(run, nodes)
    finally:
        state.enabled = prev
    return run.captured


def _observed(sink):
    """Whether anything can see when this leaf's gradient lands (its hooks)."""
    return sink._special or bool(sink.variable.__dict__.get("_post_accumulate_hooks"))


def _walk_exact(run, pending, last=None):
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
        _run_sink(run, node)
    _walk(run, order)


def _walk_frontier(run, roots):
    """The common backward (no hooks, targets, anomaly or create_graph) without the DFS.

    Nodes run in descending sequence number, as in ``_walk``, but taken from the frontier of
    nodes that have received a gradient: the newest node of the frontier is ready, since any
    node still to feed it is newer and would be reached through a newer frontier node. In a chain
    the frontier is one node and no heap is used. Leaf sinks are filled as gradients arrive and
    run at the end: nothing can tell when they ran while no hook is set, and a hook anywhere
    sends the rest of the pass to ``_walk_exact``. If a node fails, the leaves whose feeders
    had all run are filled before the error propagates, as torch's engine would have.
    """
    heap = [(-n._seq, n) for n in roots if type(n) is not AccumulateGrad]
    heapq.heapify(heap)
    switch = _frontier_loop(run, heap)
    if switch is not None:
        _walk_exact(run, *switch)
        return
    for node in [n for n in run.buffers if type(n) is AccumulateGrad]:
        _run_sink(run, node)


def _fill_ready_sinks(run, pending):
    """After a failure: run the leaf sinks that nothing in ``pending`` (or below) still feeds."""
    order, run.sinks = _graph(pending)
    for node in [n for n in run.buffers if type(n) is AccumulateGrad]:
        if not run.sinks.get(node):
            _run_sink(run, node)


def _frontier_loop(run, heap):
    """``_walk_frontier``'s loop; returns None when done, or the arguments of ``_walk_exact``."""
    buffers, m, retain_graph = run.buffers, run.m, run.retain_graph
    get, pop = buffers.get, buffers.pop
    node = nxt_node = None
    try:  # (free in CPython 3.11+ until something raises)
        while True:
            if nxt_node is not None:
                node = nxt_node
                nxt_node = None
                if heap and heap[0][0] < -node._seq:  # an older-made frontier node is newer
                    node = heapq.heapreplace(heap, (-node._seq, node))[1]
            elif heap:
                node = heapq.heappop(heap)[1]
            else:
                return None
            if node._special:
                return [node] + [n for _, n in heap], None
            grads = pop(node)
            kind = node._fast
            if kind:  # ops.fastpath's nodes, run inline; a chain of them passes g in a local
                while True:
                    if kind == PASS:
                        g = grads
                    elif kind == SAVED_ONE:
                        saved = node._saved
                        if not saved:
                            _raise_freed()
                        item, version = saved[0], node._versions[0]
                        if item._vc[0] != version:
                            node._raise_modified(item, version)
                        if not retain_graph:
                            node._saved = FREED
                        g = node._formula(grads, item._data)
                    elif kind == SCALAR:
                        saved = node._saved
                        if not saved:
                            _raise_freed()
                        if not retain_graph:
                            node._saved = FREED
                        g = node._formula(grads, saved[1])
                    else:
                        g = node._formula(grads)
                    nxt, nr = node.next_functions[0]
                    if type(g) is not _ndarray:  # 0-d arithmetic gives a NumPy scalar
                        g = np.asarray(g)
                    if len(nxt._shapes) != 1:
                        break
                    prev = get(nxt)
                    if prev is not None:
                        buffers[nxt] = prev + g
                        break
                    kind = nxt._fast
                    if kind and not nxt._special and (not heap or heap[0][0] > -nxt._seq):
                        node, grads = nxt, g  # nxt is the newest frontier node: run it now
                        continue
                    buffers[nxt] = g
                    if type(nxt) is AccumulateGrad:
                        if _observed(nxt):
                            return [n for _, n in heap], node
                    elif nxt_node is None:
                        nxt_node = nxt
                    else:
                        heapq.heappush(heap, (-nxt._seq, nxt))
                    break
                if len(nxt._shapes) == 1:
                    continue
                outs, edges = (g,), ((nxt, nr),)  # into one slot of a multi-output node
            else:
                outs = _plain_outs(node, grads, m, retain_graph)
                edges = node.next_functions
            observed = False
            for (nxt, nr), g in zip(edges, outs):
                if nxt is None or g is None:
                    continue
                shapes = nxt._shapes
                if type(g) is not _ndarray or g.shape != shapes[nr] \
                        or g.dtype is not nxt._dtypes[nr]:
                    g = m.conform(g, shapes[nr], nxt._dtypes[nr])
                prev = get(nxt)
                if len(shapes) == 1:  # one output: the buffer holds the bare gradient
                    buffers[nxt] = g if prev is None else prev + g
                else:
                    slots = buffers[nxt] = [None] * len(shapes) if prev is None else prev
                    slots[nr] = g if slots[nr] is None else slots[nr] + g
                if prev is not None:
                    continue
                if type(nxt) is AccumulateGrad:
                    observed = observed or _observed(nxt)
                elif nxt_node is None:
                    nxt_node = nxt
                else:
                    heapq.heappush(heap, (-nxt._seq, nxt))
            if observed:
                return [n for _, n in heap] + ([nxt_node] if nxt_node is not None else []), node
    except BaseException:
        # torch's engine would have filled every leaf whose feeders had all run: so do we
        pending = [n for _, n in heap] + [n for n in (node, nxt_node) if n is not None]
        _fill_ready_sinks(run, pending)
        raise


def _walk(run, order):
    """The hot loop: run each node on its summed gradient and pass results to its inputs."""
    buffers, sinks, m = run.buffers, run.sinks, run.m
    create_graph, retain_graph = run.create_graph, run.retain_graph
    plain = run.targets is None and not _graph_module._anomaly_mode and not create_graph
    pop = buffers.pop
    for node in order:
        grads = pop(node, None)
        if grads is None:
            _skip(run, node)
            continue
        if not plain or node._special:
            outs = _run_general(run, node, grads if type(grads) is list else [grads])
            if outs is None:
                _skip(run, node)
                continue
        else:
            outs = _plain_outs(node, grads, m, retain_graph)
        edges = node.next_functions
        for (nxt, nr), g in zip(edges, outs):
            if nxt is None:
                continue
            if g is not None:
                shapes = nxt._shapes
                if type(g) is not _ndarray or g.shape != shapes[nr] \
                        or g.dtype is not nxt._dtypes[nr] or create_graph:
                    g = m.conform(g, shapes[nr], nxt._dtypes[nr])
                if len(shapes) == 1:  # one output: the buffer holds the bare gradient
                    prev = buffers.get(nxt)
                    buffers[nxt] = g if prev is None else prev + g
                else:
                    slots = buffers.get(nxt)
                    if slots is None:
                        slots = buffers[nxt] = [None] * len(shapes)
                    prev = slots[nr]
                    slots[nr] = g if prev is None else prev + g
            if type(nxt) is AccumulateGrad:
                left = sinks[nxt] - 1
                sinks[nxt] = left
                if not left:
                    _run_sink(run, nxt)
        if len(outs) < len(edges):
            _skip(run, node, len(outs))


def _plain_outs(node, g, m, retain_graph):
    """A node's backward on arrays: Node._unpack's checks, inlined for the common cases."""
    saved = node._saved
    if not saved:
        if saved is FREED:
            _raise_freed()  # an earlier backward freed the graph
        outs = node.backward(m, g)
    elif len(saved) == 1:
        item, version = saved[0], node._versions[0]
        if version is not None:
            if item._vc[0] != version:
                node._raise_modified(item, version)
            item = item._data
        outs = node.backward(m, g, item)
    elif len(saved) == 2:  # a binary op's (a, b), or (None, scalar): Node._unpack inlined
        a, b = saved
        if node._versions is not UNVERSIONED_PAIR:
            va, vb = node._versions
            if va is not None:
                if a._vc[0] != va:
                    node._raise_modified(a, va)
                a = a._data
            if vb is not None:
                if b._vc[0] != vb:
                    node._raise_modified(b, vb)
                b = b._data
        outs = node.backward(m, g, a, b)  # (a *saved call is slower)
    else:
        outs = node.backward(m, g, *node._unpack(False))
    if saved and not retain_graph:
        node._saved = FREED
    return outs if type(outs) is tuple else (outs,)


def _skip(run, node, start=0):
    """A node that produced nothing still counts as done for the leaves it feeds."""
    sinks = run.sinks
    for nxt, _ in node.next_functions[start:]:
        if type(nxt) is AccumulateGrad:
            left = sinks[nxt] - 1
            sinks[nxt] = left
            if not left:
                _run_sink(run, nxt)


def _run_general(run, node, grads):
    """A node with hooks, retained grads, capture targets or anomaly checks; None to skip."""
    grads = _pre_hooks(node, grads, run.create_graph)
    if run.targets is not None:
        _capture(node, grads, run.targets, run.captured)
    if run.needed is not None and node not in run.needed:
        return None
    return _run_node(node, grads, run.m, run.create_graph, run.retain_graph)


def _run_sink(run, node):
    """AccumulateGrad: hooks, capture for grad(), then add into the leaf's .grad."""
    grads = run.buffers.pop(node, None)
    if grads is None:
        return
    grads = [grads]  # a sink has one input: its buffer holds the bare gradient
    grads = _pre_hooks(node, grads, run.create_graph)
    targets = run.targets
    if targets is not None:
        _capture(node, grads, targets, run.captured)
    if run.accumulate and (targets is None or node in targets) and grads[0] is not None:
        _accumulate_grad(node.variable, grads[0], run.create_graph)
        for hook in node.variable.__dict__.get("_post_accumulate_hooks", ()):
            hook(node.variable)


def _capture(node, grads, targets, captured):
    for nr in targets.get(node, ()):
        if grads[nr] is not None:
            captured[(node, nr)] = _as_tensor(grads[nr])


def _needed(roots, targets):
    """Nodes with a target somewhere below them: only these need to run."""
    order, visited = [], set()
    stack = [(node, False) for node, _, _ in roots]
    while stack:
        node, done = stack.pop()
        if done:
            order.append(node)
            continue
        if node in visited:
            continue
        visited.add(node)
        stack.append((node, True))
        stack.extend((nx, False) for nx, _ in node.next_functions
                     if nx is not None and nx not in visited)
    needed = set()
    for node in order:  # post-order: children first
        if any(nx is not None and (nx in targets or nx in needed)
               for nx, _ in node.next_functions):
            needed.add(node)
    return needed


def _run_node(node, grads, m, create_graph, retain_graph):
    if _graph_module._anomaly_mode:
        return _run_node_anomaly(node, grads, m, create_graph, retain_graph)
    saved = node._unpack(create_graph)
    outs = node.backward(m, grads[0] if len(grads) == 1 else grads, *saved)
    if type(outs) is not tuple:
        outs = (outs,)
    if node._hooks is not None:
        outs = _post_hooks(node, outs, grads, create_graph)
    if not retain_graph:
        node._release()
    return outs


def _run_node_anomaly(node, grads, m, create_graph, retain_graph):
    from . import anomaly
    _graph_module._anomaly_mode = False  # the checks themselves must not recurse
    try:
        outs = _run_node(node, grads, m, create_graph, retain_graph)
    except Exception as error:
        raise anomaly.annotate(error, node)
    finally:
        _graph_module._anomaly_mode = True
    anomaly.check_backward(node, outs)
    return outs


def _accumulate_buffer(buffers, node, nr, g, m):
    g = m.conform(g, node._shapes[nr], node._dtypes[nr])
    slots = buffers.get(node)
    if len(node._shapes) == 1:  # one output: the buffer holds the bare gradient
        buffers[node] = g if slots is None else slots + g
        return
    if slots is None:
        slots = [None] * len(node._shapes)
        buffers[node] = slots
    prev = slots[nr]
    slots[nr] = g if prev is None else prev + g


def _as_tensor(g):
    return g if isinstance(g, Tensor) else Tensor._make(g)


def _pre_hooks(node, grads, create_graph):
    hooks = node._tensor_pre_hooks
    if hooks:
        for nr, fn in list(hooks):
            if grads[nr] is None:
                continue
            res = fn(_as_tensor(grads[nr]))
            if res is not None:
                grads[nr] = res if create_graph else res._data
    if node._pre_hooks:
        for fn in node._pre_hooks:
            res = fn(tuple(_as_tensor(g) if g is not None else None for g in grads))
            if res is not None:
                grads = [g if g is None or create_graph else g._data for g in res]
    _retain_grads(node, grads)
    return grads


def _retain_grads(node, grads):
    retained = node._retained
    if not retained:
        return
    for nr, ref in retained.items():
        t = ref()
        if t is not None and grads[nr] is not None:
            g = grads[nr]
            g = Tensor._make(np.array(g, copy=True)) if not isinstance(g, Tensor) else g
            t._grad = g if t._grad is None else Tensor._make(t._grad._data + g._data)


def _post_hooks(node, outs, grads, create_graph):
    for fn in node._hooks:
        res = fn(tuple(_as_tensor(g) if g is not None else None for g in outs),
                 tuple(_as_tensor(g) if g is not None else None for g in grads))
        if res is not None:
            outs = tuple(r._data if isinstance(r, Tensor) and not create_graph else r
                         for r in res)
    return outs


def _accumulate_grad(var, g, create_graph):
    if isinstance(g, Tensor):  # create_graph: grads are graph tensors; accumulate out of place
        var._grad = g if var._grad is None else var._grad + g
        return
    old = var._grad
    if old is None:
        var._grad = Tensor._make(np.array(g, dtype=var._data.dtype, copy=True))
    elif old._requires_grad:
        var._grad = Tensor._make(old._data + g)
    else:
        np.add(old._data, g, out=old._data, casting="unsafe")
