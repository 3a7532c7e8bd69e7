"""torch.as_strided / Tensor.as_strided / as_strided_ (ember/ops/as_strided.py) against torch:
views into the base's memory with sizes, strides and a storage offset, gradients, writes and
errors."""
import pytest
import torch

import ember

GEOMETRIES = [((2, 2), (1, 1)), ((2, 3), (1, 2), 1), ((3, 2), (0, 1)), ((2, 2, 2), (4, 1, 2)),
              ((2, 2), (2, 1), 0), ((3,), (4,), 3), ((4,), (1,))]


def _view(lib, args):
    return lib.arange(12.0)[2:].view(2, 5).as_strided(*args)


@pytest.mark.parametrize("args", GEOMETRIES, ids=str)
def test_as_strided_views_the_base_memory_as_torch(args):
    """Strides and the offset count the base's elements; no offset keeps the input's."""
    got = []
    for lib in (torch, ember):
        base = lib.arange(12.0)
        view = lib.as_strided(base[2:].view(2, 5), *args)
        got.append((view.tolist(), tuple(view.shape), view.stride(), view.storage_offset()))
        base[3] = 100.0  # a view: it sees the write
        got[-1] += (view.tolist(),)
    assert got[1] == got[0]


@pytest.mark.parametrize("args", GEOMETRIES, ids=str)
def test_as_strided_gradient_as_torch(args):
    """The gradient sums what each storage element received, read at the input's elements."""
    got = []
    for lib in (torch, ember):
        a = lib.arange(12.0, requires_grad=True)
        view = (a * 1)[2:].view(2, 5).as_strided(*args)
        weight = lib.arange(float(view.numel())).reshape(tuple(view.shape)) + 1
        (view * weight).sum().backward()
        got.append((a.grad.tolist(), type(view.grad_fn).__name__))
    assert got[1] == got[0]


@pytest.mark.parametrize("args", [((3, 3), (1, 1, 1)), ((3, -1), (1, 1)), ((3, 3), (-1, 1)),
                                  ((5, 3), (3, 1)), ((3, 3), (3, 1), 4), ((2,), (1,), -1)],
                         ids=str)
def test_as_strided_errors_as_torch(args):
    from oracle import same_error
    same_error(lambda lib: lib.arange(12.0).as_strided(*args))


def test_writes_through_as_strided_views_as_torch():
    """A non-overlapping view writes into the base; an overlapping one takes fill_ (the same
    value everywhere) and refuses arithmetic (torch's sequential order is not reproduced)."""
    got = []
    for lib in (torch, ember):
        z = lib.zeros(6)
        w = z.as_strided((2, 2), (1, 2))
        w.add_(1)
        w[0, 0] = 5
        lib.zeros(6).as_strided((2, 2), (1, 1)).fill_(3)
        overlapping = lib.zeros(6)
        overlapping.as_strided((2, 2), (1, 1)).fill_(3)
        got.append((z.tolist(), w._version, overlapping.tolist()))
    assert got[1] == got[0]
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        ember.zeros(6).as_strided((2, 2), (1, 1)).add_(1)


def test_as_strided_in_place_reviews_the_tensor():
    got = []
    for lib in (torch, ember):
        z = lib.arange(6.0)
        out = z.as_strided_((2, 2), (2, 1), 1)
        got.append((out is z, z.tolist(), z.stride()))
    assert got[1] == got[0]
