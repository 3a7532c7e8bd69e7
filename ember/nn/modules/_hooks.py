"""Running a module's hooks: forward pre/post hooks, and full backward (pre-)hooks through
identity nodes placed on the module's inputs and outputs."""
import warnings

from ..._handles import RemovableHandle  # noqa: F401  (the handles the methods return)
from ..._tensor import Tensor
from ...autograd import grad_mode
from ...autograd.graph import Node, _edge


class BackwardHookFunctionBackward(Node):
    """Identity on several tensors (torch's name); its backward passes the gradients through
    ``callback``, which may replace them."""

    def backward(self, m, grads, *saved):
        grads = list(grads) if len(self._shapes) > 1 else [grads]
        return tuple(self.callback(m, grads))


def _identity(tensors, callback):
    """New tensors (same memory and version counter) whose gradients reach ``callback``."""
    node = BackwardHookFunctionBackward()
    node.callback = callback
    node._record(tuple(_edge(t) for t in tensors), (), outputs=(
        tuple(t._data.shape for t in tensors), tuple(t._data.dtype for t in tensors)))
    outs = []
    for i, t in enumerate(tensors):
        out = Tensor._make(t._data, True, node)
        out._output_nr, out._vc = i, t._vc
        outs.append(out)
    return outs


def _as_tensors(grads):
    return tuple(g if g is None or isinstance(g, Tensor) else Tensor._make(g) for g in grads)


def _as_grads(m, values):
    return [v if v is None or m.is_graph or not isinstance(v, Tensor) else v._data
            for v in values]


def _needs_grad(x):
    return isinstance(x, Tensor) and x._requires_grad


class _Call:
    """What one hooked call has reached: its arguments (after the pre-hooks), its output (after
    each forward hook) and the always_call hooks already run."""

    __slots__ = ("args", "kwargs", "output", "called")

    def __init__(self, args, kwargs):
        self.args, self.kwargs, self.output, self.called = args, kwargs, None, set()


def call_with_hooks(module, args, kwargs):
    """module.forward with every registered hook; the slow path of Module.__call__. Forward
    hooks registered with always_call run even when a hook or forward raised."""
    call = _Call(args, kwargs)
    always = module.__dict__.get("_forward_hooks_always_called")
    if not always or always.isdisjoint(module._forward_hooks):
        return _call(module, call, always)
    try:
        return _call(module, call, always)
    except Exception:
        _run_always_called(module, call, always)
        raise


def _call(module, call, always):
    _run_pre_hooks(module, call)
    args, kwargs = call.args, call.kwargs
    backward = (module._backward_hooks or module._backward_pre_hooks) and \
        grad_mode.is_grad_enabled()
    state = {"inputs": False}
    given = args
    if backward:
        args = call.args = _wrap_inputs(module, args, state)
    output = call.output = module.forward(*args, **kwargs)
    with_kwargs = module._hooks_with_kwargs
    for hook_id, hook in list(module._forward_hooks.items()):
        if always and hook_id in always:
            call.called.add(hook_id)
        result = hook(module, args, kwargs, output) if hook_id in with_kwargs \
            else hook(module, args, output)
        if result is not None:
            output = call.output = result
    if module._backward_hooks and module.__dict__.get("_is_full_backward_hook") is False:
        _warn_non_full(given, output)
    if backward:
        output = _wrap_outputs(module, output, len(args), state)
    return output


def _run_always_called(module, call, always):
    """After an error: the always_call hooks not yet run, each given what the call reached;
    their own errors become warnings (the first error is the one raised)."""
    for hook_id, hook in list(module._forward_hooks.items()):
        if hook_id not in always or hook_id in call.called:
            continue
        try:
            result = hook(module, call.args, call.kwargs, call.output) \
                if hook_id in module._hooks_with_kwargs else hook(module, call.args, call.output)
            if result is not None:
                call.output = result
        except Exception as e:
            warnings.warn("module forward hook with ``always_call=True`` raised an exception "
                          f"that was silenced as another error was raised in forward: {e}",
                          stacklevel=3)


_NON_FULL = ("Using a non-full backward hook when {} is deprecated and will be removed in "
             "future versions. This hook will be missing some {}.")
_PLEASE = " Please use register_full_backward_hook to get the documented behavior."


def _first_tensor(output):
    while not isinstance(output, Tensor):
        items = list(output.values()) if isinstance(output, dict) else \
            output if isinstance(output, (tuple, list)) else ()
        if not items:
            return None
        output = items[0]
    return output


