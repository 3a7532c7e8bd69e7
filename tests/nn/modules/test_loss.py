"""Loss modules: repr, state_dict keys, values and derivatives against torch; the legacy
size_average/reduce flags."""
import numpy as np
import pytest
import torch
from loss_inputs import classes as _classes
from loss_inputs import normal as _x
from loss_inputs import probs as _probs
from oracle import check

import ember

MODULES = [
    ("MSELoss", {}, "reg"), ("L1Loss", {"reduction": "sum"}, "reg"),
    ("SmoothL1Loss", {"beta": 0.5}, "reg"), ("HuberLoss", {"delta": 2.0}, "reg"),
    ("CrossEntropyLoss", {"label_smoothing": 0.1}, "cls"),
    ("CrossEntropyLoss", {"weight": True}, "cls"), ("NLLLoss", {"ignore_index": 1}, "cls"),
    ("BCELoss", {}, "prob"), ("BCEWithLogitsLoss", {"pos_weight": True}, "prob"),
    ("KLDivLoss", {"reduction": "batchmean"}, "reg"),
]


@pytest.mark.parametrize("name,kwargs,kind", MODULES, ids=[m[0] for m in MODULES])
def test_loss_modules_match_torch(name, kwargs, kind):
    def make(lib):
        kw = dict(kwargs)
        for key in ("weight", "pos_weight"):
            if kw.get(key):
                kw[key] = lib.tensor([0.5, 1.0, 2.0], dtype=lib.float64)
        return getattr(lib.nn, name)(**kw)
    e_mod, t_mod = make(ember), make(torch)
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    x = _probs(4, 3) if kind == "prob" else _x(4, 3)
    y = {"reg": _x(4, 3), "cls": _classes(4, 3), "prob": _probs(4, 3)}[kind]
    check(lambda lib, a: (e_mod if lib is ember else t_mod)(a, lib.tensor(y)), x,
          rtol=1e-10, atol=1e-12, second=kind != "prob")


def test_legacy_size_average_and_reduce_flags():
    x, y = _x(4, 3), _x(4, 3)
    for flags in ({"size_average": False}, {"reduce": False}, {"size_average": True}):
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            e_mod, t_mod = ember.nn.MSELoss(**flags), torch.nn.MSELoss(**flags)
        e = e_mod(ember.tensor(x), ember.tensor(y))
        t = t_mod(torch.tensor(x), torch.tensor(y))
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-12)
        assert e_mod.reduction == t_mod.reduction


@pytest.mark.parametrize("name,kwargs,nargs", [
    ("SoftMarginLoss", {}, 2), ("HingeEmbeddingLoss", {"margin": 0.5}, 2),
    ("PoissonNLLLoss", {"full": True}, 2), ("GaussianNLLLoss", {"eps": 1e-3}, 3),
    ("TripletMarginLoss", {"margin": 0.3, "swap": True}, 3),
    ("MultiLabelSoftMarginLoss", {}, 2)])
def test_extra_loss_modules_match_torch(name, kwargs, nargs):
    e_mod, t_mod = getattr(ember.nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    assert repr(e_mod) == repr(t_mod)
    args = [np.abs(_x(4, 3)) + 0.1 for _ in range(nargs)]
    e = e_mod(*[ember.tensor(a) for a in args])
    t = t_mod(*[torch.tensor(a) for a in args])
    np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-10)


def test_triplet_margin_with_distance_loss_module():
    a, p, n = _x(4, 3), _x(4, 3), _x(4, 3)
    check(lambda lib, a, p, n: lib.nn.TripletMarginWithDistanceLoss(
        distance_function=lib.nn.PairwiseDistance(p=1.0), swap=True, margin=2.0,
        reduction="sum")(a, p, n), a, p, n, same_grad_fn=False)
    ours, theirs = ember.nn.TripletMarginWithDistanceLoss(), torch.nn.TripletMarginWithDistanceLoss()
    assert repr(ours) == repr(theirs)
    assert repr(ours.distance_function) == repr(theirs.distance_function)
    for lib in (ember, torch):
        with pytest.raises(ValueError, match="expected margin to be greater than 0, got -1"):
            lib.nn.TripletMarginWithDistanceLoss(margin=-1)
