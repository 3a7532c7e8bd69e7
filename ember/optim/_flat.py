"""Running an optimizer's rule: once per tensor, or once over a group's flat buffer.

The flat (fused) path copies a group's parameters and per-parameter state into one contiguous
buffer each and makes the tensors' arrays views into them, so the update is the same rule run
over slices of the buffers: large parameters slice by slice (their gradients read in place,
cache-sized pieces), all small ones together (their gradients packed into a small scratch).
The per-parameter scalars (``step``) become 0-d views into one small array per key; they
advance once per step.
"""
import os

import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode

CHUNK = 1 << 17  # most elements per rule call on the flat path: amortizes Python, fits cache
DIRECT = 1 << 13  # parameters this large read their gradient in place; smaller ones are packed
PARALLEL = 1 << 20  # blocks this large split their segments over threads (ufuncs drop the GIL)
WORKERS = min(4, os.cpu_count() or 1)
_pool = (None, None)  # (executor, pid that made it): a forked child needs its own threads


def _executor():
    global _pool
    pool, pid = _pool
    if pool is None or pid != os.getpid():
        from concurrent.futures import ThreadPoolExecutor
        pool = ThreadPoolExecutor(max(1, WORKERS - 1), thread_name_prefix="ember-optim")
        _pool = (pool, os.getpid())
    return pool


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


def step_tensors(opt, closure, check=None):
    """One step of ``opt``'s rule on each parameter with a gradient, a tensor at a time (rules
    over a whole matrix: factored or orthogonalised updates); ``check(p)`` first, if given.
    Returns the closure's loss."""
    loss = opt._run_closure(closure)
    with grad_mode.no_grad():
        for group in opt.param_groups:
            options = opt._rule_options(group)
            for p in group["params"]:
                if p._grad is not None:
                    if check is not None:
                        check(p)
                    _step_tensor(opt, group, p, options)
    return loss


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
    """What parameters sharing a block must agree on; None when ``p`` can't join one (a
    tensor in shared memory stays there: other processes update the same memory)."""
    if p.__dict__.get("_shared"):
        return None
    state = opt.state.get(p)
    if not state:
        return (p._data.dtype, None)
    if not all(isinstance(v, Tensor) for v in state.values()):
        return None
    scalars = tuple(float(state[k]._data) for k in opt._scalar_keys if k in state)
    return (p._data.dtype, tuple(state), scalars)


