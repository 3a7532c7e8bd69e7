"""Fused recurrences: one node runs an RNN/LSTM/GRU layer direction over the whole sequence.

A per-step graph costs ~15 nodes a step; one node with a hand-written backpropagation through
time is several times faster. Under create_graph the backward recomputes the same recurrence
from differentiable ops (``reference``) and differentiates that, so every order still works.

Inputs: proj (L, N, G*H) = x W_ih^T + b_ih for all steps, w_hh (G*H, H), b_hh, h0, c0.
Output: (L, N, H) hidden states; for the LSTM (L + 1, N, H): the hidden states, then the
last cell state (``lstm_outputs`` gives the layer torch's three outputs of one node).
"""
import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from ..autograd import graph as _graph
from ..autograd.engine import grad
from ..autograd.graph import Node
from .api import matmul, stack, unbind
from .api import t as _t  # (the step loops below name their index t)


def _sigmoid(x):
    return 0.5 * (np.tanh(0.5 * x) + 1.0)  # overflow-free and one ufunc pass


def reference(mode, proj, w_hh, b_hh, h0, c0, reverse):
    """The recurrence from differentiable tensor ops (the fused node's definition)."""
    steps = unbind(proj, 0)
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    h, c, outs = h0, c0, [None] * len(steps)
    for step in order:  # (the last c is appended to the LSTM's output)
        hh = matmul(h, _t(w_hh)) if b_hh is None else matmul(h, _t(w_hh)) + b_hh
        if mode == "LSTM":
            i, f, g, o = (steps[step] + hh).chunk(4, 1)
            c = f.sigmoid() * c + i.sigmoid() * g.tanh()
            outs[step] = h = o.sigmoid() * c.tanh()
            continue
        if mode == "GRU":
            ir, iz, in_ = steps[step].chunk(3, 1)
            hr, hz, hn = hh.chunk(3, 1)
            r, z = (ir + hr).sigmoid(), (iz + hz).sigmoid()
            n = (in_ + r * hn).tanh()
            h = n + z * (h - n)
        else:
            pre = steps[step] + hh
            h = pre.tanh() if mode == "RNN_TANH" else pre.relu()
        outs[step] = h
    return stack(outs + ([c] if mode == "LSTM" else []), 0)


class _Recurrence(Node):
    """Shared driver: ``cell`` (forward of one step) and ``cell_backward`` per mode."""

    def forward(self, proj, w_hh, b_hh, h0, c0, mode, reverse):
        self.mode, self.reverse = mode, reverse
        self.save(proj, w_hh, b_hh, h0, c0)
        p, w = proj._data, w_hh._data
        b = b_hh._data if b_hh is not None else None
        steps = range(p.shape[0] - 1, -1, -1) if reverse else range(p.shape[0])
        h, c = h0._data, (c0._data if c0 is not None else None)
        self.cache = [None] * p.shape[0]
        outs = np.empty(p.shape[:2] + ((2 if mode == "LSTM" else 1) * h.shape[1],), p.dtype)
        for t in steps:
            hh = h @ w.T
            if b is not None:
                hh += b
            h_prev, c_prev = h, c
            h, c, self.cache[t] = self.cell(p[t], hh, h, c)
            self.cache[t] += (h_prev, c_prev)
            outs[t, :, :h.shape[1]] = h
            if c is not None:
                outs[t, :, h.shape[1]:] = c
        return outs

    def backward(self, m, g, proj, w_hh, b_hh, h0, c0):
        if m.is_graph:
            return self._graph_backward(g, proj, w_hh, b_hh, h0, c0)
        hidden = h0.shape[1]
        steps = range(proj.shape[0]) if self.reverse else range(proj.shape[0] - 1, -1, -1)
        d_proj = np.empty_like(proj)
        d_hh = None  # the gate gradients on the h W_hh^T side, where they differ (GRU)
        dh, dc = np.zeros_like(h0), (np.zeros_like(c0) if c0 is not None else None)
        for t in steps:  # dh and dc are this loop's own arrays: updated in place
            dh += g[t, :, :hidden]
            if dc is not None:
                dc += g[t, :, hidden:]
            d_hh_t, dh_direct, dc = self.cell_backward(dh, dc, self.cache[t], d_proj[t])
            if d_hh_t is not None:
                d_hh = np.empty_like(proj) if d_hh is None else d_hh
                d_hh[t] = d_hh_t
            dh = (d_proj[t] if d_hh_t is None else d_hh_t) @ w_hh
            if dh_direct is not None:
                dh += dh_direct
        h_prev = np.stack([cache[-2] for cache in self.cache])
        flat = (d_proj if d_hh is None else d_hh).reshape(-1, proj.shape[-1])
        d_w = flat.T @ h_prev.reshape(-1, hidden)
        d_b = flat.sum(0) if b_hh is not None else None
        return d_proj, d_w, d_b, dh, dc

    def _release(self):
        self.cache = None  # the per-step values go with the saved tensors (not before a
        super()._release()  # backward with retain_graph=True runs again)

    def _graph_backward(self, g, proj, w_hh, b_hh, h0, c0):
        inputs = [proj, w_hh, b_hh, h0, c0]
        live = [t for t in inputs if t is not None and t.requires_grad]
        with grad_mode.enable_grad():
            out = reference(self.mode, proj, w_hh, b_hh, h0, c0, self.reverse)
            if type(g) is list:  # the three outputs of ``lstm_outputs``
                pairs = [(o, v) for o, v in zip(_parts(out, self.reverse), g) if v is not None]
                out, g = [o for o, _ in pairs], [v for _, v in pairs]
            grads = iter(grad(out, live, g, create_graph=True, allow_unused=True))
        return tuple(next(grads) if t is not None and t.requires_grad else None for t in inputs)


