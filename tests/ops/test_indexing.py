"""Indexing (ember/ops/indexing.py): getitem, setitem under autograd, gather/scatter/index_select."""
import warnings

import numpy as np
import pytest
import torch
from oracle import check, close, same_error

import ember

X = np.random.default_rng(0).standard_normal((4, 5, 3))
INDEX = {
    "int": lambda L, x: x[1], "neg_int": lambda L, x: x[-1, 2], "slice": lambda L, x: x[1:3],
    "step": lambda L, x: x[::2, 1::2], "neg_slice": lambda L, x: x[-3:-1, :, -2:],
    "none": lambda L, x: x[None, 1, None], "ellipsis": lambda L, x: x[..., 1],
    "ellipsis_mid": lambda L, x: x[1, ..., :2], "list": lambda L, x: x[[0, 2, 3]],
    "repeated": lambda L, x: x[[1, 1, 1, 0]], "tensor_idx": lambda L, x: x[L.tensor([3, 0, 3])],
    "2d_idx": lambda L, x: x[L.tensor([[0, 1], [1, 1]])], "pair_idx": lambda L, x: x[[0, 0, 2], [1, 1, 4]],
    "mixed": lambda L, x: x[1:, [0, 0, 2]], "bool_mask": lambda L, x: x[x > 0],
    "bool_rows": lambda L, x: x[L.tensor([True, False, True, True])],
    "int_tensor_0d": lambda L, x: x[L.tensor(2)], "masked_select": lambda L, x: L.masked_select(x, x < 0),
    "gather": lambda L, x: x.gather(1, L.tensor([[[0, 1, 4]] * 1] * 4).expand(4, 2, 3) if False
                                    else L.tensor(np.tile([[0, 4, 4], [1, 1, 0]], (4, 1, 1)))),
    "gather0": lambda L, x: L.gather(x, 0, L.tensor(np.array([[[3, 0, 3]]]))),
    "index_select": lambda L, x: x.index_select(1, L.tensor([4, 0, 4])),
    "index_select0": lambda L, x: L.index_select(x, 0, L.tensor([1])),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(INDEX))
def test_getitem(name, dtype):
    check(INDEX[name], X.astype(dtype))


def test_scatter_and_scatter_add():
    idx = np.array([[0, 2], [1, 0]])
    a, src = np.zeros((2, 3)) + 1.0, np.arange(1.0, 5.0).reshape(2, 2)
    check(lambda L, x, s: x.scatter(1, L.tensor(idx), s), a, src)
    check(lambda L, x, s: x.scatter_add(1, L.tensor([[0, 0], [1, 1]]), s), a, src)
    check(lambda L, x: L.scatter(x, 0, L.tensor([[1, 0, 1]]), value=5.0), a)
    close(ember.zeros(3).scatter_(0, ember.tensor([2, 0]), ember.tensor([1.0, 2.0])),
          torch.zeros(3).scatter_(0, torch.tensor([2, 0]), torch.tensor([1.0, 2.0])))


def test_setitem_under_autograd():
    v = np.array([10.0, 20.0, 30.0])
    res = []
    for lib in (ember, torch):
        x = lib.tensor(X[0].copy(), requires_grad=True)
        val = lib.tensor(v, requires_grad=True)
        y = x * 2
        y[1, :3] = val
        y[2] = 0.0
        y[y > 1.5] = -1.0
        (y * y).sum().backward()
        res.append((y, x.grad, val.grad))
        assert type(y.grad_fn).__name__ == "IndexPutBackward0" or lib is ember
    close(res[0], res[1])


def test_setitem_without_grad_writes_in_place():
    x = ember.zeros(2, 3)
    x[0, 1] = 5
    x[1] = ember.tensor([1.0, 2.0, 3.0])
    x[:, 2] = 7
    assert x.tolist() == [[0.0, 5.0, 7.0], [1.0, 2.0, 7.0]]


def test_index_errors():
    for lib in (torch, ember):
        with pytest.raises(IndexError):
            lib.zeros(2, 3)[lib.tensor([0.5])]
    for lib in (torch, ember):  # torch 2.13 takes int32 and int64 indices, nothing else
        with pytest.raises(RuntimeError, match="Expected dtype int32/int64 for index"):
            lib.zeros(2, 3).gather(1, lib.tensor([[0.0]]))


