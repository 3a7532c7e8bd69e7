"""torch.func.vmap by a loop: ``func`` runs once per index of the mapped dimension, on each batched
input's slice there (a view), and the outputs are stacked along ``out_dims``. The values are
exactly the per-sample ones, and gradients flow back through the slices and the stack; what a
real batching transform adds (one call over the whole batch, speed) is not attempted. Also
stack_module_state, for model ensembling under vmap."""
import functools

from .. import random as _random
from .._tensor import Tensor
from ..ops import api

_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please either "
                 "use the 'same' or 'different' randomness flags on vmap or perform the "
                 "randomness operation out of vmap")


def _flatten(tree, dims):
    """(leaves, their in_dims): ``dims`` is an int/None for the whole subtree, or the same
    structure as ``tree`` (a prefix of it, as torch's pytrees)."""
    if isinstance(tree, (tuple, list)):
        if isinstance(dims, (tuple, list)):
            if len(dims) != len(tree):
                raise ValueError(f"in_dims is not compatible with the structure of `inputs`. "
                                 f"in_dims has structure {_shape(dims)} but inputs has "
                                 f"structure {_shape(tree)}.")
            pairs = [_flatten(t, d) for t, d in zip(tree, dims)]
        else:
            pairs = [_flatten(t, dims) for t in tree]
        return [leaf for p in pairs for leaf in p[0]], [d for p in pairs for d in p[1]]
    if isinstance(tree, dict):
        pairs = [_flatten(tree[k], dims[k] if isinstance(dims, dict) else dims) for k in tree]
        return [leaf for p in pairs for leaf in p[0]], [d for p in pairs for d in p[1]]
    if isinstance(dims, (tuple, list, dict)):
        raise ValueError("in_dims is not compatible with the structure of `inputs`.")
    return [tree], [dims]


def _shape(tree):
    if isinstance(tree, (tuple, list)):
        return f"{type(tree).__name__}({len(tree)})"
    return type(tree).__name__


def _rebuild(tree, leaves):
    if isinstance(tree, (tuple, list)):
        return type(tree)(_rebuild(item, leaves) for item in tree)
    if isinstance(tree, dict):
        return {key: _rebuild(item, leaves) for key, item in tree.items()}
    return next(leaves)


def _check_in_dims(leaves, dims, name):
    sizes = []
    for leaf, dim in zip(leaves, dims):
        if dim is None:
            continue
        if not isinstance(dim, int) or isinstance(dim, bool):
            raise ValueError(f"vmap({name}, in_dims=...): expected in_dims to be int or a "
                             f"(potentially nested) tuple matching the structure of inputs, "
                             f"got: {type(dim)}.")
        if not isinstance(leaf, Tensor):
            raise ValueError(f"vmap({name}, in_dims=...)(<inputs>): Got in_dim={dim} for an "
                             f"input but the input is of type {type(leaf)}. We cannot vmap "
                             "over non-Tensor arguments, please use None as the respective "
                             "in_dim")
        if not -leaf.ndim <= dim < max(leaf.ndim, 1) or leaf.ndim == 0:
            raise ValueError(f"vmap({name}, in_dims=...)(<inputs>): Got in_dim={dim} for some "
                             f"input, but that input is a Tensor of dimensionality {leaf.ndim} "
                             f"so expected in_dim to satisfy -{leaf.ndim} <= in_dim < "
                             f"{leaf.ndim}.")
        sizes.append(leaf.shape[dim])
    if not sizes:
        raise ValueError(f"vmap({name}, in_dims=...)(<inputs>): at least one input must be "
                         "batched (have an in_dim that is not None)")
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


def _stack(outputs, out_dims, name):
    """Stack the per-sample outputs (each a pytree of tensors) along their out_dims."""
    first = outputs[0]
    if isinstance(first, (tuple, list)):
        dims = out_dims if isinstance(out_dims, (tuple, list)) else [out_dims] * len(first)
        return type(first)(_stack([o[i] for o in outputs], dims[i], name)
                           for i in range(len(first)))
    if isinstance(first, dict):
        return {k: _stack([o[k] for o in outputs], out_dims[k] if isinstance(out_dims, dict)
                          else out_dims, name) for k in first}
    if out_dims is None:
        return first
    if not isinstance(first, Tensor):
        raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                         f"{type(first)}. Did you mean to set out_dims= to None for output?")
    return api.stack(outputs, out_dims)


def _call_once(func, args, kwargs, randomness, start_state):
    if randomness == "same":
        _random.set_rng_state(start_state)
    before = _random.get_rng_state() if randomness == "error" else None
    out = func(*args, **kwargs)
    if before is not None and not api.equal(before, _random.get_rng_state()):
        raise RuntimeError(_RANDOM_ERROR)
    return out


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``func`` mapped over the ``in_dims`` dimension of its inputs (see the module docstring:
    one call per index, exact per-sample values and gradients)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    name = getattr(func, "__name__", repr(func))

    @functools.wraps(func)
    def mapped(*args, **kwargs):
        if isinstance(in_dims, (tuple, list)) and len(in_dims) != len(args):
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                             f"compatible with the structure of `inputs`. in_dims has structure "
                             f"{_shape(in_dims)} but inputs has structure {_shape(args)}.")
        leaves, leaf_dims = _flatten(tuple(args), in_dims)
        size = _check_in_dims(leaves, leaf_dims, name)
        start = _random.get_rng_state() if randomness == "same" else None
        outputs = []
        for i in range(size):
            sliced = iter([leaf if d is None else leaf.select(d, i)
                           for leaf, d in zip(leaves, leaf_dims)])
            outputs.append(_call_once(func, _rebuild(tuple(args), sliced), kwargs, randomness,
                                      start))
        return _stack(outputs, out_dims, name)
    return mapped


def stack_module_state(models):
    """(params, buffers): each name's tensors of the same-shaped ``models`` stacked along a new
    first dim, as fresh leaves (parameters keep requires_grad), for functional_call under
    vmap."""
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if any(m.training != models[0].training for m in models):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/"
                           "eval mode.")

    def stacked(named):
        out = {}
        for key in named[0]:
            value = api.stack([n[key].detach() for n in named])
            out[key] = value.requires_grad_() if named[0][key].requires_grad else value
        return out
    params = stacked([dict(m.named_parameters()) for m in models])
    buffers = stacked([dict(m.named_buffers()) for m in models])
    return params, buffers
