"""Finite-difference gradient checks: gradcheck and gradgradcheck, as torch.autograd."""
import numpy as np

from .._tensor import Tensor
from . import forward_ad, grad_mode
from .engine import grad as _grad


class GradcheckError(RuntimeError):
    """Raised by gradcheck when analytical and numerical gradients differ."""


def _as_tuple(x):
    """Inputs, outputs or grad_outputs as a tuple: a list counts as a sequence, as in torch."""
    return x if isinstance(x, tuple) else tuple(x) if isinstance(x, list) else (x,)


def _outputs(func, inputs):
    out = func(*inputs)
    return tuple(o for o in _as_tuple(out) if isinstance(o, Tensor))


def _numerical(func, inputs, index, eps):
    """Central differences: d(sum of outputs . v)/d(input[index]) column by column."""
    x = inputs[index]
    flat = x._data.reshape(-1)
    results = [np.zeros((x._data.size,) + o._data.shape) for o in _outputs(func, inputs)]
    with grad_mode.no_grad():
        for k in range(flat.size):
            orig = flat[k]
            flat[k] = orig + eps
            plus = [o._data.astype(np.float64) for o in _outputs(func, inputs)]
            flat[k] = orig - eps
            minus = [o._data.astype(np.float64) for o in _outputs(func, inputs)]
            flat[k] = orig
            for r, p, mi in zip(results, plus, minus):
                r[k] = (p - mi) / (2 * eps)
    return results


def _analytical(func, inputs, diff_idx):
    outs = _outputs(func, inputs)
    jac = {i: [np.zeros((inputs[i]._data.size,) + o._data.shape) for o in outs]
           for i in diff_idx}
    for oi, out in enumerate(outs):
        if not out._requires_grad:
            continue
        for j in range(out._data.size):
            seed = np.zeros(out._data.size, dtype=out._data.dtype)
            seed[j] = 1
            grads = _grad(out, [inputs[i] for i in diff_idx],
                          Tensor._make(seed.reshape(out._data.shape)),
                          retain_graph=True, allow_unused=True)
            for i, g in zip(diff_idx, grads):
                if g is not None:
                    jac[i][oi].reshape(inputs[i]._data.size, out._data.size)[:, j] = \
                        g._data.reshape(-1)
    return jac


def _forward(func, inputs, diff_idx):
    """The Jacobians by forward mode: one dual evaluation per element of each input."""
    jac = {}
    for i in diff_idx:
        x = inputs[i]
        columns = None
        for k in range(x._data.size):
            unit = np.zeros(x._data.size, x._data.dtype)
            unit[k] = 1
            with grad_mode.no_grad(), forward_ad.dual_level():
                args = list(inputs)
                args[i] = forward_ad.make_dual(x, Tensor._make(unit.reshape(x._data.shape)))
                tangents = [forward_ad.unpack_dual(o).tangent for o in _outputs(func, args)]
            if columns is None:
                columns = [np.zeros((x._data.size,) + t.shape) if t is not None else None
                           for t in tangents]
            for c, t in zip(columns, tangents):
                if c is not None and t is not None:
                    c[k] = t._data
        jac[i] = [c if c is not None else 0 for c in columns or ()]
    return jac


def _compare(jac, numerical, i, rtol, atol, mode):
    """None, or torch's message for the first output whose Jacobian differs."""
    for oi, (a, n) in enumerate(zip(jac[i], numerical)):
        if not np.allclose(a, n, rtol=rtol, atol=atol):
            a = np.broadcast_to(a, n.shape)
            return (f"Jacobian {mode}mismatch for output {oi} with respect to input {i},\n"
                    f"numerical:{n.reshape(n.shape[0], -1)}\n"
                    f"analytical:{a.reshape(n.shape[0], -1)}\n")
    return None


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, fast_mode=False, check_forward_ad=False,
              check_backward_ad=True, **unused):
    """Compare analytical gradients of ``func`` (reverse mode, and forward mode with
    ``check_forward_ad``) with central finite differences (float64)."""
    inputs = _as_tuple(inputs)
    diff_idx = [i for i, t in enumerate(inputs) if isinstance(t, Tensor) and t._requires_grad]
    for i in diff_idx:
        if inputs[i]._data.dtype != np.float64:
            import warnings
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point. This check will likely fail if all the inputs are not of double "
                          "precision floating point.", UserWarning, stacklevel=2)
    checks = []
    if check_backward_ad:
        checks.append(("", _analytical(func, inputs, diff_idx)))
    if check_forward_ad:
        checks.append(("computed with forward mode ", _forward(func, inputs, diff_idx)))
    for i in diff_idx:
        numerical = _numerical(func, inputs, i, eps)
        for mode, jac in checks:
            message = _compare(jac, numerical, i, rtol, atol, mode)
            if message is not None:
                if not raise_exception:
                    return False
                raise GradcheckError(message)
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, **unused):
    """Check second derivatives: gradcheck of (inputs, grad_outputs) -> d(outputs . v)/d(inputs),
    the first derivatives computed with ``create_graph=True``."""
    inputs = _as_tuple(inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        with grad_mode.no_grad():
            outs = _outputs(func, inputs)
        grad_outputs = tuple(
            Tensor._make(rng.standard_normal(o._data.shape).astype(o._data.dtype))
            .requires_grad_(o._data.dtype.kind == "f") for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    n_in = len(inputs)

    def first_grads(*args):
        ins, gos = args[:n_in], args[n_in:]
        with grad_mode.enable_grad():  # gradcheck's finite differences run under no_grad
            outs = _outputs(func, ins)
            pairs = [(o, g) for o, g in zip(outs, gos) if o._requires_grad]
            diff = [t for t in ins if isinstance(t, Tensor) and t._requires_grad]
            if not pairs:
                return tuple(Tensor._make(np.zeros_like(t._data)) for t in diff)
            return _grad([o for o, _ in pairs], diff, [g for _, g in pairs], create_graph=True,
                         materialize_grads=True)

    return gradcheck(first_grads, inputs + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