@pytest.mark.parametrize("index", [slice(None, None, -1), (slice(None), slice(None, None, -2)),
                                   slice(3, 0, -1)])
def test_negative_slice_step_raises_as_torch(index):
    # torch has no negative steps: x[::-1] must not silently reverse
    same_error(lambda lib: lib.zeros(3, 4)[index])

    def write(lib):
        lib.zeros(3, 4)[index] = 1.0
    same_error(write)


@pytest.mark.parametrize("index,shape", [
    (slice(0, 2), (3, 3)), (slice(0, 2), (2, 2)), ((slice(None), 0), (3,)), (0, (4,)),
    ([0, 1], (3, 3)), ((([0, 1]), slice(None)), (2, 2)), ("mask", (2, 3))])
@pytest.mark.parametrize("grad", [False, True])
def test_setitem_value_of_the_wrong_shape_raises_torchs_error(index, shape, grad):
    def write(lib):
        x = lib.zeros(4, 3)
        y = x.clone().requires_grad_() * 1 if grad else x  # (the recorded CopySlices path)
        where = lib.tensor(index) if isinstance(index, list) else \
            x[:, 0] > -1 if index == "mask" else index
        y[where] = lib.zeros(*shape)
    same_error(write)


def _written(lib, dtype, index, value):
    x = lib.zeros(3, 2, dtype=getattr(lib, dtype))
    x[index(lib) if callable(index) else index] = value(lib) if callable(value) else value
    return x


_MASK = lambda L: L.tensor([True, False, True])  # noqa: E731
_SETITEM_REFUSED = [  # (dtype, index, value)
    ("int64", lambda L: L.tensor([0]), lambda L: L.tensor([[1.5, 2.5]])),
    ("float32", lambda L: L.tensor([0]), lambda L: L.tensor(1.5, dtype=L.float64)),
    ("float32", [0, 2], lambda L: L.tensor([True, False])),
    ("int64", _MASK, lambda L: L.tensor([1.5, 2.5])),
    ("int64", (_MASK, lambda L: L.tensor([0])), lambda L: L.tensor(1.5)),
    ("int64", lambda L: L.tensor(True), lambda L: L.tensor(1.5)),
    ("float32", lambda L: L.tensor([0]), lambda L: L.tensor([1.0, 2.0, 3.0], dtype=L.float64)),
    ("uint8", _MASK, lambda L: L.tensor(300)), ("uint8", 0, 300), ("int8", 0, float("nan")),
    ("uint8", 0, -256), ("float32", 0, 1e40), ("float32", 0, 1 + 2j), ("int64", 0, 1 + 2j),
    ("float32", 0, 2 ** 63), ("float32", 0, "a"), ("float32", 0, None), ("float32", 0, [1.0]),
    ("int64", slice(None), (1, 2)), ("float32", 0, lambda L: np.float32(1.5)),
    ("int64", lambda L: L.tensor([True, False]), 1)]


@pytest.mark.parametrize("case", range(len(_SETITEM_REFUSED)))
def test_setitem_refusals_as_torch(case):
    # ember cast a tensor value of another dtype under an advanced index, let NumPy's
    # OverflowError / ValueError / warnings out, and wrote None, lists and NumPy scalars
    dtype, index, value = _SETITEM_REFUSED[case]
    def run(lib):
        idx = tuple(i(lib) if callable(i) else i for i in index) if isinstance(index, tuple) \
            else index
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _written(lib, dtype, idx, value)
    same_error(run)


@pytest.mark.parametrize("dtype, index, value", [
    ("int64", _MASK, lambda L: L.tensor(1.5)), ("int64", _MASK, lambda L: L.tensor([1.5])),
    ("float32", _MASK, lambda L: L.tensor(2.5, dtype=L.float64)), ("uint8", 0, -255),
    ("uint8", lambda L: L.tensor([0]), -1), ("float16", 0, 1e5), ("float32", 0, 1 + 0j),
    ("int64", 0, lambda L: L.tensor([[1.5]])), ("int64", lambda L: L.tensor(0),
                                                 lambda L: L.tensor([1.5])),
    ("float32", 0, lambda L: L.tensor([[1.0, 2.0]])), ("float16", 0, 2 ** 63 - 1)])
