"""OpInfo entries for the math API of issue 14: sorting, scans, einsum, triangles, diagonals,
products with bias, lerp, clamp_min/max, roll, repeat_interleave, meshgrid and ember.linalg."""
import math

import numpy as np
from opinfo import OpInfo, Sample, _gen


def _samples(name, *shapes_list, fd=True):
    real, _ = _gen(name)
    return [Sample(tuple(real(*s) for s in shapes), f"s{i}", fd)
            for i, shapes in enumerate(shapes_list)]


def _square(name, n=3, batch=()):
    real, _ = _gen(name)
    return real(*batch, n, n) + 3 * np.eye(n)


def _sorting_and_scans():
    ones = [((3, 4),), ((2, 3, 4),)]
    table = {
        "sort": lambda L, x: x.sort(-1)[0], "sort_desc": lambda L, x: L.sort(x, 0, True).values,
        "topk": lambda L, x: x.topk(2).values,
        "topk_smallest": lambda L, x: L.topk(x, 2, dim=0, largest=False)[0],
        "cumsum": lambda L, x: x.cumsum(-1), "cumprod": lambda L, x: L.cumprod(x, 1),
        "tril": lambda L, x: x.tril(), "triu": lambda L, x: L.triu(x, 1),
        "tril_": lambda L, x: (x * 1).tril_(-1), "diagonal": lambda L, x: x.diagonal(0, -2, -1),
        "roll": lambda L, x: x.roll(1, -1), "roll_flat": lambda L, x: L.roll(x, 3),
        "repeat_interleave": lambda L, x: x.repeat_interleave(2, dim=1),
        "repeat_interleave_tensor": lambda L, x: L.repeat_interleave(x, L.tensor([2, 0, 1]), 1),
        "clamp_min_fn": lambda L, x: L.clamp_min(x, 0.1), "clamp_max_fn": lambda L, x: x.clamp_max(0.2),
    }
    ops = [OpInfo(n, f, _samples(n, *ones)) for n, f in table.items()]
    ops[-3].samples = _samples("repeat_interleave_tensor", ((2, 3),), ((4, 3, 2),))
    ops.append(OpInfo("cumprod_zeros", lambda L, x: L.cumprod(x, -1), [
        Sample((np.array([[2.0, 0.0, 3.0, 1.5], [0.0, 2.0, 0.0, -1.0]]),), "zeros")]))
    ops.append(OpInfo("diag", lambda L, x: L.diag(x, 1), _samples("diag", ((4,),), ((3, 4),))))
    return ops


def _products():
    ops = [OpInfo("einsum_" + tag, (lambda eq: lambda L, *xs: L.einsum(eq, *xs))(eq),
                  _samples("einsum_" + tag, shapes))
           for tag, eq, shapes in (
               ("mm", "ij,jk->ik", ((3, 4), (4, 2))), ("bmm", "bij,bjk->bik", ((2, 3, 4), (2, 4, 2))),
               ("trace", "ii", ((3, 3),)), ("outer", "i,j->ij", ((3,), (4,))),
               ("ellipsis", "...ij,...jk", ((2, 3, 4), (4, 2))), ("transpose", "ij->ji", ((3, 4),)))]
    ops += [
        OpInfo("outer", lambda L, x, y: L.outer(x, y), _samples("outer", ((3,), (4,)))),
        OpInfo("addmm", lambda L, i, a, b: L.addmm(i, a, b, beta=0.5, alpha=2),
               _samples("addmm", ((3, 2), (3, 4), (4, 2)), ((2,), (3, 4), (4, 2)))),
        OpInfo("baddbmm", lambda L, i, a, b: i.baddbmm(a, b, alpha=-1),
               _samples("baddbmm", ((2, 3, 2), (2, 3, 4), (2, 4, 2)))),
        OpInfo("lerp", lambda L, x, y: L.lerp(x, y, 0.25), _samples("lerp", ((3, 4), (4,)))),
        OpInfo("lerp_tensor", lambda L, x, y, w: x.lerp(y, w),
               _samples("lerp_tensor", ((3, 4), (3, 4), (4,)))),
        OpInfo("clamp_min_tensor", lambda L, x, y: L.clamp_min(x, y),
               _samples("clamp_min_tensor", ((3, 4), (4,)))),
        OpInfo("meshgrid", lambda L, x, y: L.meshgrid(x, y, indexing="xy")[0] * 2,
               _samples("meshgrid", ((3,), (4,)))),
    ]
    return ops


def _linalg():
    real, _ = _gen("linalg")
    ops = [OpInfo(n, f, _samples(n, ((3, 4),), ((2, 3, 4),))) for n, f in {
        "linalg.norm": lambda L, x: L.linalg.norm(x, dim=(-2, -1)),
        "linalg.vector_norm": lambda L, x: L.linalg.vector_norm(x, 3, dim=-1),
        "linalg.vector_norm_neg_inf": lambda L, x: L.linalg.vector_norm(x, -math.inf),
        "linalg.matrix_norm_1": lambda L, x: L.linalg.matrix_norm(x, 1),
        "linalg.matrix_norm_inf": lambda L, x: L.linalg.matrix_norm(x, math.inf),
    }.items()]
    ops.append(OpInfo("linalg.matrix_norm_nuc", lambda L, x: L.linalg.matrix_norm(x, "nuc"),
                      _samples("nuc", ((3, 4),)), gradgrad=False))
    squares = [Sample((_square("inv"),), "3x3"), Sample((_square("inv_b", 2, (2,)),), "batch")]
    ops += [OpInfo("linalg.inv", lambda L, x: L.linalg.inv(x), squares),
            OpInfo("linalg.solve", lambda L, a, b: L.linalg.solve(a, b), [
                Sample((_square("solve"), real(3, 2)), "matrix"),
                Sample((_square("solve_v"), real(3)), "vector")]),
            OpInfo("linalg.det", lambda L, x: L.linalg.det(x), squares + [
                Sample((np.array([[1.0, 2.0], [2.0, 4.0]]),), "singular")], xfail={
                    "singular:torch": "torch 2.13 gives a zero gradient at a singular matrix; "
                                      "ember gives the cofactor matrix (checked by gradcheck)",
                    "singular:gradgrad": "second derivative of det at a singular matrix is not "
                                         "implemented (raises)"})]
    return ops


MATH_OPS = _sorting_and_scans() + _products() + _linalg()
