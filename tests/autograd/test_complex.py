"""torch's complex gradient convention for ops whose formulas are written for real numbers
(ember/autograd/_complex.py): conj(backward(conj(g))), checked against torch."""
import numpy as np
import torch

import ember
from ember.autograd import _complex

R = np.random.default_rng(1)
Z = R.standard_normal((3, 3)) + 1j * R.standard_normal((3, 3))


def _grads(lib, fn, create_graph=False):
    z = lib.tensor(Z.copy(), requires_grad=True)
    w = lib.tensor(Z.T.copy() * 0.5, requires_grad=True)
    out = fn(lib, z, w)
    loss = (out.abs() ** 2).sum() + out.real.sum() * 0.5
    return lib.autograd.grad(loss, (z, w), create_graph=create_graph)


def _same(fn, create_graph=False):
    ours, theirs = _grads(ember, fn, create_graph), _grads(torch, fn, create_graph)
    for a, b in zip(ours, theirs):
        assert a.dtype.is_complex
        np.testing.assert_allclose(a.detach().numpy(), b.detach().resolve_conj().numpy(),
                                   rtol=1e-10)
    return ours, theirs


def test_holomorphic_chain_matches_torch():
    _same(lambda L, z, w: L.exp(z @ w) / (1 + z * w) - L.log(w).mean())


def test_the_convention_holds_under_create_graph():
    for lib in (ember, torch):
        z = lib.tensor(Z.copy(), requires_grad=True)
        (g,) = lib.autograd.grad((z * z * z).abs().sum(), z, create_graph=True)
        (gg,) = lib.autograd.grad((g.abs() ** 2).sum(), z)
        if lib is ember:
            mine = gg.numpy()
        else:
            np.testing.assert_allclose(mine, gg.numpy(), rtol=1e-9)


def test_is_complex_grad_sees_arrays_tensors_and_lists():
    assert _complex.is_complex_grad(np.zeros(2, np.complex64))
    assert not _complex.is_complex_grad(np.zeros(2, np.float32))
    assert _complex.is_complex_grad([None, ember.zeros(2, dtype=ember.cfloat)])
    assert not _complex.is_complex_grad([None, ember.zeros(2)])


def test_a_real_input_gets_the_real_part_of_a_complex_gradient():
    for lib in (ember, torch):
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        (x * lib.tensor([1 + 2j, 3 - 1j])).abs().sum().backward()
        assert x.grad.dtype == lib.float32
        if lib is ember:
            mine = x.grad.numpy()
    np.testing.assert_allclose(mine, x.grad.numpy(), rtol=1e-6)


def test_custom_function_sees_torchs_gradient_unchanged():
    for lib in (torch, ember):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, z):
                return z * 2

            @staticmethod
            def backward(ctx, g):
                ctx.seen = g
                return g * 2
        z = lib.tensor([1 + 1j], requires_grad=True)
        lib.view_as_real(Scale.apply(z)).sum().backward()
        assert z.grad.tolist() == [2 + 2j]  # g = 1 + 1j, returned doubled as it is