def test_setitem_casts_as_torch(dtype, index, value):
    # a one-element tensor value through a bool mask is cast (torch's masked_fill_ path);
    # value's leading size-1 dims are dropped; float16 takes an overflowing float as inf
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ours, theirs = _written(ember, dtype, index, value), _written(torch, dtype, index, value)
    assert ours.dtype == getattr(ember, dtype) and ours.tolist() == theirs.tolist()


def test_setitem_complex_tensor_into_a_real_one_warns_as_torch():
    # (torch warns once per process, so only ember's warning is checked)
    x = ember.zeros(3)
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        x[0] = ember.tensor(1 + 2j)
    expected = torch.zeros(3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected[0] = torch.tensor(1 + 2j)
    assert x.tolist() == expected.tolist()


def test_mask_of_the_wrong_shape_is_torchs_index_error():
    same_error(lambda L: L.zeros(3, 2)[:, L.tensor([True, False, True])])
    same_error(lambda L: L.zeros(3, 2)[..., L.tensor([[True, False]])])


@pytest.mark.parametrize("index", [
    lambda L: (L.arange(3), L.arange(2)), lambda L: ([0, 1], [0, 1, 2]),
    lambda L: (L.arange(3)[:, None], L.zeros(2, 2, 2, dtype=L.int64)),
    lambda L: (L.arange(3), slice(None), L.arange(2))])
@pytest.mark.parametrize("how", ["get", "set", "index_put_"])
def test_index_tensors_that_do_not_broadcast_raise_torchs_index_error(index, how):
    # NumPy's "indexing arrays ... shapes (3,) (2,)" leaked (makemore's lecture hits it)
    def call(L):
        x, where = L.zeros(5, 4, 3), index(L)
        if how == "get":
            x[where]
        elif how == "set":
            x[where] = 1.0
        else:
            x.index_put_(tuple(L.as_tensor(i) for i in where if type(i) is not slice),
                         L.tensor(1.0))
    same_error(call)


@pytest.mark.parametrize("call", [
    lambda L: L.gather(L.tensor(5.0), 0, L.tensor(0)),
    lambda L: L.gather(L.tensor(5.0), -1, L.tensor([0, 0])),
    lambda L: L.gather(L.tensor([5.0, 6.0]), 0, L.tensor(1)),
    lambda L: L.index_select(L.tensor(5.0), 0, L.tensor([0])),
    lambda L: L.index_select(L.tensor(5.0), -1, L.tensor(0))])
def test_gather_and_index_select_of_0d_tensors_as_torch(call):
    # NumPy's AxisError / IndexError leaked: torch reads a 0-d tensor as 1-d there
    ours, theirs = call(ember), call(torch)
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("call", [
    lambda L: L.gather(L.tensor(5.0), 1, L.tensor(0)),
    lambda L: L.gather(L.tensor(5.0), 0, L.tensor(1)),
    lambda L: L.gather(L.zeros(2, 2), 2, L.zeros(2, 2, dtype=L.int64)),
    lambda L: L.index_select(L.tensor(5.0), 0, L.tensor([0, 0])),
    lambda L: L.index_select(L.tensor(5.0), 1, L.tensor([0])),
    lambda L: L.index_select(L.zeros(2, 2), 2, L.tensor([0]))])
def test_gather_and_index_select_dim_refusals_as_torch(call):
    # ember took any dim modulo the rank
    same_error(call)


_BYTES = lambda L: L.tensor([1, 0, 1], dtype=L.uint8)  # noqa: E731


@pytest.mark.parametrize("call", [
    lambda L: L.arange(3.0)[_BYTES(L)], lambda L: L.arange(6.0).reshape(2, 3)[:, _BYTES(L)],
    lambda L: L.arange(3.0)[L.tensor(1, dtype=L.uint8)],
    lambda L: L.zeros(3).index_put_((_BYTES(L),), L.tensor([5.0, 6.0])),
    lambda L: L.zeros(3).index_put_((_BYTES(L),), L.tensor([5.0, 6.0]), accumulate=True)])
def test_a_byte_index_is_a_mask_as_torch(call):
    # ember read a uint8 index as integer positions ([1, 0, 1] -> elements 1, 0, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = call(ember), call(torch)
    assert tuple(ours.shape) == tuple(theirs.shape) and ours.tolist() == theirs.tolist()
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        ember.arange(3.0)[_BYTES(ember)]


@pytest.mark.parametrize("call", [
    lambda L: L.zeros(3).__setitem__(_BYTES(L), 7.0),
    lambda L: L.zeros(3).__setitem__(_BYTES(L), L.tensor(7.0)),
    lambda L: L.zeros(3).index_put_((_BYTES(L),), L.tensor(5.0)),
    lambda L: L.zeros(3).index_put_((L.tensor([0], dtype=L.uint8),), L.tensor([1.5]))])
def test_one_value_through_a_byte_mask_is_refused_as_torch(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(call)


def test_slice_assignment_of_a_tensor_bumps_the_version_and_keeps_the_checks():
    """The short path for x[a:b] = tensor (no graph) writes, counts a version and still gives
    torch's errors (shape, inference tensor)."""
    x = ember.zeros(6, dtype=ember.int64)
    before = x._version
    x[1:4] = ember.tensor([1, 2, 3])
    assert x.tolist() == [0, 1, 2, 3, 0, 0] and x._version == before + 1
    same_error(lambda L: L.zeros(3, 4).__setitem__(slice(0, 2), L.ones(3, 4)))
    for lib in (torch, ember):
        with lib.inference_mode():
            z = lib.zeros(3)
        with pytest.raises(RuntimeError, match="Inplace update to inference tensor"):
            z[0:1] = lib.ones(1)


def test_range_and_empty_list_indices_as_torch():
    """x[range(n), labels] (karpathy's makemore part 4) reads a range as a list of positions,
    in reads, writes and gradients; x[[]] and x[range(0)] are empty long indices."""
    import torch
    out = []
    for lib in (ember, torch):
        x = lib.arange(12.0).reshape(3, 4).requires_grad_()
        y = x[range(3), lib.tensor([0, 2, 3])]
        y.sum().backward()
        z = lib.zeros(3, 4)
        z[range(3), [1, 1, 2]] = -1.0
        out.append([y.tolist(), x.grad.tolist(), z.tolist(), tuple(x[range(0)].shape),
                    tuple(x[[]].shape), x[:, range(0, 4, 2)].tolist()])
    assert out[0] == out[1]


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "uint8", "bool"])
@pytest.mark.parametrize("value", [1.5, -1, 300, 7, True, 1e6])
def test_setitem_of_a_number_at_an_int_index_as_torch(dtype, value):
    # x[i] = number without a graph takes a short path: values, overflow refusals, version
    def fill(L):
        x = L.zeros(4, 2, dtype=getattr(L, dtype))
        before = x._version
        x[1] = value
        x[-1] = value
        return x, x._version - before
    try:
        theirs, bumps = fill(torch)
    except (RuntimeError, TypeError, ValueError):
        same_error(lambda L: fill(L))
        return
    ours, our_bumps = fill(ember)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert our_bumps == bumps