class _LSTM(_Recurrence):
    """LSTM: gates i, f, g, o; c' = f*c + i*g; h' = o*tanh(c').

    The gates come from one exp pass a step: sigmoid(x) = 1 / (1 + exp(-x)) for i, f, o and
    tanh(x) = 2 sigmoid(2x) - 1 for g, with the factors -1 and -2 folded once into W_hh and
    the projection (exact: powers of two). The gates, h, c and tanh(c) of every step go into
    (L, N, .) arrays, so that backward forms the per-step factors of its chain rule for all
    steps at once; its loop is then a few multiplications and the h W_hh product per step.
    """

    saves_output = True  # its hidden states: backward's h_{t-1}

    def forward(self, proj, w_hh, b_hh, h0, c0, mode, reverse):
        self.mode, self.reverse = mode, reverse
        self.save(proj, w_hh, b_hh, h0, c0)
        p, h, c = proj._data, h0._data, c0._data
        n = h.shape[1]
        scale = np.full(4 * n, -1.0, p.dtype)
        scale[2 * n:3 * n] = -2.0
        w = np.multiply(w_hh._data.T, scale)  # (H, 4H), C-ordered
        # each step's gates are computed in place over its scaled projection
        gates = np.add(p, b_hh._data) if b_hh is not None else p.copy()
        gates *= scale
        self.gates = gates  # i, f, o as sigmoids, g as tanh
        out = np.empty((p.shape[0] + 1,) + h.shape, p.dtype)  # h of each step, last c
        self.cs = cs = np.empty(p.shape[:2] + (n,), p.dtype)
        self.tcs = tcs = np.empty_like(cs)  # tanh(c)
        i, f, g, o = _blocks(gates, n)
        hs = out
        one, two = np.ones((), p.dtype), np.asarray(2, p.dtype)
        mul, tanh, exp, matmul = np.multiply, np.tanh, np.exp, np.matmul
        ig = np.empty_like(h)
        hw = _f_ordered(h.shape[0], 4 * n, p.dtype)
        for t in range(p.shape[0] - 1, -1, -1) if reverse else range(p.shape[0]):
            a = np.add(matmul(h, w, out=hw), gates[t], out=gates[t])
            exp(a, out=a)
            a += one
            np.reciprocal(a, out=a)
            gt = g[t]
            gt *= two
            gt -= one
            c = mul(f[t], c, out=cs[t])
            c += mul(i[t], gt, out=ig)
            h = mul(o[t], tanh(c, out=tcs[t]), out=hs[t])
        out[-1] = c
        return out

    def _previous(self, states, first):
        """Each step's incoming state: ``first`` for the first step, else the step before's."""
        shifted = np.empty_like(states)
        if self.reverse:
            shifted[:-1], shifted[-1] = states[1:], first
        else:
            shifted[1:], shifted[0] = states[:-1], first
        return shifted

    def _times_previous(self, states, first, factor, out):
        """out = (each step's incoming state) * factor, without a shifted copy of ``states``."""
        later, earlier = slice(1, None), slice(None, -1)  # steps with a step before, those
        if self.reverse:  # before them (in the direction of the recurrence)
            later, earlier = earlier, later
        np.multiply(states[earlier], factor[later], out=out[later])
        edge = -1 if self.reverse else 0
        np.multiply(first, factor[edge], out=out[edge])

    def _factors(self, c0):
        """Per-step factors of the chain rule, all steps at once: d gate pre-activation =
        dc * (i, f, g)-factor or dh * o-factor; dc gains dh * through_h."""
        n = c0.shape[1]
        i, f, gg, o = _blocks(self.gates, n)
        cs, tc = self.cs, self.tcs
        one = np.ones((), cs.dtype)
        mul, sub = np.multiply, np.subtract
        by_dc = np.empty(cs.shape[:2] + (3, n), cs.dtype)
        # the same products as i * (1 - i) etc., their intermediates in two scratch arrays
        # (fresh (L, N, H) temporaries: 188 -> 163 us for the benchmark LSTM layer)
        a, by_dh = np.empty_like(tc), np.empty_like(tc)
        mul(gg, mul(i, sub(one, i, out=a), out=a), out=by_dc[:, :, 0])
        self._times_previous(cs, c0, mul(f, sub(one, f, out=a), out=a), by_dc[:, :, 1])
        mul(i, sub(one, mul(gg, gg, out=a), out=a), out=by_dc[:, :, 2])
        mul(mul(tc, o, out=by_dh), sub(one, o, out=a), out=by_dh)  # tc * o * (1 - o)
        through_h = mul(o, sub(one, mul(tc, tc, out=a), out=a), out=a)
        return by_dc, by_dh, through_h, f

    def backward(self, m, g, proj, w_hh, b_hh, h0, c0, out):
        if m.is_graph:
            return self._graph_backward(g, proj, w_hh, b_hh, h0, c0)
        # the gradients of the hidden states, of the last h and of the last c (None: none came)
        g_out, g_h, g_c = g if type(g) is list else (g[:-1], None, g[-1])
        n = h0.shape[1]
        by_dc, by_dh, through_h, f = self._factors(c0)
        d_proj = np.empty_like(proj)
        blocks = d_proj.reshape(proj.shape[:2] + (4, n))  # a view: d_proj is contiguous
        d_ifg, d_o = blocks[:, :, :3], blocks[:, :, 3]
        dh, tmp = np.zeros_like(h0), np.empty_like(h0)
        dc = g_c.copy() if g_c is not None else np.zeros_like(c0)
        dc_each = dc[:, None]  # dc against the three gates it feeds (a view: dc is updated
        mul, matmul = np.multiply, np.matmul  # in place)
        steps = range(proj.shape[0]) if self.reverse else range(proj.shape[0] - 1, -1, -1)
        for t in steps:
            if g_out is not None:
                dh += g_out[t]
            if g_h is not None and t == steps[0]:
                dh += g_h
            dc += mul(dh, through_h[t], out=tmp)
            mul(dc_each, by_dc[t], out=d_ifg[t])
            mul(dh, by_dh[t], out=d_o[t])
            dc *= f[t]
            matmul(d_proj[t], w_hh, out=dh)
        flat = d_proj.reshape(-1, proj.shape[-1])
        d_w = flat.T @ self._previous(out[:-1], h0).reshape(-1, n)
        d_b = flat.sum(0) if b_hh is not None else None
        return d_proj, d_w, d_b, dh, dc


