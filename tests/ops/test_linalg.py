"""Matrix products (ember/ops/linalg.py): matmul/@ (1-D, 2-D, batched, broadcast), mm, bmm."""
import numpy as np
import pytest
import torch
from oracle import check

import ember

SHAPES = [((3, 4), (4, 5)), ((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 5)), ((2, 3, 4), (2, 4, 5)),
          ((2, 3, 4), (4, 5)), ((4,), (2, 4, 5)), ((2, 3, 4), (4,)), ((2, 1, 3, 4), (5, 4, 2))]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_matmul(shapes, dtype):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s).astype(dtype) for s in shapes)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float64 else dict(rtol=1e-4, atol=1e-4)
    check(lambda L, x, y: x @ y, a, b, **tol)
    check(lambda L, x, y: L.matmul(x, y), a, b, second=False, **tol)


def test_mm_bmm_and_grad_fn_names():
    rng = np.random.default_rng(1)
    check(lambda L, x, y: L.mm(x, y), rng.standard_normal((2, 3)), rng.standard_normal((3, 2)))
    check(lambda L, x, y: L.bmm(x, y), rng.standard_normal((2, 2, 3)), rng.standard_normal((2, 3, 2)))
    check(lambda L, x, y: x.mm(y), rng.standard_normal((2, 3)), rng.standard_normal((3, 1)))


def test_one_side_requires_grad():
    rng = np.random.default_rng(2)
    check(lambda L, x, y: x @ y, rng.standard_normal((3, 4)), rng.standard_normal((4, 2)),
          grad_inputs=[False, True])


@pytest.mark.parametrize("call", [
    lambda L: L.zeros(2, 3) @ L.zeros(4, 5),
    lambda L: L.zeros(3) @ L.zeros(4),
    lambda L: L.zeros(3) @ L.zeros(4, 5),
    lambda L: L.mm(L.zeros(3), L.zeros(3, 3)),
    lambda L: L.bmm(L.zeros(2, 3), L.zeros(2, 3, 3)),
    lambda L: L.bmm(L.zeros(2, 3, 4), L.zeros(3, 4, 3)),
    lambda L: L.zeros(2, 3) @ L.zeros(3, 2, dtype=L.float64),
])
def test_errors_match_torch(call):
    with pytest.raises(RuntimeError) as te:
        call(torch)
    with pytest.raises(RuntimeError) as ee:
        call(ember)
    assert str(ee.value) == str(te.value).replace("torch.", "ember.")


@pytest.mark.parametrize("shapes", [((3,), (4, 5)), ((3, 4), (5,)), ((2, 3, 4), (5,)),
                                    ((3,), (2, 4, 5)), ((2, 3, 4), (2, 5, 6)),
                                    ((2, 3, 4), (5, 6)), ((2, 3, 4), (3, 4, 6))], ids=str)
def test_matmul_shape_errors_match_torch(shapes):
    with pytest.raises(RuntimeError) as te:
        torch.zeros(shapes[0]) @ torch.zeros(shapes[1])
    with pytest.raises(RuntimeError) as ee:
        ember.zeros(shapes[0]) @ ember.zeros(shapes[1])
    assert str(ee.value) == str(te.value)


@pytest.mark.parametrize("shapes", [((2,), (2,)), ((2, 2), (2,)), ((2,), (2, 2)), ((2, 2), (2, 2)),
                                    ((2, 2, 2), (2, 2, 2)), ((2, 2, 2), (2, 2)),
                                    ((2, 2), (2, 2, 2))])
def test_bool_matmul_is_refused_as_torch(shapes):
    # NumPy would compute a logical product; torch has no bool kernel and names the one it hit
    errors = []
    for lib in (ember, torch):
        a, b = (lib.ones(s, dtype=lib.bool) for s in shapes)
        with pytest.raises(NotImplementedError) as info:
            a @ b
        errors.append(str(info.value))
    assert errors[0] == errors[1]


# ---------------------------------------------------------------- mixed dtypes (fuzz finds)
@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("float32", "float16"),
                                    ("float16", "float32"), ("bfloat16", "float32"),
                                    ("int64", "float32")])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 2)),
                                    ((4, 2, 3), (3, 2)), ((2, 3), (4, 3, 2)),
                                    ((4, 2, 3), (4, 3, 2))])
def test_matmul_of_different_dtypes_raises_torch_error(dtypes, shapes):
    # float16/bfloat16 operands are widened to float32 before the node runs, so float32 @
    # float16 computed a float32 product where torch refuses
    msgs = []
    for L in (torch, ember):
        a = L.ones(shapes[0], dtype=getattr(L, dtypes[0]))
        b = L.ones(shapes[1], dtype=getattr(L, dtypes[1]))
        with pytest.raises(RuntimeError) as info:
            L.matmul(a, b)
        msgs.append(str(info.value))
    assert msgs[0] == msgs[1]


def test_mm_bmm_dot_mv_of_different_dtypes_raise_torch_error():
    f, h = "float32", "float16"
    cases = [("mm", (2, 3), (3, 2)), ("bmm", (1, 2, 3), (1, 3, 2)), ("dot", (3,), (3,)),
             ("mv", (2, 3), (3,))]
    for name, sa, sb in cases:
        msgs = []
        for L in (torch, ember):
            with pytest.raises(RuntimeError) as info:
                getattr(L, name)(L.ones(sa, dtype=getattr(L, f)), L.ones(sb, dtype=getattr(L, h)))
            msgs.append(str(info.value))
        assert msgs[0] == msgs[1], name
