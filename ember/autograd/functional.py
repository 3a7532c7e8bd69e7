"""torch.autograd.functional: vjp, jvp, jacobian, hessian, hvp and vhp over the one engine.

Every function here is a composition of ``engine.grad`` (with ``create_graph`` where a second
derivative is needed); forward-mode products use the double-vjp trick, as torch does.
"""
import numpy as np

from .._tensor import Tensor
from . import forward_ad
from .engine import grad as _engine_grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


def _as_tuple(inp, arg_name, fn_name):
    """(was it a tuple, the tensors as a tuple), with torch's TypeError on anything else."""
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but the {where} has type {type(el)}.")
    return is_tuple, items


def _unpack(res, to_unpack):
    """Undo _as_tuple: to_unpack is one flag, or (outer, inner) flags for nested results."""
    if isinstance(to_unpack, tuple):
        outer, inner = to_unpack
        if not inner:
            res = tuple(el[0] for el in res)
        return res if outer else res[0]
    return res if to_unpack else res[0]


def _prepare(tensors, create_graph, need_graph):
    """Fresh graph roots: a view keeps the caller's graph under create_graph, else a detach."""
    out = []
    for t in tensors:
        if create_graph and t.requires_grad:
            out.append(t.view(t.shape))
        else:
            out.append(t.detach().requires_grad_(need_graph))
    return tuple(out)


def _finish(res, create_graph):
    """Detach (nested tuples of) results unless the caller asked for a graph through them."""
    if isinstance(res, Tensor):
        return res if create_graph else res.detach()
    if res is None:
        return None
    return tuple(_finish(r, create_graph) for r in res)


def _validate_v(v, other, other_is_tuple):
    if len(v) != len(other):
        if other_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.shape != el_other.shape:
            prefix = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {el_other.shape} but got "
                               f"{el_v.shape}.")


_NOT_DIFFERENTIABLE = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs "
               "must be computed in a differentiable manner from the input when running in "
               "strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
                   "user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
                "function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is "
               "independent of the input. This is not allowed in strict mode. You should ensure "
               "that your function is thrice differentiable and that the hessian depends on the "
               "inputs.",
}


def _check_requires_grad(tensors, kind, strict):
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_NOT_DIFFERENTIABLE[kind].format(i=i))


def _grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None):
    """engine.grad over the outputs that need it; None for every input when none does."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    outs, gouts = zip(*pairs)
    return _engine_grad(outs, inputs, gouts, retain_graph=retain_graph,
                        create_graph=create_graph, allow_unused=True)


_INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
                         "in the grad_jacobian. This is not allowed in strict mode as it prevents "
                         "from using the double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Zeros where the engine found no path (errors under strict, as torch)."""
    out = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(_INDEPENDENT[stage].format(i=i))
            g = _zeros_like(ref)
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        out.append(g)
    return tuple(out)


def _zeros_like(t, requires_grad=False):
    return Tensor._make(np.zeros_like(t._data)).requires_grad_(requires_grad)


def _outputs(func, inputs, fn_name, strict):
    is_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    return is_tuple, outputs


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), v^T J): the vector-Jacobian product at ``inputs``."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _outputs(func, inputs, "vjp", strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _prepare(v, create_graph, need_graph=False)
            _validate_v(v, outputs, is_outputs_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _grad(outputs, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "back")
    return (_unpack(_finish(outputs, create_graph), is_outputs_tuple),
            _unpack(_finish(result, create_graph), is_inputs_tuple))


def _input_vector(v, inputs, is_inputs_tuple, create_graph, fn_name):
    if v is None:
        if len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the input to the user-provided "
                               "function is a single Tensor with a single element.")
        return None
    _, v = _as_tuple(v, "v", fn_name)
    v = _prepare(v, create_graph, need_graph=False)
    _validate_v(v, inputs, is_inputs_tuple)
    return v


def _double_vjp(ys, xs, v, create_graph, strict, names):
    """J v for J = d ys / d xs by the double-vjp trick: u -> J^T u is linear in u, so its vjp
    with v (at any u, here zeros) is J v; the result is laid out like ``ys``. ``names``: the
    strict-mode names of the intermediate and of the result, as torch's messages give them."""
    with enable_grad():
        dummies = tuple(_zeros_like(y, requires_grad=True) for y in ys)
        back = _grad(ys, xs, dummies, create_graph=True)
        _check_requires_grad(back, names[0], strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _grad(back, dummies, v, create_graph=create_graph)
        return _fill_in_zeros(grads, ys, strict, create_graph, names[1])


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), J v): the Jacobian-vector product, by differentiating a vjp w.r.t. v."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        v = _input_vector(v, inputs, is_inputs_tuple, create_graph, "jvp")
        is_outputs_tuple, outputs = _outputs(func, inputs, "jvp", strict)
    result = _double_vjp(outputs, inputs, v, create_graph, strict, ("grad_inputs", "back_trick"))
    return (_unpack(_finish(outputs, create_graph), is_outputs_tuple),
            _unpack(_finish(result, create_graph), is_outputs_tuple))


