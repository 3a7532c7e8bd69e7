"""torch.func: grad, grad_and_value, vjp, jacrev, hessian and functional_call over ember's autograd.

The transforms are compositions of ``autograd.grad``: each call differentiates with respect to
private copies of the chosen arguments, and keeps a graph through its results only where the
function reached tensors of an enclosing graph (an outer transform, a closure that requires
grad), so nesting (``jacrev(jacrev(f))``) works. vmap (``_vmap``) maps by a loop.
"""
import contextlib

from .._tensor import Tensor
from ..autograd.engine import grad as _engine_grad
from ..autograd.functional import _jacobian_of_output, _zeros_like
from ..autograd.grad_mode import enable_grad, is_grad_enabled
from ..nn.utils import stateless as _stateless
from ..utils import _pytree
from ._vmap import stack_module_state, vmap  # noqa: F401  (public)

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian",
           "functional_call", "vmap", "stack_module_state"]


def _leaves(tree):
    if isinstance(tree, Tensor):
        return [tree]
    if isinstance(tree, (tuple, list)):
        return [leaf for item in tree for leaf in _leaves(item)]
    if isinstance(tree, dict):
        return [leaf for item in tree.values() for leaf in _leaves(item)]
    raise TypeError(f"Expected tensors, or tuples, lists and dicts of them, got {type(tree)}")


def _rebuild(tree, leaves):
    """``tree`` with its tensor leaves replaced, in order, by those of the iterator ``leaves``."""
    if isinstance(tree, Tensor):
        return next(leaves)
    if isinstance(tree, (tuple, list)):
        return type(tree)(_rebuild(item, leaves) for item in tree)
    return {key: _rebuild(item, leaves) for key, item in tree.items()}


def _check_argnums(argnums, nargs):
    nums = argnums if isinstance(argnums, tuple) else (argnums,)
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in nums):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if not nums:
        raise RuntimeError("argnums must be non-empty")
    for n in nums:
        if not -nargs <= n < nargs:
            raise RuntimeError(f"Got argnum={n}, but only {nargs} positional inputs")
    return tuple(n % nargs for n in nums)


def _private(t, outer_grad):
    """A differentiable stand-in for ``t``: a view inside an enclosing graph, else a fresh leaf."""
    if t.requires_grad and outer_grad:
        return t.view(t.shape)
    return t.detach().requires_grad_()


def _reaches_outside(outputs, own):
    """Does the graph of ``outputs`` reach a leaf other than the private ones in ``own``?"""
    seen, todo = set(), [o.grad_fn for o in outputs if o.grad_fn is not None]
    own_ids = {id(t) for t in own}
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        variable = getattr(node, "variable", None)
        if variable is not None and id(variable) not in own_ids:
            return True
        todo.extend(n for n, _ in node.next_functions if n is not None)
    return any(o.grad_fn is None and o.requires_grad and id(o) not in own_ids for o in outputs)


class _Call:
    """One call of ``func`` on private copies of the differentiated arguments."""

    def __init__(self, func, args, kwargs, argnums, has_aux, api, outer_grad):
        """``outer_grad``: the grad mode of the caller (the call itself runs with grad on)."""
        self.argnums = _check_argnums(argnums, len(args))
        args = list(args)
        self.trees, self.inputs = [], []
        for n in self.argnums:
            args[n] = _rebuild(args[n], iter([_private(t, outer_grad) for t in _leaves(args[n])]))
            self.trees.append(args[n])
            self.inputs.extend(_leaves(args[n]))
        out = func(*args, **kwargs)
        self.aux = None
        if has_aux:
            if not (isinstance(out, tuple) and len(out) == 2):
                raise RuntimeError(f"{api}: output of function f should be a tuple: "
                                   "(output, aux) if has_aux is True")
            out, self.aux = out
        self.out = out
        self.own = [t for t in self.inputs if t.grad_fn is None]
        outs = [t for t in _leaves(out) if isinstance(t, Tensor)] if _is_tree(out) else []
        self.keep = outer_grad and _reaches_outside(outs, self.own)

    def grads_like_args(self, flat_grads, single):
        """Per differentiated argument, the gradients in the argument's structure."""
        flat = iter(flat_grads)
        trees = tuple(_rebuild(tree, flat) for tree in self.trees)
        return trees[0] if single else trees

    def finish(self, tree):
        """Results detached unless they carry an enclosing graph."""
        if self.keep or tree is None or not _is_tree(tree):
            return tree
        return _rebuild(tree, iter([t.detach() for t in _leaves(tree)]))


