"""Functional losses: values, input and target gradients, second derivatives
and grad_fn names against torch over shapes, reductions and options; torch's errors."""
import warnings

import numpy as np
import pytest
import torch
from loss_inputs import REDUCTIONS, rng
from loss_inputs import classes as _classes
from loss_inputs import normal as _x
from loss_inputs import probs as _probs
from oracle import check, same_error

import ember


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name,kwargs", [
    ("mse_loss", {}), ("l1_loss", {}), ("smooth_l1_loss", {}), ("smooth_l1_loss", {"beta": 0.3}),
    ("smooth_l1_loss", {"beta": 0.0}), ("huber_loss", {}), ("huber_loss", {"delta": 0.4}),
])
@pytest.mark.parametrize("shape", [(5,), (4, 3), (2, 3, 4)], ids=str)
def test_regression_losses(name, kwargs, reduction, shape):
    fn = lambda lib, x, y: getattr(lib.nn.functional, name)(x, y, reduction=reduction, **kwargs)
    check(fn, _x(*shape), _x(*shape), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("options", [{}, {"weight": True}, {"ignore_index": 1},
                                     {"label_smoothing": 0.2},
                                     {"weight": True, "ignore_index": 0, "label_smoothing": 0.1}],
                         ids=str)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 2, 2), (3,)], ids=str)
def test_cross_entropy_class_indices(options, reduction, shape):
    c = shape[1] if len(shape) > 1 else shape[0]
    target = _classes(shape[0], c, *shape[2:]) if len(shape) > 1 else np.array(1)
    if "ignore_index" in options and target.ndim:
        target.reshape(-1)[::2] = options["ignore_index"]
    weight = rng.uniform(0.5, 2.0, c) if options.get("weight") else None
    kw = {k: v for k, v in options.items() if k != "weight"}

    def fn(lib, x):
        w = lib.tensor(weight) if weight is not None else None
        return lib.nn.functional.cross_entropy(x, lib.tensor(target), weight=w,
                                               reduction=reduction, **kw)
    check(fn, _x(*shape), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("options", [{}, {"weight": True}, {"label_smoothing": 0.3}], ids=str)
@pytest.mark.parametrize("shape", [(4, 3), (5,), (2, 3, 4)], ids=str)
def test_cross_entropy_class_probabilities(options, reduction, shape):
    c = shape[1] if len(shape) > 1 else shape[0]
    weight = rng.uniform(0.5, 2.0, c) if options.get("weight") else None
    kw = {k: v for k, v in options.items() if k != "weight"}
    probs = rng.dirichlet(np.ones(c), size=int(np.prod(shape)) // c)
    probs = np.moveaxis(probs.reshape((shape[0],) + tuple(shape[2:]) + (c,)), -1, 1) \
        if len(shape) > 1 else probs.reshape(c)

    def fn(lib, x, y):
        w = lib.tensor(weight) if weight is not None else None
        return lib.nn.functional.cross_entropy(x, y, weight=w, reduction=reduction, **kw)
    check(fn, _x(*shape), probs, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("options", [{}, {"weight": True}, {"ignore_index": 2}], ids=str)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 2, 2), (3,)], ids=str)
def test_nll_loss(options, reduction, shape):
    c = shape[1] if len(shape) > 1 else shape[0]
    target = _classes(shape[0], c, *shape[2:]) if len(shape) > 1 else np.array(2)
    weight = rng.uniform(0.5, 2.0, c) if options.get("weight") else None
    kw = {k: v for k, v in options.items() if k != "weight"}

    def fn(lib, x):
        w = lib.tensor(weight) if weight is not None else None
        return lib.nn.functional.nll_loss(x, lib.tensor(target), weight=w, reduction=reduction,
                                          **kw)
    check(fn, _x(*shape), rtol=1e-10, atol=1e-12)


