"""Tensor (ember/_tensor.py, _dtype.py, _tensor_str.py) against torch 2.13."""
import copy
import pickle

import numpy as np
import pytest
import torch
from oracle import close, same_error

import ember

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def same_dtype(e, t):
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1], (e.dtype, t.dtype)


@pytest.mark.parametrize("call", [
    lambda L: L.tensor([1, 2]) - L.tensor([True, False]),
    lambda L: L.tensor([True, False]) - 1,
    lambda L: 1 - L.tensor([True, False]),
    lambda L: L.tensor([True, False]) - L.tensor([True, True]),
    lambda L: -L.tensor([True]),
])
def test_bool_arithmetic_errors(call):
    with pytest.raises(RuntimeError) as te:
        call(torch)
    with pytest.raises(RuntimeError) as ee:
        call(ember)
    assert str(ee.value) == str(te.value)


def test_legacy_constructor():
    close(ember.Tensor([1, 2]), torch.Tensor([1, 2]))
    assert ember.Tensor(2, 3).shape == (2, 3)


# ---------------------------------------------------------------- dtypes and promotion
def test_dtype_objects():
    assert ember.float32 is ember.float and ember.float64 is ember.double
    assert ember.int64 is ember.long and ember.float16 is ember.half
    assert repr(ember.float32) == "ember.float32"
    assert ember.float32.is_floating_point and not ember.int64.is_floating_point
    assert ember.get_default_dtype() == ember.float32
    assert ember.tensor([1.0]).dtype is ember.float32
    assert pickle.loads(pickle.dumps(ember.int32)) is ember.int32


def test_set_default_dtype():
    try:
        ember.set_default_dtype(ember.float64)
        assert ember.tensor([1.5]).dtype == ember.float64 and ember.zeros(1).dtype == ember.float64
        assert (ember.tensor([1, 2]) * 0.5).dtype == ember.float64
    finally:
        ember.set_default_dtype(ember.float32)


@pytest.mark.parametrize("a", DTYPES)
@pytest.mark.parametrize("b", DTYPES)
def test_promote_types_matches_torch(a, b):
    e = ember.promote_types(getattr(ember, a), getattr(ember, b))
    t = torch.promote_types(getattr(torch, a), getattr(torch, b))
    assert str(e).split(".")[1] == str(t).split(".")[1]


PROMOTION_CASES = [
    lambda L: L.tensor([1, 2]) * 0.5,                             # int * float -> float32
    lambda L: L.tensor([1.0, 2.0]) + 3.0,                         # float32 + py float: float32
    lambda L: L.tensor([1.0, 2.0]) + 10 ** 10,
    lambda L: L.tensor([1, 2], dtype=L.int32) + 3,                # int32 + py int: int32
    lambda L: L.tensor([1, 2], dtype=L.uint8) + 1,
    lambda L: L.tensor([True, False]) + 1,                         # bool + int: int64
    lambda L: L.tensor([True, False]) * 1.5,
    lambda L: L.tensor([True, False]) & True,
    lambda L: L.tensor([1.0, 2.0]) + L.tensor(3.0, dtype=L.float64),  # 0-dim doesn't win
    lambda L: L.tensor([1, 2]) + L.tensor(3.0, dtype=L.float64),  # 0-dim lifts category
    lambda L: L.tensor([1, 2], dtype=L.int32) + L.tensor(3),     # same category: dim wins
    lambda L: L.tensor(1.0, dtype=L.float64) + L.tensor(2.0),   # both 0-dim: promote
    lambda L: L.tensor([1.0], dtype=L.float16) * L.tensor([2.0]),
    lambda L: L.tensor([1, 2], dtype=L.int8) * L.tensor([3], dtype=L.uint8),
    lambda L: L.tensor([1.0], dtype=L.float64) * L.tensor([2.0]),
    lambda L: L.tensor([3, 4]) / 2,                               # true division -> float
    lambda L: L.tensor([3, 4]) / L.tensor([2, 3]),
    lambda L: L.tensor([7, -7]) // 2,
    lambda L: L.tensor([2, 3]) ** 2,
    lambda L: L.tensor([2, 3]) ** 0.5,
    lambda L: 2.0 ** L.tensor([2, 3]),
    lambda L: L.tensor([1.5], dtype=L.float16) + 2.5,
    lambda L: L.tensor([1, 2], dtype=L.int32) < 2.5,
    lambda L: L.tensor([1.0, 2.0], dtype=L.float64).sum(),
    lambda L: L.tensor([1, 2], dtype=L.int32).sum(),
    lambda L: L.tensor([True, True]).sum(),
    lambda L: L.tensor([1, 2], dtype=L.uint8).prod(),
    lambda L: L.tensor([1, 2]).float().mean(),
    lambda L: L.where(L.tensor([True, False]), L.tensor([1, 2]), 0.5),
    lambda L: L.where(L.tensor([True, False]), 1.0, L.tensor([1.0], dtype=L.float64)),
    lambda L: L.tensor([1, 2]).exp(),
    lambda L: L.tensor([1, 4], dtype=L.int32).sqrt(),
    lambda L: L.tensor([1, -4]).abs(),
    lambda L: L.cat([L.tensor([1]), L.tensor([2.0])]),
    lambda L: L.tensor([1, 2]).clamp(0.5, 1.5),
    lambda L: L.tensor([1, 2]).maximum(L.tensor([1.5])),
]