def _f_ordered(rows, cols, dtype):
    """An empty F-ordered (rows, cols) array: ``h @ W`` written there runs as BLAS's
    ``W^T h^T``. For the few rows of a batch (OpenBLAS, 16 x 128 @ 128 x 512, one thread) this
    took 77 us against 165 us into a C-ordered array in a fresh process, and about the same
    (~72 us) once the process had run other products (the LSTM benchmark step: CPU time
    ~1% lower, within this shared machine's noise)."""
    return np.empty((cols, rows), dtype).T


def _blocks(a, n):
    """The four gate blocks (views) of a [..., 4n] array."""
    return tuple(a[..., k * n:(k + 1) * n] for k in range(4))


class _GRU(_Recurrence):
    """GRU: r, z gates; n = tanh(x_n + r*(h W_hn + b_hn)); h' = n + z*(h - n)."""

    @staticmethod
    def cell(p, hh, h, c):
        k = h.shape[1]
        r = _sigmoid(p[:, :k] + hh[:, :k])
        z = _sigmoid(p[:, k:2 * k] + hh[:, k:2 * k])
        hn = hh[:, 2 * k:]
        n = np.tanh(p[:, 2 * k:] + r * hn)
        return n + z * (h - n), None, (r, z, n, hn)

    @staticmethod
    def cell_backward(dh, dc, cache, da):
        r, z, n, hn, h_prev, _ = cache
        dan = dh * (1 - z) * (1 - n * n)
        dar = dan * hn * r * (1 - r)
        daz = dh * (h_prev - n) * z * (1 - z)
        np.concatenate([dar, daz, dan], axis=1, out=da)
        return np.concatenate([dar, daz, dan * r], axis=1), dh * z, None


