"""Saved tensors (ember/autograd/_saved.py) against torch: ``grad_fn._saved_*`` identity and
freeing, packed tensors (unpack at each read, histories kept under create_graph, errors), raw
saved tensors with their own hooks, and the custom Function's save_for_backward."""
import gc
import weakref

import numpy as np
import pytest
import torch
from oracle import same_error

import ember


def _hooks(lib):
    return lib.autograd.graph.saved_tensors_hooks


def test_saved_input_is_the_same_object_saved_output_is_a_new_equal_one():
    for lib in (torch, ember):
        a = lib.randn(5, requires_grad=True)
        b = lib.ones(5, requires_grad=True) * 2
        y = a * b
        assert y.grad_fn._saved_self is a and y.grad_fn._saved_other is b
        e = lib.exp(a)
        saved = e.grad_fn._saved_result
        assert saved is not e and saved.equal(e) and saved.grad_fn is e.grad_fn


def test_saved_after_backward_raises_torch_error():
    same_error(lambda L: _freed(L, lambda a: a * a, "_saved_self"))
    same_error(lambda L: _freed(L, lambda a: a.exp(), "_saved_result"))
    same_error(lambda L: _freed(L, lambda a: a.exp(), "_saved_result", hooked=True))


def _freed(lib, op, name, hooked=False):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    if hooked:
        with _hooks(lib)(lambda t: t, lambda t: t):
            y = op(a)
    else:
        y = op(a)
    y.sum().backward()
    getattr(y.grad_fn, name)


def test_retain_graph_keeps_saved_values_and_non_tensor_values_stay():
    for lib in (torch, ember):
        a = lib.tensor([[1.0, 2.0]], requires_grad=True)
        y = a.sum(1)
        y.sum().backward()
        assert y.grad_fn._saved_dim == (1,) and y.grad_fn._saved_self_sym_sizes == (1, 2)
        z = a * a
        z.sum().backward(retain_graph=True)
        assert z.grad_fn._saved_self is a


