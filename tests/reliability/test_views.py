"""Basic indexing gives views, as torch: writes through them reach the base (0-d results too),
they share its version counter and ``_base``, and autograd through in-place writes on them is
torch's (CopySlices on the base, the view re-read from it)."""
import numpy as np
import pytest
import torch

import ember

BASIC = [0, -1, (0, 1), (1, -2), slice(1, 3), (slice(None), 1), (Ellipsis, 0), None, (0, None),
         Ellipsis, (None, 1, Ellipsis), (slice(0, 2), None, 0), (0, slice(None, None, 2)),
         (1, 2, 3), (Ellipsis, None), (slice(None),), (1, Ellipsis, 2), (slice(None), Ellipsis),
         (slice(None), slice(None)), slice(None), (slice(0, 5),), (slice(0, 2), slice(0, 3)),
         (0, slice(0, 3)), (slice(0, 3, 1), 0), (slice(0, 2, 2),), (Ellipsis, 1, slice(None)),
         (None, Ellipsis, None), (), "tensor0d"]


def _index(L, item):
    return L.tensor(1) if isinstance(item, str) else item


def _write_through(L, item):
    x = L.arange(24.).reshape(2, 3, 4)
    v = x[_index(L, item)]
    version = x._version
    v.add_(100)
    return x.numpy().copy(), v._base is x._base, x._version - version, v._is_view()


@pytest.mark.parametrize("item", BASIC, ids=repr)
def test_basic_index_is_a_view(item):
    got, want = _write_through(ember, item), _write_through(torch, item)
    np.testing.assert_array_equal(got[0], want[0])
    assert got[1:] == want[1:]


def _inplace_grad(L, item):
    x = L.arange(24.).reshape(2, 3, 4).requires_grad_()
    y = x * 1
    v = y[_index(L, item)]
    name = type(v.grad_fn).__name__
    v.mul_(3)
    (y * L.arange(24.).reshape(2, 3, 4)).sum().backward()
    return name, type(y.grad_fn).__name__, x.grad.numpy()


@pytest.mark.parametrize("item", BASIC, ids=repr)
def test_inplace_through_a_view_of_a_non_leaf(item):
    got, want = _inplace_grad(ember, item), _inplace_grad(torch, item)
    assert got[:2] == want[:2]
    np.testing.assert_array_equal(got[2], want[2])


def _init_code(L):
    """The initialisation idioms that silently did nothing."""
    x = L.zeros(3)
    x[0].add_(1)
    y = L.zeros(2, 3)
    y[0][1].add_(9)
    z = L.zeros(3)
    z[-1].fill_(3)
    w = L.ones(4, 2)
    for i in range(0, 4, 2):
        w[i].zero_()
    emb = L.nn.Embedding(5, 3, padding_idx=None)
    with L.no_grad():
        emb.weight[2].fill_(0)
    return [t.detach().numpy().copy() for t in (x, y, z, w, emb.weight[2])]


def test_initialisation_idioms_write_through():
    for got, want in zip(_init_code(ember), _init_code(torch)):
        np.testing.assert_array_equal(got, want)


def _chains(L):
    """Views of views (transpose, view, select, unsqueeze) written in place, then backward."""
    x = L.arange(12.).reshape(3, 4).requires_grad_()
    y = x * 2
    y.t()[1:3, 0].mul_(2)
    y.view(4, 3)[1].add_(L.arange(3.))
    y.unsqueeze(0)[0, :, 2].mul_(y[:, 1].clone())
    (y * y).sum().backward()
    return y.detach().numpy(), x.grad.numpy(), type(y.grad_fn).__name__


def test_view_chains_under_autograd():
    got, want = _chains(ember), _chains(torch)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-6)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)
    assert got[2] == want[2]


def _view_of_leaf(L, write):
    x = L.ones(3, requires_grad=True)
    try:
        write(x)
    except RuntimeError as error:
        return str(error)
    return None


@pytest.mark.parametrize("write", [
    lambda x: x[0].mul_(2), lambda x: x[1:].add_(1), lambda x: x.view(3).zero_(),
    lambda x: x[0].fill_(2), lambda x: x.t().relu_(), lambda x: x.unsqueeze(0)[0].copy_(x),
])
def test_inplace_on_a_view_of_a_leaf_raises(write):
    got, want = _view_of_leaf(ember, write), _view_of_leaf(torch, write)
    assert want is not None and got == want


def test_view_of_a_leaf_may_be_written_under_no_grad():
    x = ember.ones(3, requires_grad=True)
    with ember.no_grad():
        x[0].mul_(2)
    assert x.tolist() == [2.0, 1.0, 1.0] and x.requires_grad and x.is_leaf


def test_view_of_a_flipped_tensor():
    for L in (ember, torch):
        x = L.arange(6.).reshape(2, 3)
        f = x.flip(0)
        assert f.view(6).tolist() == [3.0, 4.0, 5.0, 0.0, 1.0, 2.0]
        f.add_(1)  # flip copies: the input is untouched
        assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
