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


def call_with_hooks(module, args, kwargs):
    """module.forward with every registered hook; the slow path of Module.__call__."""
    args, kwargs = _run_pre_hooks(module, args, kwargs)
    backward = (module._backward_hooks or module._backward_pre_hooks) and \
        grad_mode.is_grad_enabled()
    state = {"inputs": False}
    if backward:
        args = _wrap_inputs(module, args, state)
    output = module.forward(*args, **kwargs)
    with_kwargs = module._hooks_with_kwargs
    for hook_id, hook in list(module._forward_hooks.items()):
        result = hook(module, args, kwargs, output) if hook_id in with_kwargs \
            else hook(module, args, output)
        if result is not None:
            output = result
    if backward:
        output = _wrap_outputs(module, output, len(args), state)
    return output


def _run_pre_hooks(module, args, kwargs):
    with_kwargs = module._hooks_with_kwargs
    for hook_id, hook in list(module._forward_pre_hooks.items()):
        if hook_id in with_kwargs:
            result = hook(module, args, kwargs)
            if result is not None:
                args, kwargs = result
        else:
            result = hook(module, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    return args, kwargs


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