@pytest.mark.parametrize("case", range(len(PROMOTION_CASES)))
def test_promotion_rules(case):
    fn = PROMOTION_CASES[case]
    close(fn(ember), fn(torch))


# ---------------------------------------------------------------- attributes
def test_attributes():
    data = np.arange(24.0).reshape(2, 3, 4)
    e, t = ember.tensor(data), torch.tensor(data)
    assert e.shape == t.shape and e.size() == t.size() and e.size(1) == t.size(1)
    assert e.size(-1) == 4 and e.dim() == e.ndim == 3 and e.numel() == 24
    assert repr(e.shape) == "ember.Size([2, 3, 4])" and e.shape.numel() == 24
    assert e.dtype == ember.float64 and str(e.device) == "cpu" and e.device == "cpu"
    assert repr(e.device) == "device(type='cpu')"
    close(e.T, t.permute(2, 1, 0))
    assert len(e) == 2 and [r.shape for r in e] == [(3, 4), (3, 4)]
    assert e.is_leaf and e.grad_fn is None and e.grad is None and not e.requires_grad
    assert np.asarray(e).shape == (2, 3, 4) and np.array(e, dtype=np.float32).dtype == np.float32
    assert e.tolist() == t.tolist()
    assert e.element_size() == 8 and e.is_contiguous() and e.stride() == t.stride()
    with pytest.raises(IndexError):
        e.size(3)


def test_item_and_conversions():
    assert ember.tensor([2.5]).item() == 2.5 and isinstance(ember.tensor(3).item(), int)
    assert float(ember.tensor(1.5)) == 1.5 and int(ember.tensor(7)) == 7
    assert bool(ember.tensor([1.0])) and [10, 20, 30][ember.tensor(1)] == 20
    for lib in (torch, ember):
        with pytest.raises(RuntimeError, match="a Tensor with 2 elements cannot be converted"):
            lib.tensor([1.0, 2.0]).item()
        with pytest.raises(RuntimeError, match="Boolean value of Tensor with more than one"):
            bool(lib.tensor([1.0, 2.0]))
        with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
            len(lib.tensor(1.0))
        with pytest.raises(TypeError, match="iteration over a 0-d tensor"):
            iter(lib.tensor(1.0))


def test_data_is_settable_and_shares_memory():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    d = x.data
    assert not d.requires_grad and d.is_leaf
    d[0] = 5.0
    assert x[0].item() == 5.0
    x.data = ember.tensor([7.0, 8.0])
    assert x.tolist() == [7.0, 8.0] and x.requires_grad


def test_data_of_a_different_shape_or_dtype():
    """A leaf takes any new data (model.double() does this): gradients follow the new data.
    A non-leaf's graph was recorded for its old array: ember refuses, naming both, before any
    change (torch would fail later in backward, or silently cast)."""
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    keep = x * 1.0  # keeps x's gradient sink alive
    x.data = ember.tensor([1.0, 2.0, 3.0], dtype=ember.float64)
    (x + ember.zeros(2, 3, dtype=ember.float64)).sum().backward()  # summed back to x's shape
    assert x.grad.dtype == ember.float64 and x.grad.tolist() == [2.0, 2.0, 2.0]
    assert keep.grad_fn is not None
    h = ember.tensor([1.0, 2.0], requires_grad=True) * 2.0
    with pytest.raises(RuntimeError, match=r"non-leaf tensor to a different shape or dtype "
                                           r"\(\[2\] float32 -> \[5\] float32\)"):
        h.data = ember.zeros(5)
    assert h.shape == (2,)
    h.data = ember.tensor([5.0, 6.0])  # same shape and dtype: allowed, as torch
    assert h.tolist() == [5.0, 6.0]


