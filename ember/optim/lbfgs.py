"""L-BFGS: limited-memory BFGS over all parameters as one flat vector (closure-driven), with an
optional strong-Wolfe line search (cubic interpolation, as in minFunc)."""
import numpy as np

from .._tensor import Tensor
from ..autograd import grad_mode
from .optimizer import Optimizer

__all__ = ["LBFGS"]


def _cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimizer of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to ``bounds``."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (low + high) / 2.0
    d2 = np.sqrt(d2_square)
    if x1 <= x2:
        point = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        point = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(point, low), high)


class _Bracket:
    """Two trial steps with their losses, gradients and directional derivatives."""

    def __init__(self, ts, fs, gs, gtds):
        self.t, self.f, self.g, self.gtd = list(ts), list(fs), list(gs), list(gtds)

    def set(self, i, t, f, g, gtd):
        self.t[i], self.f[i], self.g[i], self.gtd[i] = t, f, g, gtd

    def order(self):
        return (0, 1) if self.f[0] <= self.f[-1] else (1, 0)


def _strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """Find t meeting the strong Wolfe conditions; returns (loss, grad, t, evaluations)."""
    f_new, g_new = evaluate(t)
    evals, ls_iter = 1, 0
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g.copy(), gtd
    bracket = None
    while ls_iter < max_ls:  # bracketing phase
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.copy()],
                               [gtd_prev, gtd_new])
            break
        if abs(gtd_new) <= -c2 * gtd:
            return f_new, g_new, t, evals
        if gtd_new >= 0:
            bracket = _Bracket([t_prev, t], [f_prev, f_new], [g_prev, g_new.copy()],
                               [gtd_prev, gtd_new])
            break
        t_next = _cubic_minimum(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new.copy(), gtd_new
        t = t_next
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket = _Bracket([0, t], [f, f_new], [g, g_new], [None, None])
    return _zoom(evaluate, bracket, d, f, gtd, (c1, c2, tolerance_change, max_ls), ls_iter,
                 evals)


def _zoom(evaluate, br, d, f, gtd, limits, ls_iter, evals):
    """Shrink the bracket until a step meets the strong Wolfe conditions."""
    c1, c2, tolerance_change, max_ls = limits
    d_norm = np.abs(d).max()
    insufficient = False
    low, high = br.order()
    done = False
    while not done and ls_iter < max_ls:
        if abs(br.t[1] - br.t[0]) * d_norm < tolerance_change:
            break
        t = _cubic_minimum(br.t[0], br.f[0], br.gtd[0], br.t[1], br.f[1], br.gtd[1])
        top, bottom = max(br.t), min(br.t)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:  # too close to an end: move away from it
            if insufficient or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insufficient = False
            else:
                insufficient = True
        else:
            insufficient = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= br.f[low]:
            br.set(high, t, f_new, g_new.copy(), gtd_new)
            low, high = br.order()
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (br.t[high] - br.t[low]) >= 0:
                br.set(high, br.t[low], br.f[low], br.g[low], br.gtd[low])
            br.set(low, t, f_new, g_new.copy(), gtd_new)
    return br.f[low], br.g[low], br.t[low], evals


class LBFGS(Optimizer):
    """L-BFGS (one parameter group). ``step(closure)`` runs up to ``max_iter`` iterations:
    the two-loop recursion over the last ``history_size`` (s, y) pairs gives the direction,
    then a fixed step ``lr`` (first: min(1, 1/|g|₁)·lr) or a strong-Wolfe line search."""

    _per_parameter_state = False

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if hasattr(lr, "numel") and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # ----- the flat view of all parameters -----
    def _flat_grad(self):
        return np.concatenate([p._grad.to_dense()._data.ravel() if p._grad is not None
                               else np.zeros(p._data.size, p._data.dtype) for p in self._params])

    def _add_step(self, t, d):
        offset = 0
        for p in self._params:
            n = p._data.size
            p._data += (d[offset:offset + n] * t).reshape(p._data.shape)
            p._vc[0] += 1
            offset += n

    def _evaluate(self, closure, x, d):
        """f(x + t d) and its flat gradient, leaving the parameters at x."""
        def evaluate(t):
            self._add_step(t, d)
            loss = float(closure())
            grad = self._flat_grad()
            for p, saved in zip(self._params, x):
                np.copyto(p._data, saved)
            return loss, grad
        return evaluate

    def step(self, closure):
        """Run one L-BFGS optimization step; ``closure`` re-evaluates and returns the loss."""
        def with_grad():
            with grad_mode.enable_grad():
                return closure()
        with grad_mode.no_grad():
            return self._run(with_grad)

    def _run(self, closure):
        group = self.param_groups[0]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = closure()
        loss = float(orig_loss)
        state["func_evals"] += 1
        flat_grad = self._flat_grad()
        if np.abs(flat_grad).max() <= group["tolerance_grad"]:
            return orig_loss
        mem = _Memory.load(state)
        self._iterate(closure, group, state, mem, loss, flat_grad)
        mem.store(state)
        return orig_loss

    def _iterate(self, closure, group, state, mem, loss, flat_grad):
        lr = float(group["lr"].item()) if isinstance(group["lr"], Tensor) else group["lr"]
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_change = group["tolerance_change"]
        evals, n_iter = 1, 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                mem.reset(flat_grad)
            else:
                mem.remember(flat_grad, group["history_size"])
                mem.direction(flat_grad, state.setdefault("al", [None] * group["history_size"]))
            mem.keep_gradient(flat_grad, loss)
            t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr if state["n_iter"] == 1 else lr
            mem.t = t
            gtd = flat_grad.dot(mem.d)
            if gtd > -tolerance_change:
                break
            loss, flat_grad, t, used, optimal = self._move(
                closure, group, mem, loss, flat_grad, t, gtd, max_eval - evals,
                last=n_iter == max_iter)
            mem.t = t
            evals += used
            state["func_evals"] += used
            if n_iter == max_iter or evals >= max_eval or optimal:
                break
            if np.abs(mem.d * t).max() <= tolerance_change:
                break
            if abs(loss - mem.prev_loss) < tolerance_change:
                break

    def _move(self, closure, group, mem, loss, flat_grad, t, gtd, max_ls, last):
        """Take the step along d: fixed length, or found by the line search."""
        line_search = group["line_search_fn"]
        if line_search is not None:
            if line_search != "strong_wolfe":
                raise RuntimeError("only 'strong_wolfe' is supported")
            x = [p._data.copy() for p in self._params]
            loss, flat_grad, t, used = _strong_wolfe(
                self._evaluate(closure, x, mem.d), t, mem.d, loss, flat_grad, gtd,
                max_ls=max_ls)
            self._add_step(t, mem.d)
            return loss, flat_grad, t, used, np.abs(flat_grad).max() <= group["tolerance_grad"]
        self._add_step(t, mem.d)
        if last:
            return loss, flat_grad, t, 0, False
        loss = float(closure())
        flat_grad = self._flat_grad()
        return loss, flat_grad, t, 1, np.abs(flat_grad).max() <= group["tolerance_grad"]


class _Memory:
    """The (s, y) history and the current direction, as arrays while a step runs."""

    KEYS = ("d", "t", "old_dirs", "old_stps", "ro", "H_diag", "prev_flat_grad", "prev_loss")

    @classmethod
    def load(cls, state):
        mem = cls()
        for key in cls.KEYS:
            setattr(mem, key, _to_array(state.get(key)))
        if "al" in state:
            state["al"] = _to_array(state["al"])
        return mem

    def store(self, state):
        for key in self.KEYS:
            state[key] = _to_tensor(getattr(self, key))
        if "al" in state:
            state["al"] = _to_tensor(state["al"])

    def reset(self, flat_grad):
        self.d = np.negative(flat_grad)
        self.old_dirs, self.old_stps, self.ro, self.H_diag = [], [], [], 1

    def remember(self, flat_grad, history_size):
        """Add the newest (s, y) pair when it keeps the curvature positive."""
        y = flat_grad - self.prev_flat_grad
        s = self.d * self.t
        ys = y.dot(s)
        if ys > 1e-10:
            if len(self.old_dirs) == history_size:
                for history in (self.old_dirs, self.old_stps, self.ro):
                    history.pop(0)
            self.old_dirs.append(y)
            self.old_stps.append(s)
            self.ro.append(1.0 / ys)
            self.H_diag = ys / y.dot(y)

    def direction(self, flat_grad, al):
        """The two-loop recursion: d = -H g with H from the history and H_diag."""
        q = np.negative(flat_grad)
        for i in range(len(self.old_dirs) - 1, -1, -1):
            al[i] = self.old_stps[i].dot(q) * self.ro[i]
            q -= self.old_dirs[i] * al[i]
        r = np.multiply(q, self.H_diag)
        for i in range(len(self.old_dirs)):
            be_i = self.old_dirs[i].dot(r) * self.ro[i]
            r += self.old_stps[i] * (al[i] - be_i)
        self.d = r

    def keep_gradient(self, flat_grad, loss):
        if self.prev_flat_grad is None:
            self.prev_flat_grad = flat_grad.copy()
        else:
            np.copyto(self.prev_flat_grad, flat_grad)
        self.prev_loss = loss


def _to_array(value):
    if isinstance(value, Tensor):
        return value._data if value._data.ndim else value._data[()]
    if isinstance(value, list):
        return [_to_array(v) for v in value]
    return value


def _to_tensor(value):
    if isinstance(value, (np.ndarray, np.generic)):
        return Tensor._make(np.asarray(value))
    if isinstance(value, list):
        return [_to_tensor(v) for v in value]
    return value
