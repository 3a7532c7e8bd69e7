"""The op-information table: every differentiable op with sample inputs over shapes, broadcasting
and edge values. ``fn(lib, *tensors)`` runs the op the same way on ember and on torch."""
import zlib
from dataclasses import dataclass, field

import numpy as np


@dataclass
class Sample:
    """One set of inputs. ``fd``: smooth there, so finite differences apply."""
    args: tuple
    tag: str
    fd: bool = True


@dataclass
class OpInfo:
    name: str
    fn: object
    samples: list
    gradgrad: bool = True          # second derivatives are defined (and checked)
    xfail: dict = field(default_factory=dict)  # sample tag -> reason (known core gaps)


def _rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def _gen(name):
    r = _rng(name)

    def real(*shape, low=-2.0, high=2.0):
        return r.uniform(low, high, shape)

    def pos(*shape, low=0.5, high=2.0):
        return r.uniform(low, high, shape)
    return real, pos


def _unary_samples(name, domain="real", zeros=True, large=None, empty=True):
    real, pos = _gen(name)
    make = {"real": real, "pos": pos,
            "unit": lambda *s: real(*s, low=-0.9, high=0.9)}[domain]
    out = [Sample((make(3, 4),), "2d"), Sample((make(5),), "1d"), Sample((make(),), "scalar"),
           Sample((make(2, 1, 3),), "3d")]
    if domain == "real":
        out.append(Sample((-pos(2, 3),), "negative"))
    if zeros:
        out.append(Sample((np.zeros((2, 2)),), "zeros", fd=False))
    if large is not None:
        out.append(Sample((np.array([-large, -1.5, 0.3, large]),), "large", fd=False))
    if empty:
        out.append(Sample((np.zeros((0, 3)),), "empty"))
    return out


def _binary_samples(name, rhs="real"):
    real, pos = _gen(name)
    other = real if rhs == "real" else pos
    return [Sample((real(3, 4), other(3, 4)), "same"),
            Sample((real(3, 4), other(4)), "bcast_row"),
            Sample((real(2, 1, 3), other(4, 1)), "bcast_both"),
            Sample((real(), other(3)), "scalar_lhs"),
            Sample((real(2, 3), other()), "scalar_rhs"),
            Sample((-pos(3), other(3) * 1e3), "large", fd=False),
            Sample((np.zeros((0, 2)), other(2)), "empty")]


def _reduce_samples(name, empty=True):
    real, pos = _gen(name)
    out = [Sample((real(3, 4),), "2d"), Sample((real(2, 3, 2),), "3d"),
           Sample((-pos(2, 3),), "negative"), Sample((real(3, 4) * 1e3,), "large", fd=False)]
    if empty:
        out.append(Sample((np.zeros((0, 4)),), "empty"))
    return out


def _with_ties(name):
    real, _ = _gen(name)
    return [Sample((real(3, 4),), "2d"), Sample((real(2, 3, 2),), "3d"),
            Sample((np.array([[1.0, 3.0, 3.0], [2.0, 2.0, -1.0]]),), "ties", fd=False)]


UNARY = {  # name: (domain, zeros ok, large magnitude, empty)
    "exp": ("real", True, 50.0), "log": ("pos", False, None), "log2": ("pos", False, None),
    "log10": ("pos", False, None), "log1p": ("pos", True, None), "expm1": ("real", True, 30.0),
    "sqrt": ("pos", True, None), "rsqrt": ("pos", False, None), "sin": ("real", True, 1e4),
    "cos": ("real", True, 1e4), "tan": ("unit", True, None), "tanh": ("real", True, 1e3),
    "sigmoid": ("real", True, 1e3), "relu": ("real", True, 1e6), "abs": ("real", True, 1e6),
    "sign": ("real", True, 1e6), "floor": ("real", True, 1e6), "ceil": ("real", True, 1e6),
    "round": ("real", True, 1e6), "trunc": ("real", True, 1e6),
    "reciprocal": ("pos", False, 1e6), "asin": ("unit", True, None),
    "acos": ("unit", True, None), "atan": ("real", True, 1e6), "sinh": ("real", True, 20.0),
    "cosh": ("real", True, 20.0), "neg": ("real", True, 1e6),
}