class _Block:
    """Parameters of one group laid out in flat buffers (largest first), with their state."""

    def __init__(self, opt, group, params, fresh):
        self.params, self.fresh = params, fresh
        order = sorted(range(len(params)), key=lambda i: -params[i]._data.size)
        ordered = [params[i] for i in order]
        offsets = np.cumsum([0] + [p._data.size for p in ordered])
        self.flat = _pack([p._data for p in ordered], offsets)
        keys = self._gather_state(opt, group, ordered, offsets)
        self._expected = []
        for i, p in enumerate(ordered):
            a, b = offsets[i], offsets[i + 1]
            p._data = self.flat[a:b].reshape(p._data.shape)
            state = opt.state[p] if keys else opt.state.get(p)  # SGD without momentum: none
            for k in keys:
                view = (self.scalars[k][i, ...] if k in self.scalars
                        else self.arrays[k][a:b].reshape(p._data.shape))
                if k in state:
                    state[k]._data = view
                else:
                    state[k] = Tensor._make(view)
            entries = [(k, state[k], state[k]._data) for k in keys]
            self._expected.append((p, p._data, state, entries))
        self.segments = _segments(ordered, offsets)
        packed = [seg[0] for seg in self.segments if seg[2] is None]
        self._packed_base = packed[0] if packed else self.flat.size
        self.scratch = np.empty(self.flat.size - self._packed_base, self.flat.dtype)
        self.work = _balance(self.segments, WORKERS if self.flat.size >= PARALLEL else 1)

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
        for p, s in zip(params, states):  # checked before anything moves: a bad state changes
            for k in keys:                # nothing (torch fails half-way through the step)
                if k not in opt._scalar_keys:
                    _check_state_shape(s[k]._data.shape, p._data.shape)
        self.scalars = {k: np.array([s[k]._data for s in states]) for k in keys
                        if k in opt._scalar_keys}
        self.arrays = {k: _pack([s[k]._data for s in states], offsets) for k in keys
                       if k not in opt._scalar_keys}
        return keys

    def valid(self, opt):
        """True while nothing replaced the parameters, their state, or the arrays behind them."""
        state = opt.state
        for p, data, st, entries in self._expected:
            if p._data is not data or state.get(p) is not st:
                return False
            if st is None:
                continue
            if len(st) != len(entries):
                return False
            for k, t, d in entries:
                if st.get(k) is not t or t._data is not d:
                    return False
        return True

    def step(self, opt, group, options):
        """Advance the scalars once, then run the rule over each segment of the buffers."""
        scalars = {k: s[0, ...] for k, s in self.scalars.items()}
        extra = opt._advance(scalars, group, self.fresh)
        self.fresh = False
        for s in self.scalars.values():
            s[1:] = s[0]
        if len(self.work) > 1:  # results don't depend on it: every element sees the same ops
            futures = [_executor().submit(self._run, opt, part, options, extra)
                       for part in self.work[1:]]
            self._run(opt, self.work[0], options, extra)
            for future in futures:
                future.result()
        else:
            self._run(opt, self.segments, options, extra)
        for p in self.params:
            p._vc[0] += 1

    def _run(self, opt, segments, options, extra):
        flat, arrays, rule, base = self.flat, self.arrays, opt._rule, self._packed_base
        for start, end, param, lo, members in segments:
            if param is not None:
                grad = param._grad._data.reshape(-1)[lo:lo + end - start]
            else:  # each packed run has its own stretch of the scratch: threads never share
                grad = self.scratch[start - base:end - base]
                for p, a, b in members:
                    grad[a:b] = p._grad._data.reshape(-1)
            rule(flat[start:end], grad, {k: v[start:end] for k, v in arrays.items()},
                 **options, **extra)


def _balance(segments, parts):
    """Split the segments into ``parts`` consecutive lists of about equal element counts."""
    total = sum(end - start for start, end, *_ in segments)
    work, current, done = [], [], 0
    for seg in segments:
        current.append(seg)
        done += seg[1] - seg[0]
        if done >= total * (len(work) + 1) / parts and len(work) < parts - 1:
            work.append(current)
            current = []
    if current or not work:
        work.append(current)
    return [part for part in work if part]


def _segments(ordered, offsets):
    """(start, end, param, offset in param, None) pieces of the large parameters, then
    (start, end, None, 0, members) runs of the small ones (members: (param, from, to))."""
    segments, run = [], []
    for p, start in zip(ordered, offsets[:-1]):
        size = p._data.size
        if size >= DIRECT:
            for lo in range(0, size, CHUNK):
                hi = min(lo + CHUNK, size)
                segments.append((int(start + lo), int(start + hi), p, lo, None))
            continue
        if run and start + size - run[0][1] > CHUNK:
            segments.append(_run_segment(run))
            run = []
        run.append((p, int(start), int(start + size)))
    if run:
        segments.append(_run_segment(run))
    return segments


def _run_segment(run):
    base = run[0][1]
    return (base, run[-1][2], None, 0, [(p, a - base, b - base) for p, a, b in run])


def _check_state_shape(state, param):
    """torch's broadcast error for a loaded state tensor that does not fit its parameter."""
    if state == param:
        return
    n = max(len(state), len(param))
    a, b = (1,) * (n - len(state)) + state, (1,) * (n - len(param)) + param
    for i in range(n - 1, -1, -1):
        if a[i] != b[i] and a[i] != 1:
            raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b "
                               f"({b[i]}) at non-singleton dimension {i}")


def _pack(arrays, offsets):
    flat = np.empty(int(offsets[-1]), dtype=arrays[0].dtype)
    for a, start, stop in zip(arrays, offsets[:-1], offsets[1:]):
        flat[start:stop] = a.ravel()
    return flat
