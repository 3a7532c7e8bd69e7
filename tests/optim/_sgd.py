"""Shared by tests/optim/test_optimizer.py and test_state_io.py: the type and message a call
raises, two float32 parameters, and an SGD-with-momentum optimizer trained a few steps on them."""
import numpy as np


def error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the test compares types and messages
        return type(e), str(e).replace("torch.", "ember.")
    return None


def pair(lib, seed=0):
    rng = np.random.default_rng(seed)
    w = lib.tensor(rng.standard_normal((3, 2)).astype(np.float32), requires_grad=True)
    b = lib.tensor(rng.standard_normal(2).astype(np.float32), requires_grad=True)
    return w, b


def trained(lib, named=False, steps=3, **kw):
    w, b = pair(lib)
    params = [("w", w), ("b", b)] if named else [w, b]
    opt = lib.optim.SGD(params, lr=0.1, momentum=0.9, **kw)
    for _ in range(steps):
        opt.zero_grad()
        ((w ** 2).sum() + (b ** 3).sum()).backward()
        opt.step()
    return (w, b), opt