def _method(name):
    return lambda L, x: getattr(x, name)()


def _unary_ops():
    ops = []
    for name, (domain, zeros, large) in UNARY.items():
        ops.append(OpInfo(name, _method(name), _unary_samples(name, domain, zeros, large)))
    ops.append(OpInfo("round_decimals", lambda L, x: L.round(x, decimals=2),
                      _unary_samples("round_decimals")))
    ops.append(OpInfo("relu_fn", lambda L, x: L.relu(x), _unary_samples("relu_fn")))
    ops.append(OpInfo("sigmoid_fn", lambda L, x: L.sigmoid(x), _unary_samples("sigmoid_fn")))
    return ops


def _binary_ops():
    positive_rhs = {"div", "pow_tensor"}
    table = {
        "add": lambda L, x, y: x + y, "add_alpha": lambda L, x, y: L.add(x, y, alpha=2.5),
        "sub": lambda L, x, y: x - y, "sub_alpha": lambda L, x, y: L.sub(x, y, alpha=-0.5),
        "mul": lambda L, x, y: x * y, "div": lambda L, x, y: x / y,
        "maximum": lambda L, x, y: L.maximum(x, y), "minimum": lambda L, x, y: L.minimum(x, y),
        "pow_tensor": lambda L, x, y: x.abs() ** y,
        "where": lambda L, x, y: L.where(x > 0, x, y),
    }
    ops = [OpInfo(n, f, _binary_samples(n, "pos" if n in positive_rhs else "real"))
           for n, f in table.items()]
    real, pos = _gen("ties")
    ties = [Sample((np.array([1.0, 2.0, 3.0]), np.array([1.0, 0.0, 3.0])), "ties", fd=False)]
    ops[6].samples += ties
    ops[7].samples += ties
    return ops


def _scalar_ops():
    real, pos = _gen("scalar")
    samples = lambda: [Sample((real(3, 4),), "2d"), Sample((real(),), "scalar"),  # noqa: E731
                       Sample((np.zeros((0,)),), "empty")]
    psamples = [Sample((pos(3, 4),), "2d"), Sample((pos(),), "scalar")]
    table = {
        "rsub": lambda L, x: 2 - x, "radd": lambda L, x: 1.5 + x, "rmul": lambda L, x: 3 * x,
        "mul_scalar": lambda L, x: x * 0.5, "div_scalar": lambda L, x: x / 4,
        "pow_2": lambda L, x: x ** 2, "pow_3": lambda L, x: x ** 3,
        "pow_0": lambda L, x: x ** 0, "rpow": lambda L, x: 2 ** x,
        "clamp": lambda L, x: x.clamp(-0.5, 0.5), "clamp_min": lambda L, x: x.clamp(min=0.1),
        "clamp_max": lambda L, x: L.clamp(x, max=-0.2),
        "masked_fill": lambda L, x: x.masked_fill(x > 0, 0.5),
        "div_trunc": lambda L, x: L.div(x, 0.7, rounding_mode="trunc"),
        "div_floor": lambda L, x: L.div(x, 0.7, rounding_mode="floor"),
    }
    ops = [OpInfo(n, f, samples()) for n, f in table.items()]
    ops += [OpInfo("rdiv", lambda L, x: 2 / x, psamples),
            OpInfo("pow_half", lambda L, x: x ** 0.5, psamples),
            OpInfo("pow_neg", lambda L, x: x ** -1.5, psamples)]
    return ops


def _dim_op(name, fn, **kw):
    return OpInfo(name, fn, _reduce_samples(name, **kw))