def _next_nodes(node):
    """The nodes ``node`` feeds, seen through the identity node the full hooks put on the
    inputs (torch's old hooks put none there)."""
    nodes = set()
    for n, _ in node.next_functions:
        nodes |= _next_nodes(n) if isinstance(n, BackwardHookFunctionBackward) else {n}
    return nodes


def _warn_non_full(args, output):
    """torch's FutureWarnings for a hook registered with register_backward_hook where its old
    (node-level) hook would see only part of the gradients: outputs not one tensor or a tuple,
    outputs from several nodes, or a forward of several nodes (a parameter's, a leaf input's
    accumulation, ...). ember runs the hook as the full one; the warning still says the call
    is deprecated. ``args``: the inputs as given, before the full hooks' identity node."""
    first = _first_tensor(output)
    if first is None or first.grad_fn is None:
        return
    outputs = (output,) if isinstance(output, Tensor) else output
    if not isinstance(outputs, tuple) or not all(isinstance(o, Tensor) for o in outputs):
        message = ("Using non-full backward hooks on a Module that does not return a single "
                   "Tensor or a tuple of Tensors is deprecated and will be removed in future "
                   "versions. This hook will be missing some of the grad_output." + _PLEASE)
    elif not all(isinstance(a, Tensor) for a in args):
        message = ("Using non-full backward hooks on a Module that does not take as input a "
                   "single Tensor or a tuple of Tensors is deprecated and will be removed in "
                   "future versions. This hook will be missing some of the grad_input." + _PLEASE)
    else:
        nodes = {o.grad_fn for o in outputs if o.grad_fn is not None}
        if len(nodes) > 1:
            message = _NON_FULL.format("outputs are generated by different autograd Nodes",
                                       "grad_output") + _PLEASE
        elif first.grad_fn not in nodes:
            message = _NON_FULL.format("outputs are nested in python data structure",
                                       "grad_output")
        elif {a.grad_fn for a in args if a.grad_fn is not None} != _next_nodes(first.grad_fn):
            message = _NON_FULL.format("the forward contains multiple autograd Nodes",
                                       "grad_input") + _PLEASE
        else:
            return
    warnings.warn(message, FutureWarning, stacklevel=4)


def _run_pre_hooks(module, call):
    with_kwargs = module._hooks_with_kwargs
    for hook_id, hook in list(module._forward_pre_hooks.items()):
        if hook_id in with_kwargs:
            result = hook(module, call.args, call.kwargs)
            if result is not None:
                call.args, call.kwargs = result
        else:
            result = hook(module, call.args)
            if result is not None:
                call.args = result if isinstance(result, tuple) else (result,)


def _wrap_inputs(module, args, state):
    """Route the grad-requiring positional inputs through one node that fires the hooks."""
    positions = [i for i, a in enumerate(args) if _needs_grad(a)]
    if not positions:
        return args

    def on_inputs(m, grads):
        grad_input = [None] * len(args)
        for pos, g in zip(positions, grads):
            grad_input[pos] = g
        grad_input = _call_backward_hooks(module, _as_tensors(grad_input), state)
        return _as_grads(m, [grad_input[pos] for pos in positions])

    state["inputs"] = True
    wrapped = _identity([args[i] for i in positions], on_inputs)
    args = list(args)
    for pos, tensor in zip(positions, wrapped):
        args[pos] = tensor
    return tuple(args)


def _wrap_outputs(module, output, n_args, state):
    single = isinstance(output, Tensor)
    items = [output] if single else list(output) if isinstance(output, (tuple, list)) else None
    if items is None:
        return output
    positions = [i for i, o in enumerate(items) if _needs_grad(o)]
    if not positions:
        return output

    def on_outputs(m, grads):
        grad_output = _as_tensors(grads)
        for hook in list(module._backward_pre_hooks.values()):
            result = hook(module, grad_output)
            if result is not None:
                grad_output = _as_tensors(result if isinstance(result, tuple) else (result,))
        state["grad_output"] = grad_output
        if not state["inputs"]:  # nothing upstream needs a gradient: fire the hooks now
            warnings.warn("Full backward hook is firing when gradients are computed with "
                          "respect to module outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=2)
            _call_backward_hooks(module, (None,) * n_args, state)
        return _as_grads(m, grad_output)

    wrapped = _identity([items[i] for i in positions], on_outputs)
    for pos, tensor in zip(positions, wrapped):
        items[pos] = tensor
    return items[0] if single else type(output)(items)


def _call_backward_hooks(module, grad_input, state):
    grad_output = state.get("grad_output", ())
    for hook in list(module._backward_hooks.values()):
        result = hook(module, grad_input, grad_output)
        if result is not None:
            grad_input = _as_tensors(result if isinstance(result, tuple) else (result,))
    return grad_input
