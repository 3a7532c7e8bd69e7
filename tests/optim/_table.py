"""Shared driver for the optimizer table: the same problem run in ember and in torch."""
import copy

import numpy as np

SHAPES = [(4, 3), (3,), (2, 2, 2), (), (5,)]


def inits(dtype, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(dtype) for s in SHAPES]


def _targets(dtype):
    rng = np.random.default_rng(99)
    return [rng.standard_normal(s).astype(dtype) for s in SHAPES]


def loss_fn(lib, params, step, targets, sign=1.0):
    """A smooth loss (negated for ``maximize``); parameter 3 gets no gradient on every third
    step (its grad stays None)."""
    total = None
    for i, (p, t) in enumerate(zip(params, targets)):
        if i == 3 and step % 3 == 1:
            continue
        term = ((p - lib.tensor(t)) ** 2 * (0.5 + 0.25 * i)).sum() + (p ** 4).sum() * 0.05
        total = term if total is None else total + term
    return total * sign


def make_groups(params, groups, kwargs):
    """One group, or two (the second with half the lr) when the row asks for it."""
    if groups == 1:
        return params
    return [{"params": params[:2]}, {"params": params[2:], "lr": 0.5 * kwargs.get("lr", 1e-3)}]


def build(lib, name, kwargs, arrays, groups=1):
    params = [lib.tensor(a.copy(), requires_grad=True) for a in arrays]
    opt = getattr(lib.optim, name)(make_groups(params, groups, kwargs), **kwargs)
    return params, opt


def run_steps(lib, params, opt, start, stop, targets):
    sign = -1.0 if opt.defaults.get("maximize") else 1.0
    for step in range(start, stop):
        def closure(step=step):
            opt.zero_grad()
            loss = loss_fn(lib, params, step, targets, sign)
            loss.backward()
            return loss
        opt.step(closure)


def trajectory(lib, name, kwargs, dtype, steps=50, groups=1):
    arrays, targets = inits(dtype), _targets(dtype)
    params, opt = build(lib, name, kwargs, arrays, groups)
    run_steps(lib, params, opt, 0, steps, targets)
    return params, opt


def resumed(lib, name, kwargs, dtype, steps=50, groups=1, cut=25):
    """Run ``cut`` steps, save, load into a fresh optimizer over copied params, continue."""
    targets = _targets(dtype)
    params, opt = build(lib, name, kwargs, inits(dtype), groups)
    run_steps(lib, params, opt, 0, cut, targets)
    saved = copy.deepcopy(opt.state_dict())
    params2, opt2 = build(lib, name, kwargs, [np.array(p._data) for p in params], groups)
    opt2.load_state_dict(saved)
    run_steps(lib, params2, opt2, cut, steps, targets)
    return params2, opt2


def structure(state_dict, lengths=True):
    """The layout of a state_dict: group keys and values, state keys, shapes and dtypes (and
    the lengths of lists, e.g. L-BFGS's history, unless ``lengths`` is False)."""
    groups = [{k: (v if k != "params" else list(v)) for k, v in g.items()}
              for g in state_dict["param_groups"]]
    state = {}
    for pid, entry in state_dict["state"].items():
        state[pid] = [(k, _describe(v, lengths)) for k, v in entry.items()]
    return groups, state


def _describe(v, lengths=True):
    if hasattr(v, "shape") and hasattr(v, "dtype"):
        return ("tensor", tuple(v.shape), str(v.dtype).split(".")[-1])
    if isinstance(v, list):
        return ("list", len(v) if lengths else None)
    return (type(v).__name__,)