def _reduction_ops():
    real, pos = _gen("reduce")
    ops = [
        _dim_op("sum", lambda L, x: x.sum()),
        _dim_op("sum_dim", lambda L, x: x.sum(-1)),
        _dim_op("sum_keepdim", lambda L, x: x.sum(0, keepdim=True)),
        _dim_op("sum_dims", lambda L, x: x.sum((0, -1))),
        _dim_op("mean", lambda L, x: x.mean(), empty=False),
        _dim_op("mean_dim", lambda L, x: x.mean(0)),
        _dim_op("mean_keepdim", lambda L, x: x.mean(-1, keepdim=True), empty=False),
        _dim_op("var", lambda L, x: x.var(), empty=False),
        _dim_op("var_dim", lambda L, x: x.var(0, correction=0), empty=False),
        _dim_op("std", lambda L, x: x.std(-1), empty=False),
        _dim_op("std_keepdim", lambda L, x: x.std(0, keepdim=True, correction=0), empty=False),
        _dim_op("logsumexp", lambda L, x: x.logsumexp(-1)),
        _dim_op("logsumexp_keep", lambda L, x: L.logsumexp(x, 0, keepdim=True), empty=False),
        _dim_op("norm", lambda L, x: x.norm(), empty=False),
        _dim_op("norm_p1", lambda L, x: x.norm(p=1, dim=-1), empty=False),
        _dim_op("norm_p3", lambda L, x: x.norm(p=3, dim=0), empty=False),
        _dim_op("norm_inf", lambda L, x: x.norm(p=float("inf")), empty=False),
        _dim_op("sum_to_size", lambda L, x: x.sum_to_size(1, x.shape[-1]), empty=False),
        OpInfo("prod", lambda L, x: x.prod(), [
            Sample((real(3, 4),), "2d"), Sample((np.array([2.0, 0.0, 3.0]),), "one_zero"),
            Sample((np.array([0.0, 0.0, 3.0]),), "two_zeros")]),
        OpInfo("prod_dim", lambda L, x: x.prod(1), [
            Sample((real(3, 4),), "2d"),
            Sample((np.array([[2.0, 0.0, 3.0], [1.0, 2.0, 3.0]]),), "one_zero")]),
    ]
    for name, fn in {"max": lambda L, x: x.max(), "min": lambda L, x: x.min(),
                     "max_dim": lambda L, x: x.max(-1)[0],
                     "min_dim": lambda L, x: x.min(dim=0, keepdim=True).values,
                     "amax": lambda L, x: x.amax(-1), "amin": lambda L, x: x.amin((0, 1)),
                     }.items():
        ops.append(OpInfo(name, fn, _with_ties(name)))
    ops.append(OpInfo("norm_zero_vector", lambda L, x: x.norm(), [
        Sample((np.zeros(3),), "zeros", fd=False)], xfail={
            "zeros:torch": "torch's second derivative of the 2-norm at the zero vector is NaN; "
                           "ember's is 0 (the derivative of its masked first derivative)"}))
    return ops


def _matmul_ops():
    real, _ = _gen("matmul")
    mm = {"mm": ((3, 4), (4, 2)), "mv": ((3, 4), (4,)), "dot": ((4,), (4,)),
          "vm": ((4,), (4, 2)), "bmm": ((2, 3, 4), (2, 4, 2)),
          "bcast_batched": ((2, 1, 3, 4), (3, 4, 2)), "batched_mat": ((2, 3, 4), (4, 2)),
          "empty_inner": ((3, 0), (0, 2))}
    ops = [OpInfo("matmul", lambda L, x, y: x @ y,
                  [Sample((real(*a), real(*b)), tag) for tag, (a, b) in mm.items()])]
    ops.append(OpInfo("mm_fn", lambda L, x, y: L.mm(x, y), [Sample((real(3, 4), real(4, 2)), "2d")]))
    ops.append(OpInfo("bmm_fn", lambda L, x, y: L.bmm(x, y),
                      [Sample((real(2, 3, 4), real(2, 4, 2)), "3d")]))
    return ops