class _RNN(_Recurrence):
    """Elman RNN: h' = tanh(a) or relu(a), a = x W_ih^T + b_ih + h W_hh^T + b_hh."""

    def cell(self, p, hh, h, c):
        a = p + hh
        h = np.tanh(a) if self.mode == "RNN_TANH" else np.maximum(a, 0)
        return h, None, (h,)

    def cell_backward(self, dh, dc, cache, da):
        h = cache[0]
        np.multiply(dh, (1 - h * h) if self.mode == "RNN_TANH" else (h > 0), out=da)
        return None, None, None


MkldnnRnnLayerBackward0 = type("MkldnnRnnLayerBackward0", (_LSTM,),
                               {"__doc__": _LSTM.__doc__ + " (torch's CPU LSTM node name)"})
# torch runs a float32 LSTM through oneDNN (the node above); other dtypes stack per-step outputs
_LSTM_STACK = type("StackBackward0", (_LSTM,), {"__doc__": _LSTM.__doc__ + " (torch's name "
                                                "for the LSTM output beyond float32)"})
# torch's CPU GRU/RNN stack per-step outputs, so their output's grad_fn prints StackBackward0
_GRU_NODE = type("StackBackward0", (_GRU,), {"__doc__": _GRU.__doc__ + " (torch's node name)"})
_RNN_NODE = type("StackBackward0", (_RNN,), {"__doc__": _RNN.__doc__ + " (torch's node name)"})
_NODES = {"LSTM": MkldnnRnnLayerBackward0, "GRU": _GRU_NODE, "RNN_TANH": _RNN_NODE,
          "RNN_RELU": _RNN_NODE}


def recurrence(mode, proj, w_hh, b_hh, h0, c0, reverse):
    """Run one layer direction; (L, N, H) outputs (LSTM: (L + 1, N, H), the last cell state
    appended; ``lstm_outputs`` splits it as torch's layer does)."""
    node = _NODES[mode]
    if mode == "LSTM" and (proj._data.dtype != np.float32 or not proj._data.size):
        node = _LSTM_STACK
    return node.apply(proj, w_hh, b_hh, h0, c0, mode=mode, reverse=reverse)


def _parts(out, reverse):
    """The hidden states, the last step's hidden state and the last cell state of (L + 1, N, H)."""
    return out[:-1], out[0 if reverse else -2], out[-1]


def lstm_outputs(out, reverse):
    """The fused LSTM's result as three outputs of its node, as torch's LSTM layer node has:
    the hidden states (L, N, H), then h and c of the last step (N, H) each; views of the
    result, which the node saves (writing into them fails its version check)."""
    node = out._grad_fn
    if node is None or _graph._dual is not None:  # (forward AD: views carry out's tangent)
        return _parts(out, reverse)
    parts = _parts(out._data, reverse)
    node._shapes, node._dtypes = tuple(p.shape for p in parts), (out._data.dtype,) * 3
    outputs = []
    for nr, data in enumerate(parts):
        t = Tensor._make(data, True, node)
        t._output_nr, t._vc = nr, out._vc
        outputs.append(t)
    return tuple(outputs)

