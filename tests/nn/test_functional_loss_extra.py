"""The extra functional losses (soft margin, hinge, Poisson/Gaussian NLL, triplet, multi-label and
multi-margin): values and gradients against torch over reductions."""
import numpy as np
import pytest
import torch
from loss_inputs import REDUCTIONS, rng
from loss_inputs import normal as _x
from oracle import check, same_error

import ember

# composite in ember, single nodes in torch: compared through a trailing "+ 0" (same node name)
EXTRA = [
    ("soft_margin_loss", lambda lib, x, y, r: lib.nn.functional.soft_margin_loss(
        x, lib.sign(y), reduction=r)),
    ("hinge_embedding_loss", lambda lib, x, y, r: lib.nn.functional.hinge_embedding_loss(
        x, lib.sign(y), margin=0.7, reduction=r)),
    ("poisson_nll_log", lambda lib, x, y, r: lib.nn.functional.poisson_nll_loss(
        x, y.abs() * 3, reduction=r)),
    ("poisson_nll_full", lambda lib, x, y, r: lib.nn.functional.poisson_nll_loss(
        x.abs() + 0.1, y.abs() * 3, log_input=False, full=True, reduction=r)),
    ("gaussian_nll", lambda lib, x, y, r: lib.nn.functional.gaussian_nll_loss(
        x, y, (y * x).abs() + 0.05, reduction=r)),
    ("gaussian_nll_full", lambda lib, x, y, r: lib.nn.functional.gaussian_nll_loss(
        x, y, (y[:, :1]).abs(), full=True, reduction=r)),
    ("triplet", lambda lib, x, y, r: lib.nn.functional.triplet_margin_loss(
        x, y, x * 0.5 - y, reduction=r)),
    ("triplet_swap", lambda lib, x, y, r: lib.nn.functional.triplet_margin_loss(
        x, y, x * 0.5 - y, margin=2.0, p=1, swap=True, reduction=r)),
    ("multilabel_soft_margin", lambda lib, x, y, r: lib.nn.functional.multilabel_soft_margin_loss(
        x, (y > 0).to(x.dtype), reduction=r)),
]


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,fn", EXTRA, ids=[e[0] for e in EXTRA])
def test_extra_losses_match_torch(name, fn, reduction):
    target_grad = name != "soft_margin_loss"  # torch: not differentiable in its target
    check(lambda lib, x, y: fn(lib, x, y, reduction) + 0, _x(4, 3), _x(4, 3), rtol=1e-9,
          atol=1e-12, second=False, grad_inputs=[True, target_grad])


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("options", [{}, {"p": 2, "margin": 0.5}, {"weight": True}], ids=str)
def test_multi_margin_loss_matches_torch(options, reduction):
    target = np.array([0, 2, 1, 2])
    weight = rng.uniform(0.5, 2.0, 3) if options.get("weight") else None
    kw = {k: v for k, v in options.items() if k != "weight"}

    def fn(lib, x):
        w = lib.tensor(weight) if weight is not None else None
        return lib.nn.functional.multi_margin_loss(x, lib.tensor(target), weight=w,
                                                   reduction=reduction, **kw) + 0
    check(fn, _x(4, 3), rtol=1e-10, atol=1e-12, second=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_multilabel_margin_loss_matches_torch(reduction):
    target = np.array([[3, 0, -1, 1], [1, 2, 3, 0], [2, -1, 0, 0]])

    def fn(lib, x):
        return lib.nn.functional.multilabel_margin_loss(x, lib.tensor(target),
                                                        reduction=reduction) + 0
    check(fn, _x(3, 4), rtol=1e-10, atol=1e-12, second=False)
    e = ember.nn.MultiLabelMarginLoss()(ember.tensor(_x(4)), ember.tensor([1, -1, 0, 0]))
    assert e.ndim == 0


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_with_distance_loss(reduction, swap):
    a, p, n = _x(4, 3), _x(4, 3), _x(4, 3)

    def l1(x, y):
        return (x - y).abs().sum(-1)
    for distance in (None, l1):
        check(lambda lib, a, p, n: lib.nn.functional.triplet_margin_with_distance_loss(
            a, p, n, distance_function=distance, margin=0.7, swap=swap, reduction=reduction),
            a, p, n, same_grad_fn=False)


@pytest.mark.parametrize("kwargs,shapes", [(dict(margin=0.0), [(2, 3)] * 3),
                                           (dict(reduction="bad"), [(2, 3)] * 3),
                                           ({}, [(2, 3), (2, 3), (3,)])])
def test_triplet_margin_with_distance_loss_errors(kwargs, shapes):
    same_error(lambda lib: lib.nn.functional.triplet_margin_with_distance_loss(
        *[lib.ones(*s) for s in shapes], **kwargs))


@pytest.mark.parametrize("var", [1.5, (3,), (1, 1), (4, 3, 1), (4, 2), (4,), (4, 1), (4, 3)])
def test_gaussian_nll_loss_var_shapes_and_a_float_var_as_torch(var):
    # ember broadcast a (1, 1) var silently and failed on a float var (AttributeError)
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((2, 4, 3)).astype(np.float32)
    v = var if isinstance(var, float) else rng.random(var).astype(np.float32) + 0.1

    def call(lib):
        return lib.nn.functional.gaussian_nll_loss(
            lib.tensor(x), lib.tensor(y), v if isinstance(v, float) else lib.tensor(v))
    try:
        expected = call(torch)
    except ValueError:
        same_error(call)
        return
    np.testing.assert_allclose(call(ember).item(), expected.item(), rtol=1e-6)


def test_hinge_embedding_loss_refuses_complex_input_as_torch():
    """(it computed a complex loss)"""
    same_error(lambda L: L.nn.functional.hinge_embedding_loss(L.tensor([1 + 1j, 2 + 0j]), L.tensor([1.0, -1.0])))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_multi_margin_per_sample_bits_as_torch(dtype):
    """margin - x[y] + x[i] in torch's kernel's order: each sample's loss bit for bit
    ((x - x[y]) + margin rounded otherwise)."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 5)).astype(dtype)
    t = rng.integers(0, 5, 16)
    e = ember.nn.functional.multi_margin_loss(ember.tensor(x), ember.tensor(t), reduction="none")
    w = torch.nn.functional.multi_margin_loss(torch.tensor(x), torch.tensor(t), reduction="none")
    np.testing.assert_array_equal(e.numpy(), w.numpy())