def _check_strategy(strategy, strict, vectorize, create_graph):
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             'Hint: If your function has more outputs than inputs, '
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` '
                                      'and `strategy="forward-mode"` are not supported together '
                                      '(yet). Please either set `create_graph=False` or '
                                      '`strategy="reverse-mode"`.')
        if strict:
            raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and '
                               '`strategy="forward-mode"` are not supported together (yet). '
                               'Please either set `strict=False` or `strategy="reverse-mode"`.')
    elif vectorize and strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           "`vectorized=True` are not supported together. Please either set "
                           "`strict=False` or `vectorize=False`.")


def _jacobian_of_output(i, out, inputs, strict, create_graph):
    """One tuple entry per input: d out / d input, shaped out.shape + input.shape."""
    import ember  # late binding up: stack is tensor math of the ops layer, built on autograd
    rows = tuple([] for _ in inputs)
    flat = out.reshape(-1)
    for j in range(out.numel()):
        grads = _grad((flat[j],), inputs, retain_graph=True, create_graph=create_graph)
        for k, (g, inp) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is "
                                       f"independent of input {k}. This is not allowed in "
                                       "strict mode.")
                g = _zeros_like(inp)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError(f"The jacobian of the user-provided function is independent "
                                   f"of input {i}. This is not allowed in strict mode when "
                                   "create_graph=True.")
            rows[k].append(g)
    return tuple(ember.stack(r, 0).view(tuple(out.shape) + tuple(inp.shape)) if r
                 else _zeros_like(inp).reshape(tuple(out.shape) + tuple(inp.shape))
                 for r, inp in zip(rows, inputs))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``, one reverse pass per output element, or with
    ``strategy="forward-mode"`` one forward pass of dual tensors per input element.

    ``vectorize=True`` is accepted and computes the same result with the same loop.
    """
    _check_strategy(strategy, strict, vectorize, create_graph)
    if strategy == "forward-mode":
        return _forward_jacobian(func, inputs, vectorize)
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _prepare(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _outputs(func, inputs, "jacobian", strict)
        result = tuple(_jacobian_of_output(i, out, inputs, strict, create_graph)
                       for i, out in enumerate(outputs))
    return _unpack(_finish(result, create_graph), (is_outputs_tuple, is_inputs_tuple))


def _forward_jacobian(func, inputs, vectorize):
    """jacobian(strategy="forward-mode"): func run on dual inputs once per input element, the
    tangent one basis vector; the output tangents are the Jacobian's columns."""
    import ember  # late binding up, as in _jacobian_of_output
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:  # torch's text, its missing space included
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    columns, outputs, is_outputs_tuple = [], None, False
    for k, inp in enumerate(inputs):
        for j in range(inp.numel()):
            with forward_ad.dual_level():
                duals = []
                for i, other in enumerate(inputs):
                    tangent = _zeros_like(other)
                    if i == k:
                        tangent.view(-1)[j] = 1
                    duals.append(forward_ad.make_dual(other, tangent))
                is_outputs_tuple, outs = _as_tuple(
                    func(*duals), "outputs of the user-provided function", "jacobian")
                pairs = [forward_ad.unpack_dual(out) for out in outs]
            outputs = [primal for primal, _ in pairs]
            columns.append([_zeros_like(primal) if tangent is None else tangent
                            for primal, tangent in pairs])
    result = []
    for i, out in enumerate(outputs or ()):
        per_input, start = [], 0
        for inp in inputs:
            block = columns[start:start + inp.numel()]
            start += inp.numel()
            jac = (ember.stack([c[i] for c in block], -1) if block else
                   _zeros_like(out).reshape(tuple(out.shape) + (0,)))
            per_input.append(jac.reshape(tuple(out.shape) + tuple(inp.shape)))
        result.append(per_input)
    return _unpack(result, (is_outputs_tuple, is_inputs_tuple))  # lists, as torch's here


def _single_scalar(outputs, is_tuple, fn_name):
    if is_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar ``func``: the jacobian of its jacobian (input.shape twice)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")

    def scalar_func(*inp):
        is_tuple, out = _outputs(func, inp, "hessian", strict)
        _single_scalar(out, is_tuple, "hessian")
        return out[0].squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":  # the dual inputs kept, not detached
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(scalar_func, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _unpack(res, (is_inputs_tuple, is_inputs_tuple))


def _first_derivative(func, inputs, v, create_graph, strict, fn_name):
    """(is_inputs_tuple, inputs, v, outputs, d func / d inputs with a graph) for hvp and vhp."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _prepare(inputs, create_graph, need_graph=True)
    v = _input_vector(v, inputs, is_inputs_tuple, create_graph, fn_name)
    is_tuple, outputs = _outputs(func, inputs, fn_name, strict)
    _single_scalar(outputs, is_tuple, fn_name)
    jac = _grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict)
    return is_inputs_tuple, inputs, v, outputs, jac


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), v^T H) for a scalar ``func``: a vjp of its gradient."""
    with enable_grad():
        is_inputs_tuple, inputs, v, outputs, jac = _first_derivative(
            func, inputs, v, create_graph, strict, "vhp")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grads = _grad(jac, inputs, v, create_graph=create_graph)
        result = _fill_in_zeros(grads, inputs, strict, create_graph, "double_back")
    return _finish(outputs[0], create_graph), _unpack(_finish(result, create_graph),
                                                      is_inputs_tuple)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """(func(*inputs), H v) for a scalar ``func``, by the double-vjp trick on its gradient."""
    with enable_grad():
        is_inputs_tuple, inputs, v, outputs, jac = _first_derivative(
            func, inputs, v, create_graph, strict, "hvp")
    result = _double_vjp(jac, inputs, v, create_graph, strict, ("hessian", "double_back_trick"))
    return _finish(outputs[0], create_graph), _unpack(_finish(result, create_graph),
                                                      is_inputs_tuple)