def _numpy_roundtrip(lib, create_graph, hooked=True):
    """Hooks that keep a NumPy copy: gradients (and second derivatives) as without hooks."""
    calls = []

    def pack(t):
        calls.append("pack")
        return t.detach().numpy().copy()

    def unpack(array):
        calls.append("unpack")
        return lib.from_numpy(array)

    x = lib.tensor([0.3, -1.2, 2.0], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([1.5, 0.5, -2.0], dtype=lib.float64, requires_grad=True)
    with _hooks(lib)(pack, unpack) if hooked else lib.enable_grad():
        y = (x.sin() * w).tanh().pow(3).sum()
    gx, gw = lib.autograd.grad(y, (x, w), create_graph=create_graph)
    out = [gx.detach().numpy(), gw.detach().numpy()]
    if create_graph:
        out += [g.detach().numpy() for g in lib.autograd.grad(gx.sum(), (x, w))]
    return out, calls


@pytest.mark.parametrize("create_graph", [False, True])
def test_numpy_hooks_give_the_gradients_without_hooks_and_torch_call_counts(create_graph):
    got, calls = _numpy_roundtrip(ember, create_graph)
    plain, _ = _numpy_roundtrip(ember, create_graph, hooked=False)
    want, torch_calls = _numpy_roundtrip(torch, create_graph)
    for g, p, w in zip(got, plain, want):
        np.testing.assert_array_equal(g, p)
        np.testing.assert_allclose(g, w, rtol=1e-6)
    assert calls == torch_calls


def test_unpacked_tensor_carries_the_saved_tensors_history_under_create_graph():
    for lib in (torch, ember):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * 3
        with _hooks(lib)(lambda t: t.detach(), lambda t: t):  # the packed copy has no history
            y = (h * h).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        assert g.tolist() == [18.0, 36.0] and gg.tolist() == [18.0, 18.0]


def test_saved_read_under_hooks_unpacks_each_time_into_a_new_tensor():
    for lib in (torch, ember):
        unpacked = []
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        with _hooks(lib)(lambda t: t, lambda t: unpacked.append(t) or t):
            y = a.pow(2)
        first, second = y.grad_fn._saved_self, y.grad_fn._saved_self
        assert len(unpacked) == 2 and first is not a and first.equal(a)
        assert first.requires_grad and first.grad_fn is None and first is not second


def test_unpack_hook_must_return_a_tensor():
    same_error(lambda L: _bad_unpack(L, lambda y: y.sum().backward()))
    same_error(lambda L: _bad_unpack(L, lambda y: y.grad_fn._saved_self))


def _bad_unpack(lib, use):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    with _hooks(lib)(lambda t: 5, lambda packed: packed):
        y = a.sin()
    use(y)


def test_pack_hook_may_not_modify_its_input():
    def run(lib):
        b = lib.tensor([1.0, 2.0], requires_grad=True) * 1

        def pack(t):
            with lib.no_grad():
                t.mul_(2)
            return t

        with _hooks(lib)(pack, lambda t: t):
            b.sin()
    same_error(run)


def test_hooks_run_without_grad_mode_and_unpack_in_the_backward_mode():
    for lib in (torch, ember):
        modes = []

        def pack(t, modes=modes, lib=lib):
            modes.append(("pack", lib.is_grad_enabled()))
            return t

        def unpack(t, modes=modes, lib=lib):
            modes.append(("unpack", lib.is_grad_enabled()))
            return t

        a = lib.tensor([1.0, 2.0], requires_grad=True)
        with _hooks(lib)(pack, unpack):
            y = a.sin().sum()
        lib.autograd.grad(y, a, retain_graph=True)
        lib.autograd.grad(y, a, create_graph=True)
        assert modes == [("pack", False), ("unpack", False), ("unpack", True)]


def test_packed_objects_are_released_by_backward():
    for lib in (torch, ember):
        class Box:
            def __init__(self, t):
                self.t = t

        boxes = []

        def pack(t, boxes=boxes, Box=Box):
            box = Box(t)
            boxes.append(weakref.ref(box))
            return box

        a = lib.tensor([1.0, 2.0], requires_grad=True)
        with _hooks(lib)(pack, lambda box: box.t):
            y = (a * a).exp().sum()
        assert len(boxes) == 3 and all(b() is not None for b in boxes)
        y.backward()
        gc.collect()
        assert all(b() is None for b in boxes)


def test_in_place_op_after_a_hooked_save_keeps_the_old_values():
    def run(lib):
        x = lib.tensor([0.5, 1.0, 2.0], requires_grad=True)
        with _hooks(lib)(lambda t: t, lambda t: t):
            y = x * 1
            y.sin_()
            y.cos_()
        y.sum().backward()
        return x.grad.numpy()
    np.testing.assert_allclose(run(ember), run(torch), rtol=1e-6)


def _raw(lib):
    log = []
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    y = a.sin()
    raw = y.grad_fn._raw_saved_self
    raw.register_hooks(lambda t: log.append(("pack", t.tolist())) or t,
                       lambda t: log.append(("unpack", t.tolist())) or t)
    log.append(type(raw).__name__)
    y.sum().backward()
    return log, np.round(a.grad.numpy(), 6).tolist()


def test_raw_saved_register_hooks_packs_now_and_unpacks_in_backward():
    assert _raw(ember) == _raw(torch)


def test_raw_saved_hooks_only_once():
    def run(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        with _hooks(lib)(lambda t: t, lambda t: t):
            y = a.exp()
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
    same_error(run)


def _custom_function(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x ** 3
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * 3 * y / x

    log = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    with _hooks(lib)(lambda t: log.append(("pack", t.tolist())) or t,
                     lambda t: log.append(("unpack", t.tolist())) or t):
        y = Cube.apply(x)
    y.sum().backward()
    return log, x.grad.tolist()


def test_custom_function_save_for_backward_goes_through_the_hooks():
    assert _custom_function(ember) == _custom_function(torch)


def test_unknown_saved_name_is_an_attribute_error():
    y = ember.tensor([1.0], requires_grad=True).exp()
    with pytest.raises(AttributeError, match="'ExpBackward0' object has no attribute"):
        y.grad_fn._saved_self
    assert not hasattr(y.grad_fn, "_raw_saved_nothing")
    assert "_saved_result" in dir(y.grad_fn) and "_raw_saved_result" in dir(y.grad_fn)


def test_a_subclass_without_a_row_shows_no_parent_names():
    # ember's broadcasting matmul nodes subclass MmBackward0; torch's namesakes save no tensor
    for lib in (torch, ember):
        m = lib.ones(2, 2, requires_grad=True)
        fn = (m @ m[None].expand(3, 2, 2)).grad_fn
        assert fn.name() == "CloneBackward0"
        assert not hasattr(fn, "_saved_self") and not hasattr(fn, "_raw_saved_mat2")
        assert not [n for n in dir(fn) if n.startswith(("_saved_", "_raw_saved_"))]


def test_a_python_scalar_operand_is_saved_as_a_wrapped_number():
    for lib in (torch, ember):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        fn = (a * 2.5).grad_fn
        assert fn._saved_self is None
        assert fn._saved_other.dtype == lib.float64 and fn._saved_other.item() == 2.5
        for fn in ((a * 2).grad_fn, (a / 255).grad_fn):
            assert fn._saved_other.dtype == lib.int64 and fn._saved_other.ndim == 0


def _linear_grads(lib, hooked):
    lib.manual_seed(0)
    layer = lib.nn.Linear(3, 2, dtype=lib.float64)
    x = lib.randn(4, 3, dtype=lib.float64, requires_grad=True)
    shapes = []
    hooks = _hooks(lib)(lambda t: shapes.append(tuple(t.shape)) or t.detach().clone(),
                        lambda t: t)
    with hooks if hooked else lib.enable_grad():
        y = layer(x).tanh().sum()
    gx, gw = lib.autograd.grad(y, (x, layer.weight), create_graph=True)
    (ggx,) = lib.autograd.grad((gx * gx).sum() + gw.sum(), x)
    return [g.detach().numpy() for g in (gx, gw, ggx)], shapes


def test_linear_weight_is_packed_transposed_as_torch_and_gradients_stay():
    got, shapes = _linear_grads(ember, hooked=True)
    plain, _ = _linear_grads(ember, hooked=False)
    want, torch_shapes = _linear_grads(torch, hooked=True)
    assert shapes == torch_shapes == [(4, 3), (3, 2), (4, 2)]
    for g, p, w in zip(got, plain, want):
        np.testing.assert_array_equal(g, p)
        np.testing.assert_allclose(g, w, rtol=1e-10)


def test_raw_saved_value_none_cannot_get_hooks():
    def run(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        fn = (a * lib.tensor([3.0, 4.0])).grad_fn  # self is not saved: other needs no grad
        fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    same_error(run)


def test_raw_saved_after_backward_raises_freed():
    def run(lib):
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        y = a.exp()
        raw = y.grad_fn._raw_saved_result
        y.sum().backward()
        raw.register_hooks(lambda t: t, lambda t: t)
    same_error(run)
