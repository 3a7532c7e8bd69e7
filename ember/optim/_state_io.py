"""Optimizer state_dict packing (torch's layout) and validated, all-or-nothing unpacking."""
from collections import defaultdict, namedtuple
from copy import deepcopy
from itertools import chain

from .._tensor import Tensor

LoadResult = namedtuple("LoadResult", ["missing_keys", "unexpected_keys", "mismatched_keys"])


def pack(state, param_groups):
    """Replace parameters by consecutive integer ids, group by group, as torch does."""
    mapping = {}
    start = 0
    groups = []
    for group in param_groups:
        packed = {k: v for k, v in group.items() if k != "params"}
        for i, p in enumerate(group["params"], start):
            mapping.setdefault(id(p), i)
        packed["params"] = [mapping[id(p)] for p in group["params"]]
        start += len(packed["params"])
        groups.append(packed)
    packed_state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v
                    for k, v in state.items()}
    return {"state": packed_state, "param_groups": groups}


def unpack(optimizer, state_dict, strict):
    """The new (state, param_groups, report) for ``optimizer``; raises before changing anything."""
    for key in ("state", "param_groups"):
        if key not in state_dict:
            raise KeyError(f"optimizer state_dict is missing the '{key}' entry")
    groups = optimizer.param_groups
    saved_groups = deepcopy(state_dict["param_groups"])
    if len(groups) != len(saved_groups):
        raise ValueError("loaded state dict has a different number of parameter groups")
    by_name = all("param_names" in g for g in chain(groups, saved_groups))
    if by_name:
        id_map, report = _match_by_name(optimizer, groups, saved_groups, state_dict, strict)
    else:
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        report = LoadResult([], [], [])
    saved_ids = set(chain.from_iterable(g["params"] for g in saved_groups))
    state = defaultdict(dict)
    if by_name:  # parameters the file does not cover keep their state
        matched = {id(p) for p in id_map.values()}
        for p in chain.from_iterable(g["params"] for g in groups):
            if p in optimizer.state and id(p) not in matched:
                state[p] = optimizer.state[p]
    for key, value in state_dict["state"].items():
        if key in id_map:
            state[id_map[key]] = _cast(id_map[key], value)
        elif not (by_name and key in saved_ids):
            state[key] = value
    for group, saved in zip(groups, saved_groups):
        saved["params"] = group["params"]
        if "param_names" in group and (by_name or "param_names" not in saved):
            saved["param_names"] = group["param_names"]
    return state, saved_groups, report


def _match_by_name(optimizer, groups, saved_groups, state_dict, strict):
    ours = dict(zip(chain.from_iterable(g["param_names"] for g in groups),
                    chain.from_iterable(g["params"] for g in groups)))
    theirs = dict(zip(chain.from_iterable(g["param_names"] for g in saved_groups),
                      chain.from_iterable(g["params"] for g in saved_groups)))
    missing = [n for n in ours if n not in theirs]
    unexpected = [n for n in theirs if n not in ours]
    mismatched, problems = [], []
    id_map = {}
    for name, param in ours.items():
        if name not in theirs:
            continue
        bad = None
        if getattr(optimizer, "_per_parameter_state", True):
            bad = _shape_problem(param, state_dict["state"].get(theirs[name], {}))
        if bad:
            mismatched.append(name)
            problems.append(f"size mismatch for '{name}': {bad}")
        else:
            id_map[theirs[name]] = param
    if strict and (missing or unexpected or mismatched):
        lines = [f"Error(s) in loading state_dict for {type(optimizer).__name__}:"]
        if missing:
            lines.append(f"Missing parameter names: {missing}.")
        if unexpected:
            lines.append(f"Unexpected parameter names: {unexpected}.")
        lines += problems
        raise ValueError("\n\t".join(lines))
    return id_map, LoadResult(missing, unexpected, mismatched)


def _shape_problem(param, entry):
    """Why a saved per-parameter state does not fit ``param`` (None when it fits)."""
    if not isinstance(entry, dict):
        return None
    for key, value in entry.items():
        if isinstance(value, Tensor) and value.ndim > 0 and value.shape != param.shape:
            return (f"state '{key}' has shape {list(value.shape)}, the parameter has "
                    f"shape {list(param.shape)}")
    return None


def _cast(param, value, key=None):
    """A copy of ``value`` with floating tensors cast to the parameter's dtype (not 'step')."""
    if isinstance(value, Tensor):
        data = value._data
        if key != "step" and param.is_floating_point() and data.dtype.kind == "f":
            data = data.astype(param._data.dtype)
        return Tensor._make(data.copy() if data is value._data else data)
    if isinstance(value, dict):
        return {k: _cast(param, v, k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(param, v) for v in value)
    return value
