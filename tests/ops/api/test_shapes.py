"""The public functions of ember/ops/api/shapes.py (reshape, view, transpose, permute, expand, cat, stack, split, ...),
called as ``ember.X``: values, gradients, second derivatives and grad_fn names against torch 2.13."""
import pytest
import torch
from oracle import check, same_error

import ember

from ._cases import A, B, C

SHAPES = {
    "reshape": (lambda L, c: L.reshape(c, (4, -1)), C),
    "view": (lambda L, c: c.view(6, 4), C),
    "flatten": (lambda L, c: L.flatten(c, 1), C),
    "unflatten": (lambda L, c: L.unflatten(c, 2, (2, 2)), C),
    "squeeze": (lambda L, c: L.squeeze(c[:, :1], 1), C),
    "unsqueeze": (lambda L, c: L.unsqueeze(c, -1), C),
    "transpose": (lambda L, c: L.transpose(c, 0, 2), C),
    "t": (lambda L, a: L.t(a), A),
    "permute": (lambda L, c: L.permute(c, (1, 2, 0)), C),
    "expand": (lambda L, a: a[:1].expand(5, 3, 4), A),
    "broadcast_to": (lambda L, a: L.broadcast_to(a[0], (2, 4)), A),
    "repeat": (lambda L, a: a.repeat(2, 1), A),
    "flip": (lambda L, c: L.flip(c, (0, 2)), C),
    "narrow": (lambda L, c: L.narrow(c, 2, 1, 2), C),
    "select": (lambda L, c: L.select(c, 1, -1), C),
    "split": (lambda L, c: L.split(c, [1, 3], 2)[1], C),
    "chunk": (lambda L, c: L.chunk(c, 3, 1)[2], C),
    "unbind": (lambda L, c: L.unbind(c, 1)[0], C),
    "cat": (lambda L, a, b: L.cat([a, b, a], 1), A, B),
    "stack": (lambda L, a, b: L.stack([a, b], -1), A, B),
}


CASES = {**SHAPES}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_torch(name):
    fn, *inputs = CASES[name]
    check(fn, *inputs)


@pytest.mark.parametrize("call", [
    lambda L: L.cat([L.ones(2, 3), L.ones(3, 2)]),
    lambda L: L.ones(2, 3).view(4),
    lambda L: L.stack([L.ones(2), L.ones(3)]),
])
def test_errors_match_torch(call):
    errors = []
    for lib in (torch, ember):
        with pytest.raises(RuntimeError) as info:
            call(lib)
        errors.append(str(info.value).replace("torch.", "ember."))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("call", [lambda L: L.flip(L.ones(2)), lambda L: L.ones(2).flip()])
def test_flip_without_dims_raises_type_error_as_torch(call):
    for lib in (torch, ember):
        with pytest.raises(TypeError, match='flip\\(\\) missing 1 required positional arguments: '
                                            '"dims"'):
            call(lib)


@pytest.mark.parametrize("call", [lambda L: L.tensor(1.0).chunk(3), lambda L: L.tensor(1.0).split(2),
                                  lambda L: L.split(L.tensor(1.0), [1])])
def test_chunk_and_split_of_a_0d_tensor_raise_as_torch(call):
    same_error(call)


@pytest.mark.parametrize("call", [
    lambda L: L.zeros(2, 3).split(0), lambda L: L.zeros(2, 3).split(-1),
    lambda L: L.zeros(2, 3).split([1, -1, 3], 1), lambda L: L.zeros(2, 3).chunk(0),
    lambda L: L.zeros(2, 3).chunk(-1), lambda L: L.zeros(2, 3).expand(-1, -1, 3),
    lambda L: L.zeros(2, 3).repeat(-1, 1), lambda L: L.zeros(2, 3).flip((0, 0)),
    lambda L: L.zeros(2, 3).flip((1, -1))])
def test_bad_split_chunk_expand_repeat_flip_arguments_raise_as_torch(call):
    # ember split(0) returned one empty piece and expand(-1, ...) made a new leading dim of 3
    # silently; chunk(0) divided by zero; repeat/flip leaked NumPy's ValueError
    same_error(call)