def test_setitem_of_a_number_refusals_as_torch():
    same_error(lambda L: L.zeros(3).__setitem__(3, 1.0))  # out of range
    same_error(lambda L: L.zeros(3).__setitem__(0, "a"))  # not a number
    with torch.inference_mode():
        t = torch.zeros(3)
    with ember.inference_mode():
        e = ember.zeros(3)
    same_error(lambda L: (t if L is torch else e).__setitem__(0, 1.0))  # inference tensor


@pytest.mark.parametrize("call", [
    lambda L: L.tensor(3.0)[0], lambda L: L.tensor(3.0)[(0,)], lambda L: L.tensor(3.0)[:],
    lambda L: L.tensor(3.0)[L.tensor(0)], lambda L: L.tensor(3.0)[None, 0],
    lambda L: L.zeros(3)[0, 0], lambda L: L.zeros(3)[..., 0, 0],
    lambda L: L.zeros(3)[L.tensor([True, False, True]), 0], lambda L: L.zeros(2, 3)[0, 0, 0],
    lambda L: L.tensor(3.0).__setitem__(0, 5), lambda L: L.tensor(3.0).__setitem__(slice(None), 5),
    lambda L: L.zeros(3).__setitem__((0, 0), 1.0)])
def test_too_many_indices_in_torchs_words(call):
    """Old scripts' loss.data[0] on a 0-d loss (hunkim's PyTorchZeroToAll): torch's 'invalid
    index of a 0-dim tensor. Use tensor.item() ...', not NumPy's 'too many indices for array'."""
    same_error(call)


