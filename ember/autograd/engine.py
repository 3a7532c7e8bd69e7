"""The backward pass: backward() and grad(), their checks, and the choice of walk (``_walk``)."""
import numpy as np

from .. import _fp
from .._tensor import Tensor
from . import _math, grad_mode
from . import graph as _graph_module
from ._run import Run, deliver, observed
from ._walk import walk_exact, walk_frontier
from .graph import AccumulateGrad


def _make_seed(tensor, gradient):
    if gradient is None:
        if tensor._data.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        if tensor._data.dtype.kind not in "fV":  # "V": bfloat16
            raise RuntimeError(f"grad can be implicitly created only for real scalar outputs "
                               f"but got {tensor.dtype}")
        data = tensor._data
        if type(data) is not np.ndarray:  # (a meta placeholder)
            return Tensor._make(np.ones_like(data))
        seed = np.empty_like(data)  # np.ones_like's two steps, without its Python layers
        seed.fill(1)
        return Tensor._make(seed)
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
    for i, t in enumerate(outputs):  # (the outputs are checked first, as torch's engine)
        if isinstance(t, Tensor) and not t._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")
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


def _execute(roots, retain_graph, create_graph, targets, accumulate):
    token = _fp.quiet()  # NaN and inf flow through backward silently, as torch's
    try:
        return _run_pass(roots, retain_graph, create_graph, targets, accumulate)
    finally:
        _fp.restore(token)


def _run_pass(roots, retain_graph, create_graph, targets, accumulate):
    run = Run(_math.tensor_math if create_graph else _math.array_math, create_graph,
              retain_graph, targets, accumulate)
    if targets is not None:
        run.needed = _needed(roots, targets)
    for node, nr, seed in roots:
        deliver(run, node, nr, seed if create_graph else seed._data)
    nodes = list({id(n): n for n, _, _ in roots}.values())
    frontier = targets is None and not create_graph and not _graph_module._anomaly_mode
    for node in nodes:
        if type(node) is AccumulateGrad and observed(node):
            frontier = False
    state = grad_mode._state  # grad mode is create_graph's during the pass (set_grad_enabled)
    prev = state.enabled
    state.enabled = bool(create_graph)
    try:
        if frontier:
            walk_frontier(run, nodes)
        else:
            walk_exact(run, nodes)
    finally:
        state.enabled = prev
    return run.captured


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
