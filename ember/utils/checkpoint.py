"""torch.utils.checkpoint: activation checkpointing. A checkpointed function's forward keeps
no saved tensors: backward recomputes the function (with the random state it first ran with)
to get them back.

Non-reentrant (``use_reentrant=False``, torch's recommended form) is built on
``autograd.graph.saved_tensors_hooks``: during the forward every tensor an op saves is packed
as its position in saving order; the first unpack reruns the function with hooks that collect
the recomputed saved tensors in the same order, and each unpack returns its own. Gradients
reach the inputs and every parameter the function uses, as torch's.

Reentrant (``use_reentrant=True``) is an ``autograd.Function`` running the function under
no_grad; its backward reruns it with grad enabled on detached inputs and backpropagates
through that graph (parameters' gradients accumulate there), as torch's.
"""
import warnings

from .. import random as _random
from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd.engine import backward as _backward
from ..autograd.function import Function
from ..autograd.graph import saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "detach_variable",
           "get_device_states", "set_device_states"]


class CheckpointError(RuntimeError):
    """The recomputation did not save what the forward saved (a nondeterministic function)."""


class _Rng:
    """The default generator's state at the forward, restored around each recomputation."""

    def __init__(self, preserve):
        self.state = _random.get_rng_state() if preserve else None

    def __enter__(self):
        if self.state is not None:
            self.outer = _random.get_rng_state()
            _random.set_rng_state(self.state)

    def __exit__(self, *exc_info):
        if self.state is not None:
            _random.set_rng_state(self.outer)


def detach_variable(inputs):
    """Each tensor of ``inputs`` detached, keeping its requires_grad (others as they are)."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    return tuple(x.detach().requires_grad_(x.requires_grad) if isinstance(x, Tensor) else x
                 for x in inputs)


def get_device_states(*args):
    """The accelerator devices holding tensors of ``args`` and their generators' states, as
    two lists: both empty in ember, whose tensors live on the CPU (or the meta device), whose
    state ``checkpoint`` keeps through the default generator."""
    return [], []


def set_device_states(devices, states, *, device_type=None):
    """Restore the accelerator generator states ``get_device_states`` returned; ember has no
    accelerator, so only the empty lists it returns are accepted."""
    if len(devices) or len(states):
        raise RuntimeError("set_device_states: ember has no accelerator devices, got devices "
                           f"{list(devices)}")


def _non_reentrant(function, rng, args, kwargs):
    count = [0]
    recomputed = []

    def pack(tensor):
        count[0] += 1
        return count[0] - 1

    def recompute():
        def keep(tensor):
            recomputed.append(tensor)
            return len(recomputed) - 1

        with rng, grad_mode.enable_grad(), saved_tensors_hooks(keep, recomputed.__getitem__):
            function(*detach_variable(tuple(args)), **kwargs)
        if len(recomputed) != count[0]:
            raise CheckpointError(
                f"torch.utils.checkpoint: A different number of tensors was saved during the "
                f"original forward and recomputation.\nNumber of tensors saved during forward: "
                f"{count[0]}\nNumber of tensors saved during recomputation: {len(recomputed)}")

    def unpack(index):
        if not recomputed and count[0]:
            recompute()
        return recomputed[index]

    with saved_tensors_hooks(pack, unpack):
        return function(*args, **kwargs)


class _CheckpointFunction(Function):
    @staticmethod
    def forward(ctx, function, rng, *args):
        ctx.function, ctx.rng = function, rng
        ctx.tensor_at = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.others = list(args)
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_at))
        with grad_mode.no_grad():
            return function(*args)

    @staticmethod
    def backward(ctx, *grads):
        args = list(ctx.others)
        for i, t in zip(ctx.tensor_at, ctx.saved_tensors):
            args[i] = t
        inputs = detach_variable(tuple(args))
        with ctx.rng, grad_mode.enable_grad():
            outputs = ctx.function(*inputs)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not "
                               "necessary")
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in inputs)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, preserve_rng_state=True, **kwargs):
    """function(*args, **kwargs), its intermediate results recomputed in backward instead of
    kept (see the module docstring)."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed "
                      "explicitly. Starting in PyTorch 2.9, calling checkpoint without "
                      "use_reentrant will raise an exception. use_reentrant=False is "
                      "recommended, but if you need to preserve the current default behavior, "
                      "you can pass use_reentrant=True. Refer to docs for more details on the "
                      "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    if determinism_check not in ("default", "none"):
        raise ValueError("determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    rng = _Rng(preserve_rng_state)
    if not use_reentrant:
        if context_fn is not None:
            raise NotImplementedError("ember's checkpoint does not take context_fn (selective "
                                      "checkpointing)")
        return _non_reentrant(function, rng, args, kwargs)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if context_fn is not None:
        raise ValueError("Passing `context_fn` or `debug` is only supported when "
                         "use_reentrant=False.")
    if grad_mode.is_grad_enabled() and not any(
            isinstance(a, Tensor) and a.requires_grad for a in args):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=2)
    return _CheckpointFunction.apply(function, rng, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a Sequential or a list) on ``input`` in ``segments`` chunks, each
    checkpointed except the last."""
    if isinstance(functions, Tensor) or not hasattr(functions, "__iter__"):
        raise TypeError("checkpoint_sequential expects functions to be a Sequential or a list")
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)
    size = len(functions) // segments
    end = -1

    def run(start, stop):
        def forward(x):
            for fn in functions[start:stop + 1]:
                x = fn(x)
            return x
        return forward

    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, **kwargs)
    return run(end + 1, len(functions) - 1)(input)
