"""torch.autograd.Variable (ember/autograd/variable.py): builds a new leaf sharing the tensor's
memory, every tensor is an instance, and `volatile` warns as torch does."""
import warnings

import torch

import ember


def _variable(lib, **kwargs):
    x = lib.tensor([1.0, 2.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        v = lib.autograd.Variable(x, **kwargs)
    return x, v, [(w.category, str(w.message)) for w in caught]


def test_variable_is_a_new_leaf_sharing_memory():
    for lib in (torch, ember):
        x, v, caught = _variable(lib, requires_grad=True)
        assert v is not x and v.requires_grad and v.is_leaf and not x.requires_grad
        assert type(v).__name__ == "Tensor" and caught == []
        v.data[0] = 5.0
        assert x[0].item() == 5.0


def test_every_tensor_is_a_variable():
    for lib in (torch, ember):
        assert isinstance(lib.zeros(1), lib.autograd.Variable)
        assert isinstance(lib.zeros(1, requires_grad=True) * 2, lib.autograd.Variable)
        assert not isinstance(3.0, lib.autograd.Variable)


def test_volatile_warns_as_torch():
    assert _variable(ember, volatile=True)[2] == _variable(torch, volatile=True)[2] != []
    _, v, _ = _variable(ember, volatile=True)
    assert not v.requires_grad
