"""Custom autograd.Function (ember/autograd/function.py): ctx, saved tensors, flags, errors."""
import numpy as np
import pytest
import torch
from oracle import close, same_error

import ember


def make_cube(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            return x ** 3 * scale

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x ** 2 * ctx.scale, None
    return Cube


def test_forward_backward_and_grad_fn_name():
    data = np.array([1.0, -2.0, 0.5])
    res = []
    for lib in (ember, torch):
        x = lib.tensor(data, requires_grad=True)
        y = make_cube(lib).apply(x, 2.0)
        y.sum().backward()
        res.append((y, x.grad))
        assert type(y.grad_fn).__name__ == "CubeBackward"
    close(res[0], res[1])


def test_double_backward_through_custom_function():
    data = np.array([1.0, -2.0, 0.5])
    res = []
    for lib in (ember, torch):
        x = lib.tensor(data, requires_grad=True)
        (g,) = lib.autograd.grad(make_cube(lib).apply(x, 1.5).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        res.append((g, gg))
    close(res[0], res[1])


def test_needs_input_grad():
    seen = []
    for lib in (ember, torch):
        class Probe(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b, k):
                return a * b

            @staticmethod
            def backward(ctx, grad):
                seen.append(tuple(ctx.needs_input_grad))
                return grad, grad, None
        a = lib.tensor([1.0], requires_grad=True)
        b = lib.tensor([2.0])
        Probe.apply(a, b, 3).sum().backward()
    assert seen[0] == seen[1] == (True, False, False)


def test_mark_non_differentiable():
    for lib in (ember, torch):
        class SortIdx(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                idx = x.argsort() if hasattr(x, "argsort") else None
                out = x * 2
                mask = x > 0
                ctx.mark_non_differentiable(mask)
                return out, mask, idx

            @staticmethod
            def backward(ctx, g_out, g_mask, g_idx):
                return g_out * 2
        x = lib.tensor([1.0, -1.0], requires_grad=True)
        out, mask, _ = SortIdx.apply(x)
        assert out.requires_grad and not mask.requires_grad
        out.sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]


def test_returning_wrong_number_of_gradients():
    messages = []
    for lib in (torch, ember):
        class Bad(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad, grad
        x = lib.tensor([1.0], requires_grad=True)
        with pytest.raises(RuntimeError) as err:
            Bad.apply(x).sum().backward()
        messages.append(str(err.value))
    assert messages[1] == messages[0]


def test_saved_tensor_modified_in_place_is_detected():
    for lib in (torch, ember):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * 1
        y = make_cube(lib).apply(h, 1.0)
        h.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_setup_context_style():
    for lib in (ember, torch):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(x):
                return x * x

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_backward(inputs[0])

            @staticmethod
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return 2 * x * grad
        x = lib.tensor([3.0], requires_grad=True)
        Square.apply(x).backward()
        assert x.grad.item() == 6.0


def test_no_graph_when_inputs_do_not_require_grad():
    y = make_cube(ember).apply(ember.tensor([2.0]), 1.0)
    assert not y.requires_grad and y.grad_fn is None
    with ember.no_grad():
        y = make_cube(ember).apply(ember.tensor([2.0], requires_grad=True), 1.0)
    assert y.grad_fn is None


def test_save_for_backward_rejects_non_tensors():
    class Bad(ember.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x

    with pytest.raises(TypeError, match="save_for_backward can only save variables"):
        Bad.apply(ember.tensor([1.0], requires_grad=True))


# ---------------------------------------------------------------- forward mode: Function.jvp


def make_forward_only(lib):
    class MulScale(lib.autograd.Function):
        """(x * y * k, x + 1) with a jvp and no backward (the tutorial's pattern)."""

        @staticmethod
        def forward(ctx, x, y, k):
            ctx.save_for_forward(x, y)
            ctx.k = k
            ctx.sees_tangent = lib.autograd.forward_ad.unpack_dual(x).tangent is not None
            return x * y * k, x + 1

        @staticmethod
        def jvp(ctx, gx, gy, gk):
            x, y = ctx.saved_tensors
            assert gk is None and not ctx.sees_tangent
            return (gx * y + gy * x) * ctx.k, gx
    return MulScale


def _jvp_outputs(lib, cls, x, y, tx):
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        outs = cls.apply(fw.make_dual(lib.tensor(x), lib.tensor(tx)), lib.tensor(y), 2.0)
        return [[t.numpy() for t in fw.unpack_dual(o)] for o in outs]


def test_function_jvp_matches_torch():
    x, y, tx = np.array([1.0, -2.0, 0.5]), np.array([0.3, 0.2, -1.0]), np.array([1.0, 2.0, 3.0])
    expected = _jvp_outputs(torch, make_forward_only(torch), x, y, tx)
    got = _jvp_outputs(ember, make_forward_only(ember), x, y, tx)
    for g, e in zip(got, expected):
        close(g[0], e[0])
        close(g[1], e[1])


def _bad_jvp(lib, result):
    class Bad(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def jvp(ctx, g):
            return result(g)
    return Bad


@pytest.mark.parametrize("make", [
    lambda lib: _bad_jvp(lib, lambda g: g[:2]),
    lambda lib: _bad_jvp(lib, lambda g: (g, g)),
    lambda lib: make_cube(lib),
], ids=["wrong_size", "wrong_count", "no_jvp"])
def test_function_jvp_errors_as_torch(make):
    seen = []
    for lib in (torch, ember):
        fw = lib.autograd.forward_ad
        with fw.dual_level(), pytest.raises((RuntimeError, NotImplementedError)) as info:
            args = (fw.make_dual(lib.ones(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)),)
            make(lib).apply(*args + ((2.0,) if make(lib).__name__ == "Cube" else ()))
        seen.append((type(info.value), str(info.value)))
    assert seen[1][0].__name__ == seen[0][0].__name__ and seen[1][1] == seen[0][1]


def test_function_without_tangent_inputs_needs_no_jvp():
    fw = ember.autograd.forward_ad
    with fw.dual_level():
        out = make_cube(ember).apply(ember.ones(2, dtype=ember.float64), 2.0)
    assert fw.unpack_dual(out).tangent is None


def test_mark_dirty_on_a_leaf_that_requires_grad_raises_as_torch():
    # ember let a custom Function modify a leaf in place and connected it silently
    def run(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                return x.mul_(2)

            @staticmethod
            def backward(ctx, g):
                return 2 * g
        x = lib.ones(2, requires_grad=True)
        Double.apply(x)
    same_error(run)


def test_mark_dirty_on_a_non_leaf_still_works_as_torch():
    grads = []
    for lib in (ember, torch):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                return x.mul_(2)

            @staticmethod
            def backward(ctx, g):
                return 2 * g
        x = lib.ones(2, requires_grad=True)
        Double.apply(x.clone()).sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1]


def test_a_bfloat16_output_is_differentiable_as_torch():
    """(ember left a custom Function's bfloat16 output without grad_fn: its gradient was lost,
    silently, e.g. for any custom Function inside autocast('cpu'))"""
    grads = []
    for lib in (torch, ember):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return (x * 2).to(lib.bfloat16)

            @staticmethod
            def backward(ctx, g):
                return g.float() * 2

        x = lib.ones(3, requires_grad=True)
        out = Double.apply(x)
        assert out.requires_grad and out.grad_fn is not None
        out.float().sum().backward()
        grads.append(x.grad.tolist())
    assert grads[1] == grads[0]


def test_calling_an_instance_raises_the_legacy_error_as_torch():
    # old-style code: Function instantiated, then called; ember said the object was not callable
    def run(lib):
        class Legacy(lib.autograd.Function):
            def forward(self, x):
                return x
        with pytest.warns(DeprecationWarning, match="should not be instantiated"):
            function = Legacy()
        function(lib.ones(2))
    same_error(run)