def test_grad_is_settable_with_checks():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    x.grad = ember.tensor([0.5, 0.5])
    assert x.grad.tolist() == [0.5, 0.5]
    x.grad = None
    assert x.grad is None
    for lib in (torch, ember):
        y = lib.tensor([1.0, 2.0], requires_grad=True)
        with pytest.raises(RuntimeError, match="attempting to assign a gradient of size"):
            y.grad = lib.zeros(3)
        with pytest.raises(TypeError, match="assigned grad expected to be a Tensor or None"):
            y.grad = 3


@pytest.mark.parametrize("name", ["int64", "int32", "uint8", "bool"])
def test_requires_grad_only_floating(name):
    def setter(x):
        x.requires_grad = True

    msgs = []
    for lib in (torch, ember):
        dt = getattr(lib, name)
        for call in (lambda: lib.tensor([1, 0], dtype=dt, requires_grad=True),
                     lambda: lib.zeros(2, dtype=dt).requires_grad_(),
                     lambda: setter(lib.zeros(2, dtype=dt))):
            with pytest.raises(RuntimeError) as err:
                call()
            msgs.append(str(err.value))
    assert msgs[:3] == msgs[3:]


def test_numpy_error_when_requiring_grad():
    msgs = []
    for lib in (torch, ember):
        x = lib.tensor([1.0], requires_grad=True)
        with pytest.raises(RuntimeError) as err:
            x.numpy()
        msgs.append(str(err.value))
        assert x.detach().numpy().tolist() == [1.0]
    assert msgs[0] == msgs[1]


def test_copy_and_pickle_roundtrip():
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    y = copy.deepcopy(x)
    assert y is not x and y.requires_grad and y.grad.tolist() == [2.0, 2.0]
    y.data[0] = 9
    assert x[0].item() == 1.0
    (y * 3).sum().backward()
    assert x.grad.tolist() == [2.0, 2.0] and y.grad.tolist() == [5.0, 5.0]
    z = pickle.loads(pickle.dumps(x))
    assert z.tolist() == x.tolist() and z.requires_grad
    with pytest.raises(RuntimeError, match="Only Tensors created explicitly by the user"):
        copy.deepcopy(x * 2)


# ---------------------------------------------------------------- repr
REPR_CASES = [
    lambda L: L.tensor([1.0, 2.0]),
    lambda L: L.tensor([1.0, 2.0], requires_grad=True),
    lambda L: L.tensor([1.0, 2.0], requires_grad=True) * 2,
    lambda L: (L.tensor([1.0, 2.0], requires_grad=True) * 2).sum(),
    lambda L: L.tensor([[1.5, -2.25], [3.125, 4.0]]),
    lambda L: L.tensor([1, 2, 3]),
    lambda L: L.tensor([1, 2, 3], dtype=L.int32),
    lambda L: L.tensor([True, False]),
    lambda L: L.tensor([1.0, 2.0], dtype=L.float64),
    lambda L: L.tensor([1.0, 2.0], dtype=L.float16),
    lambda L: L.tensor(3.5),
    lambda L: L.tensor(3),
    lambda L: L.tensor([]),
    lambda L: L.zeros(2, 0),
    lambda L: L.tensor([1e-5, 1.0]),
    lambda L: L.tensor([1e10, 1.0]),
    lambda L: L.tensor([0.1, 123456.0]),
    lambda L: L.tensor([float("nan"), float("inf"), -float("inf"), 1.0]),
    lambda L: L.tensor([0.0, -0.0]),
    lambda L: L.arange(12.0).reshape(2, 2, 3),
    lambda L: L.arange(2000.0),
    lambda L: L.arange(3000).reshape(100, 30),
    lambda L: L.arange(30.0) / 7,
    lambda L: L.tensor([[1e-8, 2.0], [3.0, 4.0]]),
    lambda L: L.tensor([-1.0, 2.0]),
    lambda L: L.tensor([123456789.0]),
]