def test_nll_loss_all_ignored_is_nan_like_torch():
    x = _x(3, 4)
    e = ember.nn.functional.nll_loss(ember.tensor(x), ember.tensor([-100, -100, -100]))
    t = torch.nn.functional.nll_loss(torch.tensor(x), torch.tensor([-100, -100, -100]))
    assert np.isnan(e.item()) and np.isnan(t.item())


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", [(6,), (4, 3)], ids=str)
def test_binary_cross_entropy(weighted, reduction, shape):
    weight = rng.uniform(0.5, 2.0, shape) if weighted else None

    def fn(lib, x, y):
        w = lib.tensor(weight) if weight is not None else None
        return lib.nn.functional.binary_cross_entropy(x, y, weight=w, reduction=reduction)
    check(fn, _probs(*shape), _probs(*shape), rtol=1e-9, atol=1e-12, second=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("options", [{}, {"weight": True}, {"pos_weight": True},
                                     {"weight": True, "pos_weight": True}], ids=str)
@pytest.mark.parametrize("shape", [(6,), (4, 3)], ids=str)
def test_bce_with_logits(options, reduction, shape):
    weight = rng.uniform(0.5, 2.0, shape) if options.get("weight") else None
    pos = rng.uniform(0.5, 3.0, shape[-1:]) if options.get("pos_weight") else None

    def fn(lib, x, y):
        return lib.nn.functional.binary_cross_entropy_with_logits(
            x, y, weight=lib.tensor(weight) if weight is not None else None,
            pos_weight=lib.tensor(pos) if pos is not None else None, reduction=reduction)
    check(fn, _x(*shape) * 3, _probs(*shape), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS + ["batchmean"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    target = _probs(4, 3)
    if log_target:
        target = np.log(_probs(4, 3))
    fn = lambda lib, x, y: lib.nn.functional.kl_div(x, y, reduction=reduction,
                                                    log_target=log_target)
    with pytest.warns(UserWarning) if reduction == "mean" else _nothing():
        check(fn, np.log(_probs(4, 3)), target, rtol=1e-10, atol=1e-12)


def test_kl_div_zero_target_contributes_zero():
    target = _probs(4, 3)
    target[0, 0] = 0.0  # t log t is 0 at t = 0
    x = np.log(_probs(4, 3))
    e = ember.nn.functional.kl_div(ember.tensor(x), ember.tensor(target), reduction="sum")
    t = torch.nn.functional.kl_div(torch.tensor(x), torch.tensor(target), reduction="sum")
    np.testing.assert_allclose(e.item(), t.item(), rtol=1e-12)


def test_kl_div_target_gradient_at_a_zero_target_is_torchs_nan():
    """torch composes t log t as xlogy(t, t): its gradient t / t is NaN at t = 0."""
    grads = []
    for lib in (torch, ember):
        x = lib.tensor([[-1.0, -2.0, -0.5]], requires_grad=True)
        t = lib.tensor([[0.0, 0.3, 0.7]], requires_grad=True)
        loss = lib.nn.functional.kl_div(x, t, reduction="sum")
        grads.append([g.numpy() for g in lib.autograd.grad(loss, (x, t))])
    for e, t in zip(grads[1], grads[0]):
        np.testing.assert_array_equal(e, t)


class _nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.3])
def test_cosine_embedding_loss(reduction, margin):
    y = np.array([1, -1, 1, -1, -1])

    def fn(lib, a, b):
        return lib.nn.functional.cosine_embedding_loss(a, b, lib.tensor(y), margin=margin,
                                                       reduction=reduction)
    check(fn, _x(5, 4), _x(5, 4), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("margin", [0.0, 0.5])
def test_margin_ranking_loss(reduction, margin):
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])

    def fn(lib, a, b):
        return lib.nn.functional.margin_ranking_loss(a, b, lib.tensor(y), margin=margin,
                                                     reduction=reduction)
    check(fn, _x(6), _x(6), rtol=1e-10, atol=1e-12)


def _error(fn):
    """(type, message) raised by fn(lib) for both libraries, torch's wording with ember's name."""
    out = []
    for lib in (ember, torch):
        with pytest.raises(Exception) as info:
            fn(lib)
        out.append((info.type, str(info.value).replace("torch", "ember")))
    return out


