"""special_ops: the dtype refusals and the ops torch gives no derivative, as torch."""
import pytest
import torch
from oracle import same_error

import ember
from ember.ops import special_ops


def test_refuse_dtype_message():
    with pytest.raises(NotImplementedError, match="\"ndtri_cpu\" not implemented for 'Half'"):
        special_ops.refuse_dtype("ndtri_cpu", ember.float16)
    special_ops.refuse_dtype("i0e_cpu", ember.float16, reduced=False)  # accepted
    with pytest.raises(NotImplementedError, match="'ComplexFloat'"):
        special_ops.refuse_dtype("i0e_cpu", ember.complex64, reduced=False)


def test_ops_without_derivative_as_torch():
    for name in ("bessel_j0", "modified_bessel_k1"):
        x = ember.tensor([0.5, 2.0], requires_grad=True)
        t = torch.tensor([0.5, 2.0], requires_grad=True)
        e, w = getattr(ember.special, name)(x), getattr(torch.special, name)(t)
        assert e.requires_grad == w.requires_grad is False
        assert e.dtype == ember.float32
    for lib in (torch, ember):
        assert lib.special.chebyshev_polynomial_t(lib.tensor([0.5]), 3).dtype == lib.float32
        assert lib.special.hermite_polynomial_h(2.0, lib.tensor([2])).tolist() == [14.0]
    same_error(lambda lib: lib.special.chebyshev_polynomial_t(0.5, 3), first_line=True)
    same_error(lambda lib: lib.special.zeta(lib.tensor([2.0, 3.0]), lib.tensor([1.0, 2.0, 3.0])))
