"""Autograd misuse that torch refuses: hooks returning a gradient of another shape or dtype (or
no tensor), custom Functions returning bad gradients or saving non-tensors, inference tensors in
a recorded graph. Each case runs on ember and torch: same exception type, same message (the
'torch.' of type names read 'ember.')."""
import numpy as np
import pytest
import torch

import ember


def _raised(lib, case):
    try:
        case(lib)
    except Exception as error:  # noqa: BLE001  (the type is what is compared)
        return type(error), str(error).replace("torch.", "ember.")
    return None


def _same_as_torch(case):
    expected = _raised(torch, case)
    assert expected is not None, "torch accepts this case"
    assert _raised(ember, case) == expected


HOOK_RESULTS = {
    "shape": lambda lib, g: lib.ones(4),
    "dtype": lambda lib, g: g.double(),
    "int_dtype": lambda lib, g: g.long(),
    "float": lambda lib, g: 3.0,
    "list": lambda lib, g: [1.0, 2.0, 3.0],
}


@pytest.mark.parametrize("leaf", [True, False], ids=["leaf", "non_leaf"])
@pytest.mark.parametrize("result", list(HOOK_RESULTS))
def test_tensor_hook_must_keep_the_gradient_type(result, leaf):
    def case(lib):
        x = lib.ones(3, requires_grad=True)
        y = x if leaf else x * 2

        def replace(g):
            return HOOK_RESULTS[result](lib, g)
        y.register_hook(replace)
        (y * 3).sum().backward()
    _same_as_torch(case)


def _function(lib, backward, save=None):
    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            if save is not None:
                ctx.save_for_backward(*save(x))
            return x * k

        @staticmethod
        def backward(ctx, g):
            return backward(lib, g)
    return Scale


FUNCTION_BACKWARDS = {
    "wrong_shape": lambda lib, g: (lib.ones(5), None),
    "grad_for_a_number": lambda lib, g: (g * 2, lib.ones(1)),
    "not_a_tensor": lambda lib, g: (3.0, None),
}


@pytest.mark.parametrize("name", list(FUNCTION_BACKWARDS))
def test_function_backward_gradients_are_checked(name):
    def case(lib):
        x = lib.ones(3, requires_grad=True)
        _function(lib, FUNCTION_BACKWARDS[name]).apply(x, 2.0).sum().backward()
    _same_as_torch(case)


def test_function_gradient_that_broadcasts_is_summed():
    """A gradient of a shape the input broadcasts to is accepted and summed, as torch."""
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        _function(lib, lambda lib, g: (lib.ones(2, 3), None)).apply(x, 2.0).sum().backward()
        return x.grad.tolist()
    assert run(ember) == run(torch)


def test_save_for_backward_of_a_number():
    def case(lib):
        x = lib.ones(3, requires_grad=True)
        _function(lib, lambda lib, g: (g, None), save=lambda x: (x, 3)).apply(x, 2.0)
    _same_as_torch(case)


def _inference_tensor(lib):
    with lib.inference_mode():
        return lib.ones(3)


INFERENCE_MISUSE = {
    "saved_by_mul": lambda lib, a: (a * lib.ones(3, requires_grad=True)).sum().backward(),
    "saved_by_mm": lambda lib, a: (a.reshape(1, 3) @ lib.ones(3, 2, requires_grad=True)),
    "add_": lambda lib, a: a.add_(1),
    "mul_": lambda lib, a: a.mul_(lib.ones(3)),
    "requires_grad_": lambda lib, a: a.requires_grad_(True),
}


@pytest.mark.parametrize("name", list(INFERENCE_MISUSE))
def test_inference_tensors_stay_out_of_autograd(name):
    _same_as_torch(lambda lib: INFERENCE_MISUSE[name](lib, _inference_tensor(lib)))


def test_inplace_on_an_inference_tensor_changes_nothing_when_refused():
    a = _inference_tensor(ember)
    with pytest.raises(RuntimeError):
        a.add_(1)
    assert a.tolist() == [1.0, 1.0, 1.0]


def test_inference_tensors_work_inside_inference_mode_and_through_unsaved_ops():
    def run(lib):
        a = _inference_tensor(lib)
        with lib.inference_mode():
            a.add_(1)
        w = lib.ones(3, requires_grad=True)
        (w.sin() + a.exp()).sum().backward()  # a is not saved: allowed
        return a.tolist(), w.grad.tolist()
    (e_a, e_grad), (t_a, t_grad) = run(ember), run(torch)
    assert e_a == t_a
    np.testing.assert_allclose(e_grad, t_grad, rtol=1e-6)