@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.functional.nll_loss(lib.zeros(4, 3), lib.tensor([0, 1, 5, 2])),
    lambda lib: lib.nn.functional.nll_loss(lib.zeros(4, 3), lib.tensor([0, 1, -3, 2])),
    lambda lib: lib.nn.functional.cross_entropy(lib.zeros(4, 3), lib.tensor([0, 1, 2])),
    lambda lib: lib.nn.functional.cross_entropy(lib.zeros(4, 3), lib.tensor([0., 1, 2, 1])),
    lambda lib: lib.nn.functional.cross_entropy(lib.zeros(4, 3),
                                                lib.tensor([0, 1, 2, 1], dtype=lib.int32)),
    lambda lib: lib.nn.functional.cross_entropy(lib.zeros(4, 3), lib.tensor([0, 1, 2, 1]),
                                                weight=lib.ones(2)),
    lambda lib: lib.nn.functional.cross_entropy(lib.zeros(4, 3), lib.tensor([0, 1, 2, 1]),
                                                label_smoothing=1.5),
    lambda lib: lib.nn.functional.mse_loss(lib.zeros(4, 3), lib.zeros(4, 3), reduction="avg"),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.zeros(4, 3) + 2, lib.zeros(4, 3)),
    lambda lib: lib.nn.functional.binary_cross_entropy(lib.zeros(4, 3), lib.zeros(4)),
    lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(lib.zeros(4, 3),
                                                                   lib.zeros(4)),
])
def test_errors_match_torch(case):
    ember_error, torch_error = _error(case)
    assert ember_error == torch_error


def test_broadcast_warning_matches_torch():
    for lib in (ember, torch):
        with pytest.warns(UserWarning, match=r"Using a target size \(\w+.Size\(\[4, 1\]\)\) that "
                          r"is different to the input size \(\w+.Size\(\[4, 3\]\)\)"):
            lib.nn.functional.mse_loss(lib.zeros(4, 3), lib.zeros(4, 1))


def test_fused_cross_entropy_float32_matches_torch():
    x = _x(128, 10).astype(np.float32)
    t = _classes(128, 10)
    check(lambda lib, a: lib.nn.functional.cross_entropy(a, lib.tensor(t)), x, rtol=1e-5,
          atol=1e-7)


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "huber_loss"])
def test_weighted_regression_losses_match_torch(name, reduction):
    weight = rng.uniform(0.1, 2.0, (4, 3))

    def fn(lib, x, y):
        return getattr(lib.nn.functional, name)(x, y, reduction=reduction,
                                                weight=lib.tensor(weight)) + 0
    check(fn, _x(4, 3), _x(4, 3), rtol=1e-10, atol=1e-12)
    with pytest.raises(ValueError, match="Weights and input must have the same size."):
        getattr(ember.nn.functional, name)(ember.zeros(4, 3), ember.zeros(4, 3),
                                           weight=ember.ones(3))


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss", "smooth_l1_loss",
                                  "binary_cross_entropy_with_logits"])
@pytest.mark.parametrize("target_dtype", ["float64", "int64"])
def test_mixed_dtype_targets_promote_like_torch(name, target_dtype):
    if name == "binary_cross_entropy_with_logits" and target_dtype == "int64":
        return  # torch refuses integer targets there
    x = _x(5).astype(np.float32)
    y = (np.abs(_x(5)) * 2).astype(target_dtype)
    e = getattr(ember.nn.functional, name)(ember.tensor(x, requires_grad=True), ember.tensor(y))
    t = getattr(torch.nn.functional, name)(torch.tensor(x, requires_grad=True), torch.tensor(y))
    assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1]
    np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-6)


def test_bce_dtype_mismatch_error_matches_torch():
    for lib in (ember, torch):
        with pytest.raises(RuntimeError, match="Found dtype Double but expected Float"):
            lib.nn.functional.binary_cross_entropy(lib.full((3,), 0.5),
                                                   lib.full((3,), 0.5, dtype=lib.float64))


_INTEGRAL_LOSSES = {
    "mse": lambda F, x: F.mse_loss(x, x), "smooth_l1": lambda F, x: F.smooth_l1_loss(x, x),
    "huber": lambda F, x: F.huber_loss(x, x), "bce": lambda F, x: F.binary_cross_entropy(x, x),
    "bce_logits": lambda F, x: F.binary_cross_entropy_with_logits(x, x),
    "cross_entropy": lambda F, x: F.cross_entropy(x.reshape(1, -1), x.new_zeros(1).long()),
    "nll": lambda F, x: F.nll_loss(x.reshape(1, -1), x.new_zeros(1).long()),
    "kl_div": lambda F, x: F.kl_div(x, x, reduction="sum")}


