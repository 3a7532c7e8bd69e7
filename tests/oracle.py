"""Shared test helper: run the same op in ember and in torch (the oracle) on copied inputs and
compare forward values, gradients and gradients of gradients."""
import numpy as np
import pytest
import torch

import ember


def to_torch(x, requires_grad=False):
    t = torch.tensor(np.asarray(x._data if isinstance(x, ember.Tensor) else x))
    return t.requires_grad_(requires_grad) if requires_grad else t


def close(e, t, rtol=1e-5, atol=1e-6, what="value"):
    """Assert an ember result equals a torch result (tensors, tuples or numbers)."""
    if isinstance(t, (tuple, list)):
        assert len(e) == len(t), f"{what}: {len(e)} results vs torch's {len(t)}"
        for a, b in zip(e, t):
            close(a, b, rtol, atol, what)
        return
    if t is None or e is None:  # an absent gradient equals an all-zero one
        other = e if t is None else t
        if other is not None:
            data = other._data if isinstance(other, ember.Tensor) else other.detach().numpy()
            assert not np.any(data), f"{what}: None on one side, nonzero values on the other"
        return
    ea = e._data if isinstance(e, ember.Tensor) else np.asarray(e)
    if isinstance(t, torch.Tensor) and t._is_zerotensor():
        t = torch.zeros(t.shape, dtype=t.dtype)
    ta = t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t)
    assert ea.shape == ta.shape, f"{what}: shape {ea.shape} vs torch {ta.shape}"
    if isinstance(e, ember.Tensor) and isinstance(t, torch.Tensor):
        assert str(e.dtype).split(".")[1] == str(t.dtype).split(".")[1], \
            f"{what}: dtype {e.dtype} vs torch {t.dtype}"
    np.testing.assert_allclose(ea, ta, rtol=rtol, atol=atol, err_msg=what, equal_nan=True)


def check(fn, *inputs, grad=True, second=True, rtol=1e-5, atol=1e-6, torch_fn=None,
          grad_inputs=None, same_grad_fn=True):
    """fn(lib, *tensors) is run with lib=ember and lib=torch; compares values and derivatives.

    ``inputs`` are NumPy arrays (copied into both libraries); floating ones require grad.
    ``same_grad_fn=False``: a composite whose last node torch names otherwise.
    """
    torch_fn = torch_fn or fn
    grad_inputs = grad_inputs if grad_inputs is not None else [
        np.asarray(a).dtype.kind == "f" for a in inputs]
    e_in = [ember.tensor(np.array(a), requires_grad=bool(g and grad))
            for a, g in zip(inputs, grad_inputs)]
    t_in = [to_torch(np.array(a), bool(g and grad)) for a, g in zip(inputs, grad_inputs)]
    e_out, t_out = fn(ember, *e_in), torch_fn(torch, *t_in)
    close(e_out, t_out, rtol, atol, "forward")
    if not grad or not isinstance(t_out, torch.Tensor) or not t_out.requires_grad:
        return e_out
    if same_grad_fn and isinstance(t_out, torch.Tensor) and t_out.grad_fn is not None:
        assert type(e_out.grad_fn).__name__ == type(t_out.grad_fn).__name__, \
            f"grad_fn {type(e_out.grad_fn).__name__} vs torch {type(t_out.grad_fn).__name__}"
    rng = np.random.default_rng(1)
    seed = rng.standard_normal(t_out.shape).astype(np.asarray(e_out._data).dtype)
    e_diff = [x for x in e_in if x.requires_grad]
    t_diff = [x for x in t_in if x.requires_grad]
    e_g = ember.autograd.grad(e_out, e_diff, ember.tensor(seed), create_graph=second,
                              allow_unused=True)
    t_g = torch.autograd.grad(t_out, t_diff, torch.tensor(seed), create_graph=second,
                              allow_unused=True)
    close(e_g, t_g, rtol, atol, "gradient")
    if not second:
        return e_out
    pairs = [(a, b) for a, b in zip(e_g, t_g) if b is not None and b.requires_grad]
    if not pairs:
        return e_out
    vs = [rng.standard_normal(tuple(b.shape)).astype(np.asarray(a._data).dtype) for a, b in pairs]
    e_s = ember.stack([(a * ember.tensor(v)).sum() for (a, _), v in zip(pairs, vs)]).sum()
    t_s = torch.stack([(b * torch.tensor(v)).sum() for (_, b), v in zip(pairs, vs)]).sum()
    e_gg = (ember.autograd.grad(e_s, e_diff, allow_unused=True) if e_s.requires_grad
            else (None,) * len(e_diff))
    t_gg = torch.autograd.grad(t_s, t_diff, allow_unused=True)
    close([g for g in e_gg], [g for g in t_gg], rtol * 10, atol * 10, "second derivative")
    return e_out