def test_split_zero_of_an_empty_dim_is_one_empty_piece_as_torch():
    e, t = ember.zeros(0, 3).split(0), torch.zeros(0, 3).split(0)
    assert [tuple(p.shape) for p in e] == [tuple(p.shape) for p in t]


@pytest.mark.parametrize("dims", [(0, 0), (-1, 0), (0, 1), (-2, -1)])
def test_flatten_of_a_0d_tensor_checks_its_dims_as_torch(dims):
    """(any dims were taken)"""
    if all(d in (0, -1) for d in dims):
        assert ember.tensor(3.0).flatten(*dims).tolist() == [3.0]
        assert torch.tensor(3.0).flatten(*dims).tolist() == [3.0]
    else:
        same_error(lambda L: L.tensor(3.0).flatten(*dims))


ZERO_D_SHAPE_OPS = {
    "flip": lambda L, x, d: x.flip(d), "roll": lambda L, x, d: x.roll(1, d),
    "movedim": lambda L, x, d: x.movedim(0, d), "unbind": lambda L, x, d: x.unbind(d),
    "narrow": lambda L, x, d: x.narrow(d, 0, 1), "select": lambda L, x, d: x.select(d, 0),
    "tensor_split": lambda L, x, d: x.tensor_split(1, d),
    "renorm": lambda L, x, d: x.renorm(2, d, 1),
    "cummax": lambda L, x, d: x.cummax(d)[0], "take_along_dim":
        lambda L, x, d: L.take_along_dim(x, L.tensor(0), d),
    "cross": lambda L, x, d: L.linalg.cross(x, x, dim=d),
    "trapezoid": lambda L, x, d: L.trapezoid(x, dim=d),
    "cumulative_trapezoid": lambda L, x, d: L.cumulative_trapezoid(x, dim=d),
    "quantile": lambda L, x, d: L.quantile(x, 0.5, d, keepdim=True),
    "gather": lambda L, x, d: x.gather(d, L.tensor([0, 0])),
    "index_select": lambda L, x, d: x.index_select(d, L.tensor(0)),
    "scatter": lambda L, x, d: x.scatter(d, L.tensor(0), 1.0),
    "scatter_add": lambda L, x, d: x.scatter_add(d, L.tensor([0, 0]), L.tensor([5.0, 6.0])),
    "index_add": lambda L, x, d: x.index_add(d, L.tensor(0), L.tensor(5.0))}


@pytest.mark.parametrize("dim", [0, -1, 1, -2])
@pytest.mark.parametrize("name", list(ZERO_D_SHAPE_OPS))
def test_0d_tensors_along_a_dim_as_torch(name, dim):
    """(NumPy's AxisError or Python's IndexError leaked, renorm computed, gather/scatter/...
    refused a scalar torch indexes as one element)"""
    op = ZERO_D_SHAPE_OPS[name]
    try:
        want = op(torch, torch.tensor(3.0, requires_grad=True), dim)
    except Exception:  # noqa: BLE001  (torch's refusal: ember must raise the same)
        same_error(lambda L: op(L, L.tensor(3.0, requires_grad=True), dim))
        return
    x = ember.tensor(3.0, requires_grad=True)
    got = op(ember, x, dim)
    got, want = (got, want) if name != "unbind" else (got[0], want[0])
    assert tuple(got.shape) == tuple(want.shape) and got.tolist() == want.tolist()
    got.sum().backward()
    t = torch.tensor(3.0, requires_grad=True)
    out = op(torch, t, dim)
    (out[0] if name == "unbind" else out).sum().backward()
    assert x.grad.tolist() == t.grad.tolist()


def test_cross_without_a_dim_of_size_3_raises_as_torch():
    """(it fell back to dim -1 with linalg.cross's message)"""
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's deprecation of cross without dim
        same_error(lambda L: L.cross(L.ones(2, 2), L.ones(2, 2)))