@pytest.mark.parametrize("dtype", ["int64", "bool", "uint8"])
@pytest.mark.parametrize("name", sorted(_INTEGRAL_LOSSES))
def test_integer_and_bool_inputs_raise_torchs_error(name, dtype):
    # NumPy would compute these (an integer mse) or fail with its own error types
    errors = []
    for lib in (ember, torch):
        x = lib.tensor([1, 0], dtype=getattr(lib, dtype))
        with pytest.raises(Exception) as info:
            _INTEGRAL_LOSSES[name](lib.nn.functional, x)
        errors.append((type(info.value).__name__, str(info.value)))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("name", ["mse_loss", "smooth_l1_loss", "huber_loss"])
def test_integer_input_with_float_target_as_torch(name):
    # mse and smooth_l1 promote to float; huber keeps the input's dtype, which cannot hold it
    outcomes = []
    for lib in (ember, torch):
        try:
            out = getattr(lib.nn.functional, name)(lib.tensor([1, 2]), lib.tensor([1.0, 3.5]))
            outcomes.append((str(out.dtype)[6:], round(out.item(), 6)))
        except RuntimeError as error:
            outcomes.append(str(error))
    assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("name", ["mse_loss", "smooth_l1_loss", "huber_loss", "l1_loss",
                                  "binary_cross_entropy", "binary_cross_entropy_with_logits"])
def test_mean_of_an_empty_loss_is_nan_without_a_warning(name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = getattr(ember.nn.functional, name)(ember.zeros(0, 3), ember.zeros(0, 3))
    assert out.dtype == ember.float32 and out.item() != out.item()


@pytest.mark.parametrize("target", [[0, 1, 1], [False, True, True]])
def test_bce_with_logits_refuses_integer_and_bool_targets(target):
    # torch writes the loss into an integer target's dtype (fails) and computes 1 - target
    # (fails for bool); ember computed a loss silently
    same_error(lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(
        lib.zeros(3), lib.tensor(target)))


def test_mse_loss_shapes_that_do_not_broadcast_raise_torchs_error():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda lib: lib.nn.functional.mse_loss(lib.zeros(3), lib.zeros(4)))


@pytest.mark.parametrize("call", [
    lambda L: L.nn.functional.margin_ranking_loss(L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0]), L.tensor([1 + 1j, 2 + 0j])),
    lambda L: L.nn.functional.margin_ranking_loss(L.tensor([1 + 1j, 2 + 0j]), L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0]))])
def test_margin_ranking_loss_refuses_complex_as_torch(call):
    """(a complex loss was computed)"""
    from oracle import same_error
    same_error(call)


@pytest.mark.parametrize("target", [lambda L: L.tensor(2), lambda L: L.zeros(1, 1, dtype=L.long),
                                    lambda L: L.zeros(2, 1, dtype=L.long)])
@pytest.mark.parametrize("loss", ["cross_entropy", "nll_loss"])
def test_class_target_shape_errors_in_torchs_order(loss, target):
    """A 0-d target for a (1, C) input: torch's batch-size ValueError (hunkim's seq2seq); a
    (1, 1) target: the multi-target RuntimeError."""
    from oracle import same_error
    same_error(lambda L: getattr(L.nn.functional, loss)(L.zeros(1, 5), target(L)))


@pytest.mark.parametrize("smoothing", [2.0, 1.25, 1.0000001])
def test_label_smoothing_out_of_range_message(smoothing):
    same_error(lambda L: L.nn.functional.cross_entropy(L.ones(2, 3), L.tensor([0, 1]),
                                                        label_smoothing=smoothing))


def test_negative_label_smoothing_computes_as_torch():
    # torch checks only the upper bound; ember refused a negative smoothing
    x = np.random.default_rng(0).standard_normal((4, 5))
    check(lambda L, a: L.nn.functional.cross_entropy(a, L.tensor([0, 1, 4, 2]),
                                                     label_smoothing=-0.3), x)