def _shape_ops():
    real, _ = _gen("shape")
    x34, x234 = [Sample((real(3, 4),), "2d")], [Sample((real(2, 3, 4),), "3d")]
    both = x34 + [Sample((real(0, 4),), "empty")]
    table = {
        "view": (lambda L, x: x.view(-1, 2), both), "reshape": (lambda L, x: x.reshape(4, -1), x34),
        "flatten": (lambda L, x: x.flatten(1), x234), "unflatten": (
            lambda L, x: x.unflatten(1, (2, 2)), x34),
        "squeeze": (lambda L, x: x.reshape(3, 1, 4).squeeze(1), x34),
        "unsqueeze": (lambda L, x: x.unsqueeze(-1), both), "transpose": (
            lambda L, x: x.transpose(0, 2), x234),
        "t": (lambda L, x: x.t(), both), "T": (lambda L, x: x.T, x234),
        "permute": (lambda L, x: x.permute(1, 2, 0), x234),
        "expand": (lambda L, x: x[:, :1].expand(3, 5), x34),
        "expand_new_dims": (lambda L, x: x.expand(2, 3, 4), x34),
        "expand_as": (lambda L, x: x[:1].expand_as(x), x34),
        "broadcast_to": (lambda L, x: L.broadcast_to(x, (2, 3, 4)), x34),
        "repeat": (lambda L, x: x.repeat(2, 1, 2), x34), "flip": (lambda L, x: x.flip(0, -1), x234),
        "narrow": (lambda L, x: x.narrow(1, 1, 2), x34), "select": (lambda L, x: x.select(1, -1), x34),
        "split": (lambda L, x: x.split(3, 1)[1], x34),
        "split_sizes": (lambda L, x: x.split([1, 2], 0)[1], x34),
        "chunk": (lambda L, x: x.chunk(2, -1)[0], x34), "unbind": (lambda L, x: x.unbind(1)[2], x34),
        "contiguous": (lambda L, x: x.t().contiguous(), x34), "clone": (lambda L, x: x.clone(), both),
        "to_double": (lambda L, x: x.double() * 1, x34), "to_float": (lambda L, x: x.float() * 1, [Sample(x34[0].args, "2d", fd=False)]),
    }
    ops = [OpInfo(n, f, s) for n, (f, s) in table.items()]
    pair = [Sample((real(2, 3), real(2, 3)), "same"), Sample((real(0, 3), real(2, 3)), "one_empty")]
    ops.append(OpInfo("cat", lambda L, x, y: L.cat([x, y, x], 0), pair))
    ops.append(OpInfo("cat_dim1", lambda L, x, y: L.cat([x, y], -1),
                      [Sample((real(2, 3), real(2, 1)), "2d")]))
    ops.append(OpInfo("stack", lambda L, x, y: L.stack([x, y], 1), pair[:1]))
    return ops