@pytest.mark.parametrize("case", range(len(REPR_CASES)))
def test_repr_matches_torch(case):
    fn = REPR_CASES[case]
    assert repr(fn(ember)) == repr(fn(torch)).replace("torch.", "ember.")


def test_str_and_format():
    assert str(ember.tensor([1.0, 2.0])) == str(torch.tensor([1.0, 2.0]))
    assert f"{ember.tensor(2.5):.2f}" == f"{torch.tensor(2.5):.2f}"


@pytest.mark.parametrize("convert", [int, float])
@pytest.mark.parametrize("shape", [(0,), (2, 3)])
def test_python_scalars_of_several_elements_raise_value_error_as_torch(convert, shape):
    for lib in (torch, ember):
        with pytest.raises(ValueError, match="only one element tensors can be converted to "
                                             "Python scalars"):
            convert(lib.ones(shape))
    assert convert(ember.ones(1, 1) * 3) == convert(torch.ones(1, 1) * 3)


@pytest.mark.parametrize("make", [
    lambda m: m.Size([2, 3]) + m.Size([4]), lambda m: m.Size([2, 3]) + (4,),
    lambda m: (1,) + m.Size([2, 3]), lambda m: m.Size([2, 3]) * 2, lambda m: 2 * m.Size([2]),
    lambda m: m.Size([2, 3, 4])[1:], lambda m: m.zeros(2, 3).shape[:-1] + m.Size([])])
def test_size_arithmetic_and_slices_stay_sizes_as_torch(make):
    e, t = make(ember), make(torch)
    assert type(e) is ember.Size and tuple(e) == tuple(t)
    assert isinstance(ember.Size([2, 3])[0], int)


def test_size_plus_a_non_tuple_raises_as_torch():
    with pytest.raises(TypeError) as e_info:
        ember.Size([2]) + [1]
    with pytest.raises(TypeError) as t_info:
        torch.Size([2]) + [1]
    assert str(e_info.value) == str(t_info.value)


def test_scalar_of_a_tensor_requiring_grad_warns_once_as_torch():
    """float()/complex() of a tensor that requires grad: torch 2.13's warn-once UserWarning
    (int(), item(), bool() do not warn); complex() of a complex tensor is its value."""
    import warnings

    import torch
    for lib in (ember, torch):
        lib.set_warn_always(True)
        try:
            x = lib.ones(1, requires_grad=True) * 2
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                assert float(x) == 2.0 and complex(x) == 2
                int(x), x.item(), bool(x), float(x.detach())
                with lib.no_grad():  # (torch warns only with grad mode on: LBFGS's steps)
                    float(x)
            assert [str(w.message).splitlines()[0] for w in caught] == [
                "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                "behavior."] * 2
        finally:
            lib.set_warn_always(False)
        assert complex(lib.tensor(1 + 2j)) == 1 + 2j


def test_strides_of_empty_tensors_are_torchs_contiguous_ones():
    """NumPy gives an empty array zero strides; torch a contiguous tensor's, a size 0 counting
    as 1 (stack/cat/zeros of empty shapes)."""
    import torch
    for make in (lambda L: L.stack([L.zeros(0, 3), L.zeros(0, 3)]), lambda L: L.zeros(2, 0, 3),
                 lambda L: L.cat([L.zeros(0, 3), L.zeros(0, 3)]), lambda L: L.zeros(0),
                 lambda L: L.zeros(4, 0, 1)):
        assert make(ember).stride() == make(torch).stride()


@pytest.mark.parametrize("call", [
    lambda L: L.tensor([1., 2.]) + [1, 1], lambda L: [1, 1] + L.tensor([1., 2.]),
    lambda L: L.tensor([[1., 2.]]) @ [[1.], [2.]], lambda L: L.tensor([2., 3.]) ** [1, 2],
    lambda L: L.tensor([2., 3.]) * None, lambda L: L.tensor([2., 3.]) - "a",
    lambda L: L.tensor([2., 3.]) // (1, 2), lambda L: bool(L.tensor([])),
    lambda L: np.asarray(L.ones(2, requires_grad=True))])
def test_operators_with_foreign_operands_raise_torchs_errors(call):
    # ember's operators raised 'unsupported operand type: list' themselves; torch's return
    # NotImplemented, so Python words the error (and a list's concatenation message first)
    same_error(call)
