"""Custom autograd.Function (ember/autograd/function.py): ctx, saved tensors, flags, errors."""
import numpy as np
import pytest
import torch
from oracle import close

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
