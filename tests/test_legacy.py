"""Legacy API (ember/_legacy.py, autograd.Variable, Tensor.type) against torch 2.13."""
import pytest
import torch
from oracle import same_error

import ember

NAMES = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
         "CharTensor", "ByteTensor", "BoolTensor"]


@pytest.mark.parametrize("name", NAMES)
def test_typed_constructors_build_as_torch(name):
    e_cls, t_cls = getattr(ember, name), getattr(torch, name)
    for data in ([1, 0, 3], [[1.0, 2.0]], [True, False]):
        e, t = e_cls(data), t_cls(data)
        assert e.tolist() == t.tolist() and str(e.dtype)[6:] == str(t.dtype)[6:]
    for size in [(2, 3), (4,), ()]:
        assert tuple(e_cls(*size).shape) == tuple(t_cls(*size).shape) or size == ()
    assert tuple(e_cls().shape) == tuple(t_cls().shape) == (0,)
    assert tuple(e_cls(ember.Size([2, 5])).shape) == (2, 5)


@pytest.mark.parametrize("name", NAMES)
def test_typed_isinstance_checks_the_dtype(name):
    for dtype in ("float32", "int64", "bool", "float64"):
        e = ember.zeros(2, dtype=getattr(ember, dtype))
        t = torch.zeros(2, dtype=getattr(torch, dtype))
        assert isinstance(e, getattr(ember, name)) == isinstance(t, getattr(torch, name))


def test_typed_constructor_from_a_tensor():
    assert ember.LongTensor(ember.tensor([1, 2])).tolist() == [1, 2]
    with pytest.raises(TypeError):
        torch.LongTensor(torch.zeros(2))
    with pytest.raises(TypeError, match="dtype=long int"):
        ember.LongTensor(ember.zeros(2))


def test_type_casts_to_legacy_types_and_names():
    x = ember.tensor([1.5, 2.5])
    assert x.type(ember.LongTensor).dtype == ember.int64
    assert x.type("torch.LongTensor").dtype == ember.int64
    assert x.type("ember.DoubleTensor").dtype == ember.float64
    assert x.type() == "ember.FloatTensor"


def test_variable_returns_a_tensor_honouring_requires_grad():
    from ember.autograd import Variable
    t = ember.ones(2)
    v = Variable(t, requires_grad=True)
    tv = torch.autograd.Variable(torch.ones(2), requires_grad=True)
    assert type(v) is ember.Tensor and v.requires_grad == tv.requires_grad and v.is_leaf
    assert v is not t and not t.requires_grad
    assert isinstance(t, Variable) and isinstance(torch.ones(1), torch.autograd.Variable)
    assert Variable(t).requires_grad is False
    (v * 3).sum().backward()
    assert v.grad.tolist() == [3.0, 3.0]
    with pytest.warns(UserWarning, match="volatile"):
        Variable(t, volatile=True)


def test_set_default_tensor_type_as_torch():
    try:
        for lib in (torch, ember):
            with pytest.warns(UserWarning, match="set_default_tensor_type\\(\\) is deprecated"):
                lib.set_default_tensor_type(lib.DoubleTensor)
            assert lib.ones(1).dtype == lib.float64 and lib.get_default_dtype() == lib.float64
            lib.set_default_tensor_type("torch.FloatTensor")
            assert lib.tensor([1.0]).dtype == lib.float32
    finally:
        torch.set_default_dtype(torch.float32)
        ember.set_default_dtype(ember.float32)


@pytest.mark.parametrize("bad", ["Tensor", 5, "torch.Bogus", "torch.cuda.FloatTensor",
                                 "LongTensor", "torch.LongTensor"])
def test_set_default_tensor_type_errors_as_torch(bad):
    def call(lib):
        arg = getattr(lib, bad) if bad in ("Tensor", "LongTensor") else bad
        lib.set_default_tensor_type(arg)
    same_error(call)
    assert ember.get_default_dtype() == ember.float32
