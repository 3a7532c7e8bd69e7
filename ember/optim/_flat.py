"""Running an optimizer's rule: once per tensor, or once over a group's flat buffer.

The flat (fused) path copies a group's parameters, gradients and per-parameter state into one
contiguous buffer each and makes the tensors' arrays views into them, so the update is one call
of the same rule, applied chunk by chunk (chunks stay in cache). The per-parameter scalars
(``step``) become 0-d views into one small array per key; they advance once per step.
"""
import numpy as np

from .._tensor import Tensor

CHUNK = 1 << 17  # elements per rule call on the flat path: large enough to amortize Python


def _mode(group):
    """'flat' unless the group asks for the per-tensor loop (foreach=False, differentiable)."""
    if group.get("differentiable") or group.get("foreach") is False:
        return "tensor"
    if group.get("foreach") is None and group.get("fused") is False:
        return "tensor"
    return "flat"


def step_group(opt, group):
    """One step of ``opt``'s rule over the parameters of ``group`` that have a gradient."""
    params = [p for p in group["params"] if p._grad is not None]
    if not params:
        return
    options = opt._rule_options(group)
    if _mode(group) == "flat" and len(params) > 1:
        cache = opt.__dict__.setdefault("_flat_cache", {})
        layout = cache.get(id(group))
        if layout is None or not layout.valid(opt, params):
            layout = cache[id(group)] = _Layout(opt, group, params)
        for block in layout.blocks:
            block.step(opt, group, options)
        params = layout.rest
    for p in params:
        _step_tensor(opt, group, p, options)


def _step_tensor(opt, group, p, options):
    state = opt.state.get(p)
    fresh = not state
    if fresh:
        initial = opt._init_state(p._data, group)
        if initial:  # SGD without momentum keeps no state: leave no empty entry behind
            state = opt.state[p]
            state.update({k: Tensor._make(v) for k, v in initial.items()})
        else:
            state = {}
    scalars = {k: state[k]._data for k in opt._scalar_keys if k in state}
    extra = opt._advance(scalars, group, fresh)
    arrays = {k: v._data for k, v in state.items() if k not in opt._scalar_keys}
    opt._rule(p._data, p._grad._data, arrays, **options, **extra)
    p._vc[0] += 1


class _Layout:
    """A group's parameters with gradients, split into blocks that can share one flat buffer
    (same dtype, state keys and scalar state such as ``step``); single ones run per tensor."""

    def __init__(self, opt, group, params):
        self.params = list(params)
        self.blocks, self.rest = [], []
        if len({id(p) for p in params}) != len(params):
            self.rest = self.params  # a duplicated parameter is updated twice: only the loop can
            return
        parts = {}
        for p in params:
            key = _signature(opt, p)
            if key is None:
                self.rest.append(p)
            else:
                parts.setdefault(key, []).append(p)
        for key, members in parts.items():
            if len(members) == 1:
                self.rest += members
            else:
                self.blocks.append(_Block(opt, group, members, fresh=key[1] is None))

    def valid(self, opt, params):
        if len(params) != len(self.params) or any(
                p is not q for p, q in zip(params, self.params)):
            return False
        return all(block.valid(opt) for block in self.blocks)


def _signature(opt, p):
    """What parameters sharing a block must agree on; None when ``p`` can't join one."""
    state = opt.state.get(p)
    if not state:
        return (p._data.dtype, None)
    if not all(isinstance(v, Tensor) for v in state.values()):
        return None
    scalars = tuple(float(state[k]._data) for k in opt._scalar_keys if k in state)
    return (p._data.dtype, tuple(state), scalars)


class _Block:
    """Parameters of one group laid out in flat buffers, with their state and gradients."""

    def __init__(self, opt, group, params, fresh):
        self.params, self.fresh = params, fresh
        offsets = np.cumsum([0] + [p._data.size for p in params])
        self.flat = _pack([p._data for p in params], offsets)
        self.grad = np.empty_like(self.flat)
        self.grad_views = [self.grad[a:b].reshape(p._data.shape)
                           for a, b, p in zip(offsets[:-1], offsets[1:], params)]
        keys = self._gather_state(opt, group, params, offsets)
        self._expected = []
        for i, p in enumerate(params):
            a, b = offsets[i], offsets[i + 1]
            p._data = self.flat[a:b].reshape(p._data.shape)
            state = opt.state[p] if keys else opt.state.get(p, {})
            for k in keys:
                view = (self.scalars[k][i, ...] if k in self.scalars
                        else self.arrays[k][a:b].reshape(p._data.shape))
                if k in state:
                    state[k]._data = view
                else:
                    state[k] = Tensor._make(view)
            entries = [(k, state[k], state[k]._data) for k in keys]
            self._expected.append((p, p._data, state, entries))

    def _gather_state(self, opt, group, params, offsets):
        """Flat state arrays (fresh from the optimizer's init, or packed); returns the keys."""
        if self.fresh:
            self.arrays = opt._init_state(self.flat, group)
            keys = list(self.arrays)
            self.scalars = {k: np.full(len(params), self.arrays.pop(k))
                            for k in keys if k in opt._scalar_keys}
            return keys
        states = [opt.state[p] for p in params]
        keys = list(states[0])
        self.scalars = {k: np.array([s[k]._data for s in states]) for k in keys
                        if k in opt._scalar_keys}
        self.arrays = {k: _pack([s[k]._data for s in states], offsets) for k in keys
                       if k not in opt._scalar_keys}
        return keys

    def valid(self, opt):
        """True while nothing replaced the parameters, their state, or the arrays behind them."""
        state = opt.state
        for p, data, st, entries in self._expected:
            if p._data is not data or state.get(p) is not st or len(st) != len(entries):
                return False
            for k, t, d in entries:
                if st.get(k) is not t or t._data is not d:
                    return False
        return True

    def step(self, opt, group, options):
        """Gather the gradients, advance the scalars once, run the rule chunk by chunk."""
        self._gather_grads()
        scalars = {k: s[0, ...] for k, s in self.scalars.items()}
        extra = opt._advance(scalars, group, self.fresh)
        self.fresh = False
        for s in self.scalars.values():
            s[1:] = s[0]
        flat, grad, arrays = self.flat, self.grad, self.arrays
        for start in range(0, flat.size, CHUNK):
            end = start + CHUNK
            opt._rule(flat[start:end], grad[start:end],
                      {k: a[start:end] for k, a in arrays.items()}, **options, **extra)
        for p in self.params:
            p._vc[0] += 1

    def _gather_grads(self):
        for p, view in zip(self.params, self.grad_views):
            grad = p._grad
            if grad._data is not view:
                np.copyto(view, grad._data)
                grad._data = view


def _pack(arrays, offsets):
    flat = np.empty(int(offsets[-1]), dtype=arrays[0].dtype)
    for a, start, stop in zip(arrays, offsets[:-1], offsets[1:]):
        flat[start:stop] = a.ravel()
    return flat