def kinkless(shape, seed=0):
    """Float64 normal draws (x2) kept away from 0, the kink of relu-like functions, where
    one-sided derivatives differ."""
    x = np.random.default_rng(seed).standard_normal(shape) * 2
    x[np.abs(x) < 1e-3] = 0.5
    return x


def pair(values, requires_grad=True, dtype=np.float64):
    data = np.asarray(values, dtype=dtype)
    return (ember.tensor(data, requires_grad=requires_grad),
            torch.tensor(data, requires_grad=requires_grad))


def both_raise(fn_e, fn_t, exc=RuntimeError):
    """Both libraries raise ``exc`` with the same message (torch's 'torch.' names mapped)."""
    with pytest.raises(exc) as te:
        fn_t()
    with pytest.raises(exc) as ee:
        fn_e()
    assert str(ee.value) == str(te.value).replace("torch.", "ember.")


def same_error(call, first_line=False):
    """``call(lib)`` raises the same exception type and message under torch and ember (with
    ``first_line``, the message's first line: torch's TypeErrors list signatures after it)."""
    caught = []
    for lib in (torch, ember):
        with pytest.raises(Exception) as info:
            call(lib)
        message = str(info.value).split("\n")[0] if first_line else str(info.value)
        caught.append((info.type, message.replace("torch.", "ember.")))
    assert caught[1] == caught[0]


