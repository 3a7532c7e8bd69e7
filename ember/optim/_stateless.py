"""swap_in_optimizer_params_and_state: run an optimizer, for a while, on other parameters and
a state_dict-shaped state, then put its own back."""
import contextlib
from collections import defaultdict

from .._tensor import Tensor

__all__ = ["swap_in_optimizer_params_and_state"]

_NAME = "swap_in_optimizer_params_and_state"


def _checked_state(swapin_optim_state):
    state = swapin_optim_state.get("state")
    if not isinstance(state, dict):
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['state'] to be a dict mapping "
                           "packed parameter ids to per-param state dicts, got "
                           f"{type(state).__name__}.")
    if any(isinstance(k, Tensor) for k in state):
        raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style state keyed by "
                           "packed parameter ids.")
    if any(isinstance(k, int) and not isinstance(v, dict) for k, v in state.items()):
        raise RuntimeError(f"{_NAME} requires per-parameter optimizer state entries to be "
                           "dictionaries.")
    return state


def _checked_groups(optimizer, swapin_optim_state):
    groups = swapin_optim_state.get("param_groups")
    if not isinstance(groups, list):
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['param_groups'] to be a list "
                           f"of param-group dicts, got {type(groups).__name__}.")
    if len(optimizer.param_groups) != len(groups):
        raise RuntimeError("swapin_optim_state has a different number of parameter groups than "
                           "the live optimizer.")
    for idx, (live, group) in enumerate(zip(optimizer.param_groups, groups)):
        if not isinstance(group, dict):
            raise RuntimeError(f"{_NAME} requires each optimizer param group to be a "
                               "dictionary.")
        ids = group.get("params")
        if not isinstance(ids, list) or not all(isinstance(i, int) for i in ids):
            raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style "
                               "param_groups[*]['params'] entries keyed by packed parameter ids.")
        if len(live["params"]) != len(ids):
            raise RuntimeError(f"swapin_optim_state param group {idx} has a different number "
                               "of params than the live optimizer param group.")
        only_new = [k for k in group if k not in live]
        only_live = [k for k in live if k not in group]
        if only_new or only_live:
            raise RuntimeError(f"{_NAME} requires optimizer.state_dict()-style param group keys "
                               f"to exactly match the live optimizer group keys for group {idx}. "
                               f"Keys only in swap-in: {only_new}. Keys only in live: "
                               f"{only_live}.")
    return groups


def _plan(optimizer, swapin_parameters, swapin_optim_state):
    """(state by packed id, [(live group, swap-in group, its parameters)]), checked as torch
    checks them."""
    if not optimizer.state:
        raise RuntimeError(f"{_NAME} requires initialized optimizer state.")
    if not isinstance(swapin_optim_state, dict):
        raise RuntimeError(f"{_NAME} requires a DCP-style optimizer state_dict.")
    state = _checked_state(swapin_optim_state)
    groups = _checked_groups(optimizer, swapin_optim_state)
    tensors, offset, seen, plan = list(swapin_parameters.values()), 0, set(), []
    for live, group in zip(optimizer.param_groups, groups):
        seen.update(group["params"])
        end = offset + len(group["params"])
        if end > len(tensors):
            raise RuntimeError(f"{_NAME} requires the explicit parameter state to match "
                               "optimizer.param_groups ordering.")
        plan.append((live, group, tensors[offset:end]))
        offset = end
    extra = [k for k in state if k not in seen]
    if extra:
        raise RuntimeError(f"{_NAME} requires swapin_optim_state['state'] to be keyed only by "
                           "packed parameter ids from param_groups[*]['params']; got extra keys "
                           f"{extra!r}.")
    return state, plan


@contextlib.contextmanager
def swap_in_optimizer_params_and_state(optimizer, swapin_parameters, swapin_optim_state):
    """Inside the block the optimizer steps ``swapin_parameters`` (in param_groups order) with
    the options and per-parameter state of ``swapin_optim_state`` (a state_dict()); on exit its
    own parameters, options and state are back."""
    state, plan = _plan(optimizer, swapin_parameters, swapin_optim_state)
    original_state = optimizer.state
    snapshots = [dict(group) for group in optimizer.param_groups]
    try:
        swapped = defaultdict(dict)
        for live, group, params in plan:
            live["params"] = params
            live.update({k: v for k, v in group.items() if k != "params"})
            for param, packed in zip(params, group["params"]):
                swapped[param] = dict(state.get(packed, {}))
        optimizer.state = swapped
        yield
    finally:
        for group, snapshot in zip(optimizer.param_groups, snapshots):
            group.clear()
            group.update(snapshot)
        optimizer.state = original_state
