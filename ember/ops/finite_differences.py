"""torch.gradient: derivatives estimated by finite differences along each dimension (central
differences inside, one-sided of first or second order at the ends), for unit or scalar
spacing or for sample coordinates, written over ember's ops so that gradients flow."""
import numbers

from .. import _dtype
from .._tensor import Tensor
from . import api
from .api.arithmetic import _no_bool_sub
from .shape import _dim


def _check_spacing(input, spacing, dims, given_dim):
    """The spacing as one entry per differentiated dimension (a number or a coordinate tensor)."""
    if spacing is None:
        return [1.0] * len(dims)
    if isinstance(spacing, numbers.Number):
        return [spacing] * len(dims)
    if isinstance(spacing, Tensor):
        raise TypeError("gradient() received an invalid combination of arguments - got (Tensor, "
                        "spacing=Tensor): spacing must be a number, or a tuple of numbers or of "
                        "Tensors")
    spacing = list(spacing)
    if len(spacing) != len(dims):
        if given_dim is None:
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or "
                               f"a list of length equal to 'self.dim() = {input.ndim}', since "
                               f"dim argument was not given, but got a list of length "
                               f"{len(spacing)}")
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or "
                           f"it's spacing and dim arguments to have the same length, but got a "
                           f"spacing argument of length {len(spacing)} and a dim argument of "
                           f"length {len(dims)}.")
    return spacing


def _one_dim(f, d, h, edge_order):
    """The derivative of f along dim d: h a number (uniform spacing) or 1-D coordinates."""
    n = f.shape[d]

    def part(start, length):
        return api.narrow(f, d, start, length)

    if not isinstance(h, Tensor):
        inner = api.div(api.sub(part(2, n - 2), part(0, n - 2)), 2.0 * h)
        if edge_order == 1:
            first = api.div(api.sub(part(1, 1), part(0, 1)), h)
            last = api.div(api.sub(part(n - 1, 1), part(n - 2, 1)), h)
        else:
            first = api.div(api.add(api.add(api.mul(part(0, 1), -1.5), api.mul(part(1, 1), 2.0)),
                                    api.mul(part(2, 1), -0.5)), h)
            last = api.div(api.add(api.add(api.mul(part(n - 3, 1), 0.5),
                                           api.mul(part(n - 2, 1), -2.0)),
                                   api.mul(part(n - 1, 1), 1.5)), h)
        return api.cat([first, inner, last], d)
    shape = [1] * f.ndim
    shape[d] = -1
    dx = api.sub(api.narrow(h, 0, 1, n - 1), api.narrow(h, 0, 0, n - 1))

    def weights(a, b, c, start, length):
        """a f[start] + b f[start+1] + c f[start+2] over ``length`` positions."""
        a, b, c = (api.reshape(w, shape) for w in (a, b, c))
        return api.add(api.add(api.mul(a, part(start, length)), api.mul(b, part(start + 1,
                                                                               length))),
                       api.mul(c, part(start + 2, length)))

    d1, d2 = api.narrow(dx, 0, 0, n - 2), api.narrow(dx, 0, 1, n - 2)
    total = api.add(d1, d2)
    inner = weights(api.neg(api.div(d2, api.mul(d1, total))),
                    api.div(api.sub(d2, d1), api.mul(d1, d2)),
                    api.div(d1, api.mul(d2, total)), 0, n - 2)
    if edge_order == 1:
        first = api.div(api.sub(part(1, 1), part(0, 1)), api.reshape(api.narrow(dx, 0, 0, 1),
                                                                     shape))
        last = api.div(api.sub(part(n - 1, 1), part(n - 2, 1)),
                       api.reshape(api.narrow(dx, 0, n - 2, 1), shape))
    else:
        a1, a2 = api.narrow(dx, 0, 0, 1), api.narrow(dx, 0, 1, 1)
        s = api.add(a1, a2)
        first = weights(api.neg(api.div(api.add(api.mul(a1, 2.0), a2), api.mul(a1, s))),
                        api.div(s, api.mul(a1, a2)), api.neg(api.div(a1, api.mul(a2, s))), 0, 1)
        b1, b2 = api.narrow(dx, 0, n - 3, 1), api.narrow(dx, 0, n - 2, 1)
        s = api.add(b1, b2)
        last = weights(api.div(b2, api.mul(b1, s)), api.neg(api.div(s, api.mul(b1, b2))),
                       api.div(api.add(api.mul(b2, 2.0), b1), api.mul(b2, s)), n - 3, 1)
    return api.cat([first, inner, last], d)


def gradient(input, *, spacing=None, dim=None, edge_order=1):
    """One tensor per dimension (or per ``dim``): input's derivative estimated along it."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dim is None:
        dims = list(range(input.ndim))
    elif isinstance(dim, int):
        dims = [_dim(input.ndim, dim)]
    else:
        dims = [_dim(input.ndim, d) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("torch.gradient expected each dimension to be unique, but got "
                               f"{tuple(dim)}")
    steps = _check_spacing(input, spacing, dims, dim)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    f = input
    if f._data.dtype.kind == "b":  # torch differences the values: bool - bool
        _no_bool_sub(f, f)
    if f._data.dtype.kind in "iu":
        f = f.to(_dtype.get_default_dtype())
    out = []
    for d, h in zip(dims, steps):
        if isinstance(h, Tensor) and h.ndim != 1:
            raise RuntimeError("torch.gradient expected each tensor to be on the same device "
                               "and to be 1-dimensional as spacing")
        out.append(_one_dim(f, d, h, edge_order))
    return tuple(out)