def same_tree(a, b, tol=1e-5):
    """Equal nested tuples / lists / dicts of tensors, ember's against torch's: structure,
    shapes, values and requires_grad."""
    if isinstance(b, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            same_tree(x, y, tol)
    elif isinstance(b, dict):
        assert isinstance(a, dict) and list(a) == list(b)
        for k in b:
            same_tree(a[k], b[k], tol)
    else:
        assert isinstance(a, ember.Tensor) and tuple(a.shape) == tuple(b.shape)
        assert a.requires_grad == b.requires_grad
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def both_trees(run):
    """run(lib) under ember and torch, the results compared by same_tree; (ours, theirs)."""
    ours, theirs = run(ember), run(torch)
    same_tree(ours, theirs)
    return ours, theirs


def wide_inputs(dtype, n=100_000, seed=0):
    """n values of ``dtype`` over many scales, with edge values (zeros of both signs, +-1, +-3,
    tiny and huge): for gradient formulas checked to the bit."""
    rng = np.random.default_rng(seed)
    scaled = rng.standard_normal(n - 2000) * rng.choice([0.01, 1, 10, 100], n - 2000)
    edges = np.resize([0, -0.0, 1, -1, 3, -3, 2.9999, 1e-30, -1e-30, 50, -50, 1e10, -1e10], 1000)
    return np.concatenate([scaled, rng.uniform(-5, 5, 1000), edges]).astype(dtype)


def gradient_bits(fn, x, g, key=None, create_graph=False, least=0.75):
    """ember's and torch's gradients of fn(lib, x) for the output gradient g, where ``key``
    (fn(lib, x) -> values the formula reads, e.g. tanh(x), shaped as x; or a tuple of them)
    agrees between the two, so that a
    formula is compared apart from the machine's own exp/tanh kernels (``least``: the share of
    inputs where it must agree); with ``create_graph``, ember's gradient is taken recording its
    graph (the tensor math)."""
    grads, keys = [], []
    for lib in (ember, torch):
        t = lib.tensor(x, requires_grad=True)
        y = fn(lib, t)
        go = lib.tensor(g[:y.numel()]).reshape(y.shape)
        graph = create_graph and lib is ember
        (grad,) = lib.autograd.grad(y, t, go, create_graph=graph)
        grads.append(grad.detach().numpy())
        values = key(lib, lib.tensor(x)) if key is not None else lib.zeros(x.shape)
        keys.append(np.stack([v.detach().numpy() for v in (
            values if isinstance(values, tuple) else (values,))]))
    agree = ((keys[0] == keys[1]) | (np.isnan(keys[0]) & np.isnan(keys[1]))).all(0)
    assert agree.mean() > least, "the forward kernels disagree too often to compare formulas"
    return grads[0][agree], grads[1][agree]


def assert_formula_bits(fn, key, dtype, least=0.3):
    """fn's gradient equals torch's to the bit on wide_inputs, taken plainly and recording
    ember's graph, where ``key``'s forward values agree (see gradient_bits)."""
    x, g = wide_inputs(dtype), wide_inputs(dtype, seed=1)[::-1].copy()
    for create_graph in (False, True):
        np.testing.assert_array_equal(*gradient_bits(fn, x, g, key, create_graph, least=least))


def special_inputs(dtype, n=3 * 4096 + 77, seed=0):
    """n values of ``dtype``: half of them IEEE edge values (zeros of both signs, NaNs with
    payloads, infinities, subnormals, +-0.5, +-1, +-6, -100), shuffled among normal draws (x4):
    for element-wise ops whose large arrays run in blocks (ember.ops.elementwise._against)."""
    edges = np.array([-0.0, 0.0, np.nan, -np.nan, np.inf, -np.inf, 1.0, -1.0, 1e-45, -1e-45,
                      0.5, -0.5, 6.0, -6.0, 3.0, -3.0, 20.0, -100.0], np.float32)
    payloads = np.array([0x7fc00001, 0xffc12345], np.uint32).view(np.float32)
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n).astype(np.float32) * 4
    x[:n // 2] = np.resize(np.concatenate([edges, payloads]), n // 2)
    rng.shuffle(x)
    with np.errstate(invalid="ignore", over="ignore"):
        return x.astype(dtype)


def _blocks_run(lib, fn, x, layout="contiguous", grad=False):
    """fn(lib, t) for x laid out as ``layout``, and with ``grad`` its gradient for 0.75s."""
    t = lib.tensor(x, requires_grad=grad)
    if layout == "transposed":
        t = t.reshape(-1, 16).t().contiguous().t()
    elif layout == "channels_last":
        t = t.reshape(-1, 4, 2, 2).contiguous(memory_format=lib.channels_last)
    y = fn(lib, t)
    if not grad:
        return y.detach(), None
    (g,) = lib.autograd.grad(y, t, lib.full_like(y, 0.75))
    return y.detach(), g


def assert_blocks_bits(fn, dtype, layout="contiguous", rtol=0.0, atol=0.0, nan_bits=True,
                       x=None, grad=False):
    """fn(lib, t) (and with ``grad`` its gradient) over a large array, x or special_inputs (the
    block path), has the bits ember gives on slices below the block threshold (NaN payloads and
    zeros' signs included); its value is laid out as torch's and has torch's values (to ``rtol``,
    ``atol``; NaN where torch's is; zeros' signs and NaN payloads apart: known gaps of clamp,
    maximum and softshrink, the same on any size). ``nan_bits`` False: NaN only as NaN (a
    formula adding two NaNs gets either's bits, as NumPy runs its loops, on any path)."""
    x = special_inputs(dtype, n=3 * 4096 + 80) if x is None else x
    ours, theirs = (_blocks_run(lib, fn, x, layout, grad) for lib in (ember, torch))
    assert ours[0].stride() == theirs[0].stride()
    parts = [_blocks_run(ember, fn, x[i:i + 1000], grad=grad) for i in range(0, x.size, 1000)]
    for k, (got, want) in enumerate(zip(ours, theirs)):
        if got is None:
            continue
        got, want = got.contiguous().numpy().reshape(-1), want.contiguous().numpy().reshape(-1)
        small = np.concatenate([part[k].numpy().reshape(-1) for part in parts])
        if not nan_bits:
            got, small = (np.where(np.isnan(a), np.nan, a).astype(a.dtype) for a in (got, small))
        bits = np.dtype(f"u{got.dtype.itemsize}")
        np.testing.assert_array_equal(got.view(bits), small.view(bits))
        if k == 0:  # (the gradients' formulas are checked against torch's elsewhere)
            np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