def test_unflatten_of_a_0d_tensor_raises_torchs_runtime_error():
    """(Python's tuple IndexError leaked; torch's message also carries its C++ trace)"""
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="Dimension specified as 0 but tensor has no"):
            lib.tensor(3.0).unflatten(0, (1,))


# ---------------------------------------------------------------- view(dtype) (fuzz finds)
_VIEW_DTYPE = {
    "f32->f16": lambda L: L.arange(24.).reshape(2, 3, 4).view(L.float16),
    "transposed f32->f16": lambda L: L.arange(24.).reshape(2, 3, 4).transpose(0, 2).view(L.float16),
    "0-d f32->f16": lambda L: L.tensor(1.).view(L.float16),
    "f16->f32": lambda L: L.arange(12, dtype=L.float16).reshape(3, 4).view(L.float32),
    "odd last size": lambda L: L.arange(12, dtype=L.float16).reshape(3, 4)[:, :3].view(L.float32),
    "odd offset": lambda L: L.arange(12, dtype=L.float16).reshape(3, 4)[:, 1:3].view(L.float32),
    "odd stride": lambda L: L.zeros(3, 3, dtype=L.float16)[:, :2].view(L.float32),
    "same size, any layout": lambda L: L.arange(24.).reshape(2, 3, 4).transpose(0, 2).view(L.int32),
    "one column": lambda L: L.arange(24.).reshape(2, 3, 4)[:, :, :1].view(L.float16),
    "bf16": lambda L: L.arange(24.).reshape(2, 3, 4).view(L.bfloat16),
}


@pytest.mark.parametrize("name", sorted(_VIEW_DTYPE))
def test_view_dtype_is_a_view_with_torch_checks(name):
    # NumPy's ValueError leaked for non-contiguous and 0-d inputs; the result was no view
    results = []
    for L in (torch, ember):
        try:
            r = _VIEW_DTYPE[name](L)
            results.append((tuple(r.shape), tuple(r.stride()), r.float().flatten().tolist()))
        except RuntimeError as e:
            results.append(str(e))
    assert results[1] == results[0]
    x = ember.arange(6.)
    v = x.view(ember.int32)
    v[0] = 5
    assert v._base is x and x._version == 1 and x[0].item() != 0


@pytest.mark.parametrize("call", [
    lambda L, x: x.view(size=(6,)), lambda L, x: x.reshape(shape=(6,)), lambda L, x: L.reshape(x, shape=(3, 2)),
    lambda L, x: x[:1].expand(size=(4, 3)), lambda L, x: x.permute(dims=(1, 0)), lambda L, x: x.flip(dims=(0,)),
    lambda L, x: L.flip(x, dims=(1,)), lambda L, x: x.repeat(repeats=(1, 2)), lambda L, x: x.new_zeros(size=(2,)),
    lambda L, x: x.new_ones(size=(2, 1)), lambda L, x: L.min(x, other=x * 0), lambda L, x: L.max(x, other=-x),
    lambda L, x: x.view(dtype=L.int32)])
def test_keyword_names_as_torch(call):
    # torch names these arguments (size=, shape=, dims=, repeats=, other=); ember's
    # positional-only forms raised TypeError
    out = [call(L, L.tensor([[1., -2, 3], [4, 5, -6]])) for L in (torch, ember)]
    assert tuple(out[1].shape) == tuple(out[0].shape) and out[1].tolist() == out[0].tolist()


@pytest.mark.parametrize("call", [
    lambda L: L.tensor(1.0).permute(), lambda L: L.ones(2, 3).permute(),
    lambda L: L.permute(L.tensor(1.0))])
def test_permute_without_dims_is_torchs_type_error(call):
    """ember returned a 0-d tensor unchanged (and refused others with permute(sparse_coo)'s
    words)"""
    same_error(call)


def test_permute_of_no_dims_on_a_0d_tensor_as_torch():
    for call in (lambda L: L.tensor(1.0).permute(()), lambda L: L.tensor(1.0).permute([]),
                 lambda L: L.tensor(1.0).permute(dims=())):
        assert call(ember).shape == call(torch).shape == ()