def _is_tree(tree):
    try:
        _leaves(tree)
    except TypeError:
        return False
    return True


def _zeros_for_missing(grads, inputs):
    return [g if g is not None else t.detach() * 0 for g, t in zip(grads, inputs)]


def grad_and_value(func, argnums=0, has_aux=False):
    """A function returning (gradient of ``func`` w.r.t. ``args[argnums]``, value of ``func``)."""
    api = "grad_and_value(f)(*args)"

    def wrapper(*args, **kwargs):
        outer_grad = is_grad_enabled()
        with enable_grad():
            call = _Call(func, args, kwargs, argnums, has_aux, api, outer_grad)
            out = call.out
            if not isinstance(out, Tensor):
                raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got "
                                   f"tensor with {out.dim()} dims. Maybe you wanted to use the vjp"
                                   " or jacrev APIs instead?")
            flat = _engine_grad((out,), call.inputs, create_graph=call.keep, allow_unused=True) \
                if out.requires_grad else (None,) * len(call.inputs)
        grads = call.finish(call.grads_like_args(_zeros_for_missing(flat, call.inputs),
                                                 not isinstance(argnums, tuple)))
        value = call.finish(out)
        return (grads, (value, call.finish(call.aux))) if has_aux else (grads, value)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """A function returning the gradient of scalar ``func`` w.r.t. ``args[argnums]``."""
    inner = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        grads, value = inner(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads
    return wrapper


def vjp(func, *primals, has_aux=False):
    """(func(*primals), vjp_fn[, aux]); vjp_fn(cotangents) -> one gradient per primal."""
    outer_grad = is_grad_enabled()
    with enable_grad():
        call = _Call(func, primals, {}, tuple(range(len(primals))), has_aux, "vjp(f, *primals)",
                     outer_grad)
    outs = _leaves(call.out)

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        create = call.keep if create_graph is None else create_graph
        cots = _leaves(cotangents)
        if len(cots) != len(outs):
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree "
                               f"structure of outputs to the function: {len(cots)} cotangent "
                               f"tensor(s) for {len(outs)} output tensor(s)")
        pairs = [(o, c) for o, c in zip(outs, cots) if o.requires_grad]
        with enable_grad() if create else contextlib.nullcontext():
            flat = (None,) * len(call.inputs)
            if pairs:
                outputs, grad_outputs = zip(*pairs)
                flat = _engine_grad(outputs, call.inputs, grad_outputs, retain_graph=retain_graph,
                                    create_graph=create, allow_unused=True)
        grads = call.grads_like_args(_zeros_for_missing(flat, call.inputs), single=False)
        return grads if create else _rebuild(grads, iter([g.detach() for g in _leaves(grads)]))
    out = call.finish(call.out)
    return (out, vjp_fn, call.finish(call.aux)) if has_aux else (out, vjp_fn)