NONE_INDICES = [(None,), (None, None), (Ellipsis, None), (slice(None), None, 1),
                (0, None, Ellipsis, None), (None, 1, None, slice(1, 3), None),
                (Ellipsis, None, None), (None, Ellipsis, 2, None), (1, 2, 2, 2, None),
                (None, 0, 0, 0, 0), (slice(None, None, 2), None, Ellipsis)]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided", "empty"])
@pytest.mark.parametrize("index", NONE_INDICES, ids=str)
def test_none_in_index_strides_as_torch(index, layout):
    """None inserts a dim strided as torch's unsqueeze strides it (NumPy gives 0), so stride()
    and what depends on it (is_contiguous, views of the result) agree with torch."""
    def make(lib):
        x = lib.arange(360.).reshape(3, 4, 5, 6)
        return {"contiguous": x, "transposed": x.transpose(1, 3), "strided": x[:, ::2],
                "empty": x[:, :, :, :0]}[layout]
    try:
        t = make(torch)[index]
    except IndexError:  # an int past an empty dim (torch numbers the dim its own way here)
        with pytest.raises(IndexError, match="out of bounds for dimension"):
            make(ember)[index]
        return
    e = make(ember)[index]
    assert tuple(e.shape) == tuple(t.shape)
    assert e.stride() == t.stride()
    assert e.is_contiguous() == t.is_contiguous()
    close(e, t)


def test_masked_assignment_of_the_wrong_count_raises_torch_error():
    # NumPy's 'boolean array indexing assignment cannot assign 5 input values' leaked
    def assign(L, count):
        x = L.arange(12.).reshape(3, 4)
        x[x > 5] = L.tensor([100.] * count)
    same_error(lambda L: assign(L, 5))
    same_error(lambda L: assign(L, 7))


@pytest.mark.parametrize("dtype", ["float32", "int64", "bfloat16"])
def test_assigning_a_value_of_more_dims_names_torch_types(dtype):
    def assign(L):
        x = L.zeros(3, 4, dtype=getattr(L, dtype))
        x[0] = L.ones(2, 4, dtype=getattr(L, dtype))
    same_error(assign)
    same_error(lambda L: L.ones(2, 4, dtype=getattr(L, dtype)).expand(4))


# ---------------------------------------------------------------- torch's index semantics (probe finds)
_TORCH_INDEX = {
    "int then array past a slice": lambda L: (0, slice(None), [1, 2]),
    "int, None, array": lambda L: (0, None, [1, 2]),
    "array, slice, int": lambda L: ([0, 1], slice(None), 0),
    "ints and arrays": lambda L: (1, [0, 2], 3),
    "ellipsis, int, array": lambda L: (Ellipsis, 1, [0, 1]),
    "mask then int": lambda L: (L.tensor([True, False]), slice(None), 2),
    "0-d tensor and array": lambda L: (L.tensor(1), slice(None), L.tensor([0, 3])),
    "list of lists": lambda L: [[0, 1], [1, 2]],
    "list of tensors": lambda L: [L.tensor(0), L.tensor(2)],
    "list with slice": lambda L: [slice(0, 1), [1, 2]],
    "numpy uint8 mask": lambda L: np.array([1, 0], dtype=np.uint8),
}


