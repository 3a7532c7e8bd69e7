"""functorch's make_functional(_with_buffers): a module as a function of its parameters."""
import copy

from .._creation import empty_like
from ..func import functional_call
from ..nn import Module, Parameter

__all__ = ["make_functional", "make_functional_with_buffers", "FunctionalModule",
           "FunctionalModuleWithBuffers"]


class FunctionalModule(Module):
    """``fmodel(params, *args)``: a copy of a module run with the given parameters."""

    def __init__(self, stateless_model, param_names):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = tuple(param_names)

    def forward(self, params, *args, **kwargs):
        return functional_call(self.stateless_model, dict(zip(self.param_names, params)), args,
                               kwargs)


class FunctionalModuleWithBuffers(Module):
    """``fmodel(params, buffers, *args)``: a copy of a module run with the given state."""

    def __init__(self, stateless_model, param_names, buffer_names):
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = tuple(param_names)
        self.buffer_names = tuple(buffer_names)

    def forward(self, params, buffers, *args, **kwargs):
        state = dict(zip(self.param_names, params))
        state.update(zip(self.buffer_names, buffers))
        return functional_call(self.stateless_model, state, args, kwargs)


def _split(model, disable_autograd_tracking):
    """A copy of ``model`` holding meta placeholders (as torch's stateless copy), with its
    parameters (detached if asked) and buffers, by name."""
    twin = copy.deepcopy(model)
    names, params = zip(*twin.named_parameters()) if list(twin.parameters()) else ((), ())
    buffer_names, buffers = zip(*twin.named_buffers()) if list(twin.buffers()) else ((), ())
    _to_placeholders(twin, names, params, Parameter)
    _to_placeholders(twin, buffer_names, buffers, lambda b: b)
    if disable_autograd_tracking:
        params = tuple(p.detach() for p in params)
    return twin, names, tuple(params), buffer_names, tuple(buffers)


def _to_placeholders(module, names, tensors, kind):
    """Replace each named tensor of ``module`` by ``kind`` of a meta tensor like it (shared
    tensors by one shared placeholder)."""
    made = {}
    for name, t in zip(names, tensors):
        path, _, leaf = name.rpartition(".")
        owner = module.get_submodule(path)
        if id(t) not in made:
            made[id(t)] = kind(empty_like(t, device="meta"))
        table = owner._parameters if leaf in owner._parameters else owner._buffers
        table[leaf] = made[id(t)]


def make_functional(model, disable_autograd_tracking=False):
    """(fmodel, params) for a module without buffers: ``fmodel(params, *args)``."""
    if list(model.buffers()):
        raise RuntimeError("make_functional(model): `model` has buffers. Please use "
                           "make_functional_with_buffers(model) instead.")
    twin, names, params, _, _ = _split(model, disable_autograd_tracking)
    return FunctionalModule(twin, names), params


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """(fmodel, params, buffers): ``fmodel(params, buffers, *args)``."""
    twin, names, params, buffer_names, buffers = _split(model, disable_autograd_tracking)
    return FunctionalModuleWithBuffers(twin, names, buffer_names), params, buffers