def _check_tangents(primals, tangents, api):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to "
                           "call f(*primals).")
    if not isinstance(tangents, tuple) or len(_leaves(tangents)) != len(_leaves(primals)):
        raise RuntimeError(f"{api}: Expected primals and tangents to have the same python "
                           "structure. For example, if primals is a tuple of 3 tensors, tangents "
                           "also must be.")
    for p, t in zip(_leaves(primals), _leaves(tangents)):
        if p.shape != t.shape:
            raise RuntimeError("Trying to set a forward gradient that has a different size than "
                               "that of the original Tensor, this is not supported. Tensor is of "
                               f"size {list(p.shape)} while the given forward gradient is of size "
                               f"{list(t.shape)}.")
    return _leaves(tangents)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """(func(*primals), J tangents[, aux]), by differentiating a vjp w.r.t. its cotangent."""
    api = "jvp(f, primals, tangents)"
    flat_tangents = _check_tangents(primals, tangents, api)
    outer_grad = is_grad_enabled()
    with enable_grad():
        call = _Call(func, primals, {}, tuple(range(len(primals))), has_aux, api, outer_grad)
        outs = _leaves(call.out)
        dummies = [_zeros_like(o, requires_grad=True) for o in outs]
        pairs = [(o, d) for o, d in zip(outs, dummies) if o.requires_grad]
        flat = [None] * len(outs)
        if pairs:  # u -> J^T u is linear in u; its vjp with the tangents at any u is J t
            back = _engine_grad([o for o, _ in pairs], call.inputs, [d for _, d in pairs],
                                create_graph=True, allow_unused=True)
            used = [(g, t) for g, t in zip(back, flat_tangents)
                    if g is not None and g.requires_grad]
            if used:
                flat = _engine_grad([g for g, _ in used], dummies, [t for _, t in used],
                                    create_graph=call.keep, allow_unused=True)
    tangents_out = _rebuild(call.out, iter(_zeros_for_missing(flat, outs)))
    out, tangents_out = call.finish(call.out), call.finish(tangents_out)
    return (out, tangents_out, call.finish(call.aux)) if has_aux else (out, tangents_out)


def linearize(func, *primals):
    """(func(*primals), jvp_fn): ``jvp_fn(*tangents)`` is J tangents at ``primals`` (torch traces
    the tangent computation once; here each call runs jvp, with torch's checks of the tangents:
    the primals' tree structure, and per leaf their shape, device and dtype)."""
    output = func(*primals)
    flat_primals, primals_spec = _pytree.tree_flatten(primals)
    meta = [(p.shape, p.device, p.dtype) for p in flat_primals]

    def jvp_fn(*tangents):
        flat_tangents, tangents_spec = _pytree.tree_flatten(tangents)
        if tangents_spec != primals_spec:
            raise RuntimeError(f"Expected the tangents {tangents_spec} to have the same argspec "
                               f"as the primals {primals_spec}")
        for idx, (t, expected) in enumerate(zip(flat_tangents, meta)):
            for what, got, want in zip(("shape", "device", "dtype"),
                                       (t.shape, t.device, t.dtype), expected):
                if got != want:
                    raise RuntimeError(f"tangent:{idx} with {what} {got} in flattened pytree "
                                       f"doesn't match the {what} {want} of the corresponding "
                                       f"primal.")
        return jvp(func, primals, tangents)[1]
    return output, jvp_fn


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """A function returning the Jacobian of ``func`` w.r.t. ``args[argnums]`` (reverse mode).

    Each output leaf gets, per differentiated argument, a tensor of shape out.shape + arg.shape.
    """
    single = not isinstance(argnums, tuple)

    def wrapper(*args, **kwargs):
        outer_grad = is_grad_enabled()
        with enable_grad():
            call = _Call(func, args, kwargs, argnums, has_aux, "jacrev(f, argnums)(*args)",
                         outer_grad)
            inputs = tuple(call.inputs)
            per_out = [call.grads_like_args(_jacobian_of_output(i, out, inputs, False, call.keep),
                                            single)
                       for i, out in enumerate(_leaves(call.out))]
        jac = call.finish(_rebuild(call.out, iter(per_out)))
        return (jac, call.finish(call.aux)) if has_aux else jac
    return wrapper


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """The Jacobian as jacfwd gives it, computed in reverse mode: the same values, and cheaper
    than a forward pass per input element (autograd.forward_ad derives each op's tangent from
    its backward node, so forward mode costs a backward per op here)."""
    return jacrev(func, argnums, has_aux=has_aux)


def hessian(func, argnums=0):
    """The Hessian of scalar ``func`` w.r.t. ``args[argnums]``: a Jacobian of its Jacobian."""
    return jacrev(jacrev(func, argnums), argnums)


# torch.func.functional_call is nn.utils.stateless's (one implementation; the deprecated
# stateless.functional_call there is the one-dict form with a warning)
functional_call = _stateless._func_functional_call
