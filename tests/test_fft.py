"""torch.fft (ember/fft.py) against torch: values, dtypes, gradients (and gradients of
gradients) in torch's complex convention, the helpers, and the errors."""
import numpy as np
import pytest
import torch

import ember
from tests.oracle import same_error

R = np.random.default_rng(2)
REAL = R.standard_normal((4, 6))
CPLX = R.standard_normal((4, 6)) + 1j * R.standard_normal((4, 6))


def _loss(lib, out, weights):
    """Weighted parts and squares: a loss whose gradient still depends on the input."""
    parts = lib.view_as_real(out.resolve_conj()) if out.is_complex() else out
    w = lib.tensor(weights[: parts.numel()].reshape(parts.shape))
    return (parts * w + parts * parts * w.flip(-1)).sum()


def _compare(call, array, dtype, second=True):
    results = []
    weights = R.standard_normal(200)
    for lib in (ember, torch):
        x = lib.tensor(array.astype(dtype), requires_grad=True)
        out = call(lib, x)
        (g,) = lib.autograd.grad(_loss(lib, out, weights), x, create_graph=second)
        gg = lib.autograd.grad(_loss(lib, g, weights[3:]), x)[0] if second else g
        results.append([str(out.dtype)[6:], out.detach().resolve_conj().numpy(),
                        g.detach().resolve_conj().numpy(), gg.resolve_conj().numpy()])
    (dt, *ours), (tdt, *theirs) = results
    assert dt == tdt
    tol = 1e-4 if dtype in (np.float32, np.complex64) else 1e-10
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


CALLS = {
    "fft": lambda L, x: L.fft.fft(x),
    "fft_n_pad_ortho": lambda L, x: L.fft.fft(x, n=9, dim=0, norm="ortho"),
    "fft_n_cut_forward": lambda L, x: L.fft.fft(x, n=4, norm="forward"),
    "ifft": lambda L, x: L.fft.ifft(x, dim=0),
    "ifft_n": lambda L, x: L.fft.ifft(x, n=7, norm="ortho"),
    "fft2": lambda L, x: L.fft.fft2(x),
    "ifft2_s": lambda L, x: L.fft.ifft2(x, s=(3, 8)),
    "fftn": lambda L, x: L.fft.fftn(x, norm="forward"),
    "ifftn_dim": lambda L, x: L.fft.ifftn(x, dim=(1,)),
    "fftshift": lambda L, x: L.fft.ifftshift(L.fft.fftshift(x) * 2, dim=1),
}
REAL_CALLS = {
    "rfft": lambda L, x: L.fft.rfft(x),
    "rfft_n_odd": lambda L, x: L.fft.rfft(x, n=7, dim=0, norm="ortho"),
    "irfft": lambda L, x: L.fft.irfft(L.fft.rfft(x) * 1.5),
    "irfft_odd": lambda L, x: L.fft.irfft(L.fft.rfft(x), n=5, norm="forward"),
    "rfft2": lambda L, x: L.fft.rfft2(x),
    "irfft2": lambda L, x: L.fft.irfft2(L.fft.rfft2(x, norm="ortho") ** 2, s=(4, 6)),
    "rfftn": lambda L, x: L.fft.rfftn(x, dim=(0,)),
    "irfftn": lambda L, x: L.fft.irfftn(L.fft.rfftn(x) * 1j),
    "hfft": lambda L, x: L.fft.hfft(L.fft.ihfft(x) * (1 + 1j), n=6),
    "ihfft": lambda L, x: L.fft.ihfft(x, n=9, norm="forward"),
    "fft_of_real": lambda L, x: L.fft.fft(x, n=5),
    "fftn_of_real": lambda L, x: L.fft.fftn(x, s=(3, 3)),
}


@pytest.mark.parametrize("name", sorted(CALLS))
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_transforms_match_torch(name, dtype):
    _compare(CALLS[name], CPLX, dtype)


@pytest.mark.parametrize("name", sorted(REAL_CALLS))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_real_transforms_match_torch(name, dtype):
    _compare(REAL_CALLS[name], REAL, dtype)


def test_irfft_of_a_complex_leaf_matches_torch():
    _compare(lambda L, x: L.fft.irfft(x, n=10), CPLX, np.complex128)
    _compare(lambda L, x: L.fft.hfft(x), CPLX, np.complex64)


def test_node_names_match_torch():
    for lib in (ember, torch):
        x = lib.ones(4, requires_grad=True)
        z = lib.ones(4, dtype=lib.cfloat, requires_grad=True)
        names = [f.grad_fn.name() for f in (lib.fft.fft(x), lib.fft.rfft(x, n=6),
                                            lib.fft.irfft(z), lib.fft.fft(z), lib.fft.ihfft(x))]
        if lib is ember:
            mine = names
    assert mine == names


@pytest.mark.parametrize("call", [
    lambda L: L.fft.fftfreq(5), lambda L: L.fft.fftfreq(8, 0.1, dtype=L.float64),
    lambda L: L.fft.rfftfreq(7, 2.5), lambda L: L.fft.rfftfreq(1), lambda L: L.fft.fftfreq(6, 3),
    lambda L: L.fft.fft(L.ones(4, dtype=L.int64)), lambda L: L.fft.fft(L.tensor([1.0], dtype=L.float64)),
    lambda L: L.fft.fftshift(L.arange(10).reshape(2, 5)), lambda L: L.fft.ifftshift(L.arange(7)),
])
def test_helpers_and_dtypes_match_torch(call):
    ours, theirs = call(ember), call(torch)
    assert str(ours.dtype)[6:] == str(theirs.dtype)[6:]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("call", [
    lambda L: L.fft.fft(L.ones(4), norm="bad"),
    lambda L: L.fft.fft(L.ones(4), n=0),
    lambda L: L.fft.fft(L.ones(4), dim=2),
    lambda L: L.fft.rfft(L.ones(4, dtype=L.cfloat)),
    lambda L: L.fft.fft2(L.ones(4)),
    lambda L: L.fft.fftn(L.ones(2, 3), s=(4,), dim=(0, 1)),
    lambda L: L.fft.fft(L.ones(4, dtype=L.half)),
    lambda L: L.fft.irfft(L.ones(1, dtype=L.cfloat)),
    lambda L: L.fft.fft(L.tensor(1.0)),
    lambda L: L.fft.fftn(L.ones(2, 3), dim=(0, 0)),
])
def test_errors_match_torch(call):
    same_error(call)


@pytest.mark.parametrize("call", [
    lambda L: L.fft.fft(L.tensor([])), lambda L: L.fft.rfft(L.tensor([])),
    lambda L: L.fft.ifft(L.zeros(0, dtype=L.complex64)), lambda L: L.fft.fft2(L.zeros(2, 0)),
    lambda L: L.fft.fftn(L.zeros(0, 3)), lambda L: L.fft.rfft2(L.zeros(0, 3)),
    lambda L: L.fft.irfft(L.zeros(0, dtype=L.complex64)),
    lambda L: L.fft.hfft(L.zeros(1, dtype=L.complex64))])
def test_transforms_of_an_empty_dim_are_torchs_error(call):
    """ember let NumPy's ValueError ('Invalid number of FFT data points') out"""
    same_error(call)