def _index_ops():
    real, _ = _gen("index")
    x34, x234 = [Sample((real(3, 4),), "2d")], [Sample((real(2, 3, 4),), "3d")]
    table = {
        "slice": (lambda L, x: x[1:, ::2], x34), "neg_slice": (lambda L, x: x[-2:, 1:-1], x34),
        "int": (lambda L, x: x[1], x34), "int_neg": (lambda L, x: x[-1, 2], x34),
        "none_ellipsis": (lambda L, x: x[None, ..., 1], x234),
        "int_array": (lambda L, x: x[[2, 0]], x34),
        "repeated_indices": (lambda L, x: x[[0, 0, 2, 0]], x34),
        "tensor_index": (lambda L, x: x[L.tensor([1, 1, 0])], x34),
        "two_arrays": (lambda L, x: x[[0, 2, 2], [1, 3, 1]], x34),
        "array_and_slice": (lambda L, x: x[:, [3, 0, 3]], x34),
        "bool_mask": (lambda L, x: x[x > 0], x34),
        "bool_row_mask": (lambda L, x: x[L.tensor([True, False, True])], x34),
        "gather": (lambda L, x: x.gather(1, L.tensor([[0, 1], [1, 1], [3, 0]])), x34),
        "gather_dim0": (lambda L, x: L.gather(x, 0, L.tensor([[2, 1, 0, 0]])), x34),
        "index_select": (lambda L, x: x.index_select(1, L.tensor([0, 2, 2])), x34),
        "masked_select": (lambda L, x: L.masked_select(x, x < 0.5), x34),
        "scatter_src": (lambda L, x: x.scatter(1, L.tensor([[0], [2], [1]]), x[:, 1:2] * 2), x34),
        "scatter_add": (lambda L, x: x.scatter_add(0, L.tensor([[0, 1, 2, 0]]), x[:1] * 3), x34),
        "setitem": (lambda L, x: _setitem(x), x34),
        "setitem_mask": (lambda L, x: _setitem_mask(x), x34),
    }
    return [OpInfo(n, f, s) for n, (f, s) in table.items()]


def _setitem(x):
    y = x * 1
    y[1, 1:3] = x[0, :2] * 5
    return y


def _setitem_mask(x):
    y = x.clone()
    y[y > 0] = 0.0
    return y


def _inplace_ops():
    real, pos = _gen("inplace")
    pair = [Sample((real(3, 4), real(4)), "bcast")]
    one = [Sample((real(3, 4),), "2d")]
    table = {
        "add_": (lambda L, x, y: (x * 1).add_(y, alpha=2), pair),
        "sub_": (lambda L, x, y: (x * 1).sub_(y), pair),
        "mul_": (lambda L, x, y: (x * 1).mul_(y), pair),
        "div_": (lambda L, x, y: (x * 1).div_(y.abs() + 1), pair),
        "iadd_op": (lambda L, x, y: _iadd(x, y), pair),
        "exp_": (lambda L, x: (x * 1).exp_(), one),
        "sigmoid_": (lambda L, x: (x * 1).sigmoid_(), one),
        "clamp_": (lambda L, x: (x * 1).clamp_(-0.5, 0.5), one),
        "masked_fill_": (lambda L, x: (x * 1).masked_fill_(x > 0, 2.0), one),
        "zero_": (lambda L, x: (x * 1).zero_() + x, one),
        "fill_": (lambda L, x: (x * 1).fill_(3.0) * x, one),
        "copy_": (lambda L, x, y: (x * 1).copy_(y), pair),
    }
    return [OpInfo(n, f, s) for n, (f, s) in table.items()]


def _iadd(x, y):
    z = x * 2
    z += y
    return z


OPS = (_unary_ops() + _binary_ops() + _scalar_ops() + _reduction_ops() + _matmul_ops()
       + _shape_ops() + _index_ops() + _inplace_ops())
BY_NAME = {op.name: op for op in OPS}
assert len(BY_NAME) == len(OPS), "duplicate op names in the table"

from opinfo_nn import NN_OPS  # noqa: E402  (the nn table builds on the helpers above)

OPS += NN_OPS
BY_NAME = {op.name: op for op in OPS}
assert len(BY_NAME) == len(OPS), "duplicate op names in the table"

from opinfo_math import MATH_OPS  # noqa: E402  (issue 14's math API)

OPS += MATH_OPS
BY_NAME = {op.name: op for op in OPS}
assert len(BY_NAME) == len(OPS), "duplicate op names in the table"

from opinfo_elementwise import ELEMENTWISE_OPS  # noqa: E402  (issue 14's extra element-wise ops)

OPS += ELEMENTWISE_OPS
BY_NAME = {op.name: op for op in OPS}
assert len(BY_NAME) == len(OPS), "duplicate op names in the table"
