"""Window functions against torch: float64 windows equal torch's, float32 within an ulp or two
(torch's float32 cosine rounds otherwise than NumPy's), errors and options as torch."""
import numpy as np
import pytest
import torch
from oracle import same_error

import ember

NAMES = ["hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window"]
LENGTHS = [0, 1, 2, 3, 5, 10, 64, 401]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("periodic", [True, False])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_windows(name, periodic, dtype):
    for n in LENGTHS:
        e = getattr(ember, name)(n, periodic, dtype=getattr(ember, dtype))
        t = getattr(torch, name)(n, periodic, dtype=getattr(torch, dtype))
        assert e.dtype == getattr(ember, dtype) and tuple(e.shape) == tuple(t.shape)
        tol = 1e-12 if dtype == "float64" else 2e-7
        if name == "kaiser_window" and dtype == "float32":
            tol = 2e-6  # torch's float32 Bessel I0 is not NumPy's float64 one rounded
        np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=tol, atol=tol)


def test_float64_cosine_windows_are_bit_exact():
    for name in ("hann_window", "bartlett_window"):
        for n in (7, 64, 400):
            e = getattr(ember, name)(n, dtype=ember.float64).numpy()
            t = getattr(torch, name)(n, dtype=torch.float64).numpy()
            assert np.count_nonzero(e != t) <= max(1, n // 100), name


def test_options():
    np.testing.assert_allclose(ember.hamming_window(9, False, 0.6, 0.3).numpy(),
                               torch.hamming_window(9, False, 0.6, 0.3).numpy(), rtol=2e-7)
    np.testing.assert_allclose(ember.kaiser_window(9, True, 5.0).numpy(),
                               torch.kaiser_window(9, True, 5.0).numpy(), rtol=2e-6)
    w = ember.hann_window(4, requires_grad=True)
    assert w.requires_grad and w.is_leaf and w.dtype == ember.float32
    assert ember.hann_window(4).dtype == ember.get_default_dtype()


@pytest.mark.parametrize("call", [lambda m: m.hann_window(-1),
                                  lambda m: m.blackman_window(2.5)])
def test_errors(call):
    same_error(call)


@pytest.mark.parametrize("name,dtype", [("hann_window", "long"), ("kaiser_window", "int32")])
def test_integer_dtype_is_refused(name, dtype):
    for lib in (torch, ember):  # torch spells the dtype inside its TensorOptions repr
        with pytest.raises(RuntimeError, match=f"{name} expects floating point dtypes, got: "):
            getattr(lib, name)(4, dtype=getattr(lib, dtype))
