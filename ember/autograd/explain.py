"""explain_grad: say why a tensor's ``.grad`` is None (or will be) after backward on a loss."""
from collections import namedtuple

from .._tensor import Tensor
from .graph import AccumulateGrad

GradExplanation = namedtuple("GradExplanation", ["reason", "message"])
GradExplanation.__str__ = lambda self: self.message
GradExplanation.__doc__ = """Why ``.grad`` is (or is not) None.

``reason`` is one of: 'has_grad', 'integer_dtype', 'non_leaf', 'detached', 'no_grad',
'no_requires_grad', 'loss_no_grad', 'not_connected', 'backward_not_run', 'will_have_grad'.
"""


def explain_grad(tensor, loss=None):
    """Explain why ``tensor.grad`` is None: non-leaf, detached, made under no_grad, integer dtype,
    or not connected to ``loss``. Returns a GradExplanation(reason, message); print it."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"explain_grad(): tensor must be a Tensor, got {type(tensor).__name__}")
    static = _static_reason(tensor)
    if static is not None:
        return static
    if loss is None:
        return _result("will_have_grad", f"{_describe(tensor)} requires grad; backward() on a "
                       "loss that depends on it will fill .grad. Pass the loss to check that "
                       "it is connected.")
    return _connection(tensor, loss)


def _result(reason, message):
    return GradExplanation(reason, message)


def _describe(t):
    kind = "leaf" if t._grad_fn is None else f"non-leaf (grad_fn={t._grad_fn.name()})"
    return f"This {kind} tensor of shape {list(t._data.shape)} and dtype {t.dtype}"


def _static_reason(t):
    """Reasons visible on the tensor alone, most specific first."""
    if t._grad is not None:
        return _result("has_grad", f"{_describe(t)} has a gradient: .grad is set.")
    if t._data.dtype.kind != "f":
        return _result("integer_dtype", f"{_describe(t)} can never have a gradient: only "
                       "floating point tensors can require gradients (convert it with "
                       ".float() or .double() before requires_grad_()).")
    if t._grad_fn is not None and not t._retains_grad:
        return _result("non_leaf", f"{_describe(t)} was computed by an op, so backward() does "
                       "not keep its .grad: only leaf tensors get one. Call .retain_grad() on it "
                       "before backward(), or make it a leaf (create it directly with "
                       "requires_grad=True, or use .detach().requires_grad_()).")
    if t._requires_grad:
        return None
    marks = t.__dict__
    if marks.get("_detached_origin"):
        return _result("detached", f"{_describe(t)} was detached from the graph (.detach() or "
                       ".detach_()), so no gradient flows to it or through it. Use the original "
                       "tensor in the computation of the loss.")
    if marks.get("_no_grad_origin"):
        return _result("no_grad", f"{_describe(t)} was created under no_grad()/inference_mode() "
                       "from inputs that required grad, so it was not recorded in the graph. "
                       "Compute it outside the no_grad block.")
    return _result("no_requires_grad", f"{_describe(t)} does not require grad: set "
                   "requires_grad=True when creating it (or call .requires_grad_()). Tensors "
                   "from .data, .item(), numpy or factory functions never require grad.")


def _connection(t, loss):
    if not isinstance(loss, Tensor):
        raise TypeError(f"explain_grad(): loss must be a Tensor, got {type(loss).__name__}")
    if loss._grad_fn is None:
        if loss is t:
            return _result("backward_not_run", f"{_describe(t)} is the loss itself; call "
                           "backward() on it.")
        return _result("loss_no_grad", f"{_describe(t)} requires grad, but the loss has no "
                       "grad_fn, so nothing connects them: the loss was computed under "
                       "no_grad()/inference_mode(), or only from tensors that do not require "
                       "grad (detached, .data, constants).")
    path = _path_to(loss._grad_fn, t)
    if path is None:
        return _result("not_connected", f"{_describe(t)} is not connected to the loss: no path "
                       f"leads from loss.grad_fn ({loss._grad_fn.name()}) to it. The loss was "
                       "computed from other tensors (a copy of it, a re-created parameter, or "
                       "values taken out with .data/.item()/.numpy()).")
    chain = " -> ".join(n.name() for n in path)
    return _result("backward_not_run", f"{_describe(t)} is connected to the loss ({chain}); its "
                   ".grad is None only because backward() has not run on this loss yet (or "
                   ".grad was reset, e.g. by zero_grad()).")


def _target_matches(node, t):
    if t._grad_fn is not None:
        return node is t._grad_fn
    return type(node) is AccumulateGrad and node.variable is t


def _path_to(root, t):
    """The nodes from ``root`` down to the one that feeds ``t`` (iterative search), or None."""
    parent = {root: None}
    stack = [root]
    while stack:
        node = stack.pop()
        if _target_matches(node, t):
            path = []
            while node is not None:
                path.append(node)
                node = parent[node]
            return path
        for nxt, _ in node.next_functions:
            if nxt is not None and nxt not in parent:
                parent[nxt] = node
                stack.append(nxt)
    return None