@pytest.mark.parametrize("name", sorted(_TORCH_INDEX))
def test_index_semantics_as_torch(name):
    # NumPy treats an index's integers as index arrays (x[0, :, [1, 2]] is (2, 3) there,
    # (3, 2) in torch, which selects first); a short list holding sequences or tensors is a
    # tuple of indices in torch; a NumPy uint8 array is a mask there
    out = []
    for L in (torch, ember):
        x = L.arange(24.).reshape(2, 3, 4).requires_grad_()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            y = x[_TORCH_INDEX[name](L)]
        (y * L.arange(float(y.numel())).reshape(y.shape)).sum().backward()
        out.append((tuple(y.shape), y.tolist(), x.grad.tolist(), len(caught)))
    assert out[1] == out[0]


@pytest.mark.parametrize("name", sorted(_TORCH_INDEX))
def test_assignment_semantics_as_torch(name):
    out = []
    for L in (torch, ember):
        x = L.arange(24.).reshape(2, 3, 4)
        index = _TORCH_INDEX[name](L)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            shape = x[index].shape
            x[index] = L.arange(float(np.prod(shape))).reshape(shape) * -1
        out.append(x.tolist())
    assert out[1] == out[0]


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint16"])
def test_index_tensors_of_other_integer_dtypes_are_refused(dtype):
    same_error(lambda L: L.arange(6.)[L.tensor([1, 2]).to(getattr(L, dtype))])
    for L in (torch, ember):  # (a NumPy array of any integer dtype indexes, as torch)
        assert L.arange(6.)[np.array([1, 2], dtype=getattr(np, dtype))].tolist() == [1.0, 2.0]


E = Ellipsis
SEVERAL_ELLIPSES = [(E, E), (E, 0, E), (0, E, E), (E, None, E), (E, E, E), (0, E, 1, E),
                    (0, 0, E, 0, E), (E, [0, 1], E), (E, slice(None), E), (None, E, None, E),
                    (E, 0, 0, 0, E), (E, E, slice(None)), (E, E, slice(0, 1)), (E, E, 0, 0, 0),
                    (E, E, slice(None, 100), E), (0, E, E, slice(None))]


@pytest.mark.parametrize("index", SEVERAL_ELLIPSES)
def test_several_ellipses_index_as_torch(index):
    """torch moves its dim pointer by the unindexed dims at each ellipsis; ember refused a
    second ellipsis (NumPy's rule), or let "tuple index out of range" out"""
    check(lambda L, x: x[index], X)


@pytest.mark.parametrize("index", [(E, E, 0), (E, 0, E), (E, E, slice(None, 1)), (E, None, E)])
def test_several_ellipses_of_a_fully_indexed_tensor_are_nothing_as_torch(index):
    check(lambda L, x: x[index], X[0, 0])


@pytest.mark.parametrize("index", [(E, 1, E), (E, slice(0, 2), E), (0, E, 1, E)])
def test_assignment_through_several_ellipses_as_torch(index):
    def write(L, x, v):
        y = x * 1
        y[index] = v
        return y
    check(write, X, np.ones(torch.tensor(X)[index].shape) * 2)


def test_several_ellipses_of_a_0d_tensor_and_onto_itself_as_torch():
    check(lambda L, x: x[E, None, E], np.array(3.0))

    def onto_itself(L):
        x = L.arange(6.0).reshape(2, 3)
        x[E, E] = x
        return x
    assert onto_itself(ember).tolist() == onto_itself(torch).tolist()


@pytest.mark.parametrize("index", [(E, E, 0), (E, 1, E, 2), (E, E, None), (E, E, slice(1, None)),
                                   (E, E, slice(None, None, 2)), (E, E, [0]), (E, E, True),
                                   (0, E, None, E, 0)])
def test_several_ellipses_past_the_last_dim_raise_index_error_as_torch(index):
    for lib in (torch, ember):
        with pytest.raises(IndexError):
            lib.zeros(2, 3, 4)[index]
    with pytest.raises(IndexError, match="several ellipses"):
        ember.zeros(2, 3, 4)[index] = 1.0
