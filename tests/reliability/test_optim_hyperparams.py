"""NaN (and negative) optimizer hyper-parameters are refused at construction with torch's
ValueError and message, before any state exists; every check lives in optim/_common.py."""
import pytest
import torch

import ember

NAN = float("nan")
CASES = [(name, key, value) for name, keys in {
    "Adam": ["lr", "eps", "weight_decay"], "AdamW": ["lr", "eps", "weight_decay"],
    "Adagrad": ["lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps"],
    "Adadelta": ["lr", "rho", "eps", "weight_decay"], "Adamax": ["lr", "eps", "weight_decay"],
    "NAdam": ["lr", "eps", "weight_decay", "momentum_decay"],
    "RAdam": ["lr", "eps", "weight_decay"], "LBFGS": ["lr"],
    "RMSprop": ["lr", "eps", "weight_decay", "momentum", "alpha"],
    "SGD": ["lr", "momentum", "weight_decay"],
}.items() for key in keys for value in (NAN, -1.0)]
CASES += [(name, "betas", betas) for name in ("Adam", "AdamW", "Adamax", "NAdam", "RAdam")
          for betas in ((NAN, 0.9), (0.9, NAN))]


def _build(L, name, key, value):
    p = L.zeros(2, requires_grad=True)
    kwargs = {key: value} if key == "lr" else {key: value, "lr": 0.1}
    try:
        getattr(L.optim, name)([p], **kwargs)
    except ValueError as error:
        return str(error)
    return None


@pytest.mark.parametrize("name,key,value", CASES)
def test_bad_hyper_parameter_is_refused(name, key, value):
    got = _build(ember, name, key, value)
    want = _build(torch, name, key, value)
    if want is None:  # torch's SGD takes NaN lr/momentum/weight_decay; ember refuses them too
        assert name == "SGD" and value != value
        assert got.endswith(": nan")
    else:
        assert got == want


def test_sgd_refuses_nan_dampening():
    with pytest.raises(ValueError, match="Invalid dampening value: nan"):
        ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=0.1, dampening=NAN)
    ember.optim.SGD([ember.zeros(1, requires_grad=True)], lr=0.1, dampening=-1.0)  # as torch
