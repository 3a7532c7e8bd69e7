"""torch.stft / torch.istft (ember/_spectral.py) against torch: values, gradients with respect
to the signal, the spectrum and the window, the Tensor methods, round trips, torch's warnings
and refusals."""
import subprocess
import sys
import warnings

import numpy as np
import pytest
import torch

import ember

rng = np.random.default_rng(0)
STFT_CASES = [
    {}, {"center": False}, {"pad_mode": "constant"}, {"pad_mode": "replicate"},
    {"normalized": True}, {"onesided": False}, {"win_length": 10}, {"hop_length": 3},
    {"win_length": 12, "hop_length": 5, "center": False, "align_to_window": True},
    {"window": None}, {"window": None, "win_length": 9},
]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def _window(lib, kwargs, dtype):
    if "window" in kwargs:
        return None
    return lib.tensor(np.hanning(kwargs.get("win_length", 16) + 2)[1:-1].astype(dtype),
                      requires_grad=True)


def _stft_run(lib, x, kwargs, method=False):
    xt = lib.tensor(x, requires_grad=True)
    options = {k: v for k, v in kwargs.items() if k != "window"}
    window = _window(lib, kwargs, x.real.dtype)
    fn = xt.stft if method else (lambda *a, **k: lib.stft(xt, *a, **k))
    S = _quiet(fn, 16, window=window, return_complex=True, **options)
    weights = lib.tensor(rng_weights(tuple(S.shape)))
    ((S.abs() ** 2) * weights).sum().backward()
    out = [S.detach().numpy(), xt.grad.numpy()]
    return out + ([window.grad.numpy()] if window is not None else [])


def rng_weights(shape):
    return np.random.default_rng(1).random(shape)


@pytest.mark.parametrize("kwargs", STFT_CASES)
@pytest.mark.parametrize("shape", [(100,), (3, 64)])
def test_stft_matches_torch(kwargs, shape):
    x = rng.standard_normal(shape)
    ours, theirs = _stft_run(ember, x, kwargs), _stft_run(torch, x, kwargs)
    for a, b in zip(ours, theirs, strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.complex128, np.complex64])
def test_stft_dtypes_and_complex_input_as_torch(dtype):
    x = rng.standard_normal((2, 80)).astype(dtype)
    if np.dtype(dtype).kind == "c":
        x = (x + 1j * rng.standard_normal((2, 80))).astype(dtype)
    ours, theirs = _stft_run(ember, x, {}, method=True), _stft_run(torch, x, {}, method=True)
    tol = 1e-4 if dtype in (np.float32, np.complex64) else 1e-9
    for a, b in zip(ours, theirs, strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def test_stft_of_half_input_with_a_float32_window_as_torch():
    x = rng.standard_normal(64)
    outs = []
    for lib in (ember, torch):
        for dtype in (lib.bfloat16, lib.float16):
            S = lib.stft(lib.tensor(x).to(dtype), 16, window=lib.ones(16), return_complex=True)
            outs.append((str(S.dtype).split(".")[1], S.numpy()))
    for (d1, a), (d2, b) in zip(outs[:2], outs[2:]):
        assert d1 == d2 == "complex64"
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def test_stft_return_complex_false_warns_and_gives_the_real_view_as_torch():
    x = rng.standard_normal(50)
    outs = []
    for lib in (ember, torch):
        with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
            outs.append(lib.stft(lib.tensor(x), 8, window=lib.ones(8, dtype=lib.float64),
                                 return_complex=False).numpy())
    assert outs[0].shape == outs[1].shape
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12, atol=1e-12)


def _spectrum(lib, x, n_fft, window, **kwargs):
    return _quiet(lib.stft, lib.tensor(x), n_fft, window=window, return_complex=True, **kwargs)


ISTFT_CASES = [
    ({}, {}), ({"normalized": True}, {"normalized": True}), ({}, {"length": 90}),
    ({}, {"length": 130}), ({"hop_length": 2}, {"hop_length": 2}),
    ({"center": False, "win": "ones"}, {"center": False}),
    ({"onesided": False}, {}), ({"onesided": False}, {"return_complex": True}),
    ({"win_length": 12, "hop_length": 3}, {"win_length": 12, "hop_length": 3}),
]


def _istft_run(lib, x, n_fft, stft_kwargs, kwargs):
    stft_kwargs = dict(stft_kwargs)
    ones = stft_kwargs.pop("win", None) == "ones"
    win = stft_kwargs.get("win_length", n_fft)
    window_data = np.ones(win) if ones else np.hanning(win + 2)[1:-1]
    S = _spectrum(lib, x, n_fft, lib.tensor(window_data), **stft_kwargs).detach()
    S.requires_grad_()
    window = lib.tensor(window_data, requires_grad=True)
    istft_kwargs = {k: v for k, v in stft_kwargs.items() if k not in ("onesided",)}
    istft_kwargs.update(kwargs)
    y = _quiet(lib.istft, S, n_fft, window=window, **istft_kwargs)
    weights = lib.tensor(rng_weights(tuple(y.shape)))
    ((y.abs() ** 2 if y.is_complex() else y ** 3) * weights).sum().backward()
    return [y.detach().numpy(), S.grad.numpy(), window.grad.numpy()]


@pytest.mark.parametrize("stft_kwargs,kwargs", ISTFT_CASES)
@pytest.mark.parametrize("shape", [(100,), (2, 100)])
def test_istft_matches_torch(stft_kwargs, kwargs, shape):
    x = rng.standard_normal(shape)
    ours = _istft_run(ember, x, 16, stft_kwargs, kwargs)
    theirs = _istft_run(torch, x, 16, stft_kwargs, kwargs)
    for a, b in zip(ours, theirs, strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("kwargs", [{}, {"hop_length": 16, "win_length": 24},
                                    {"normalized": True}, {"center": False, "win": "ones"}])
@pytest.mark.parametrize("shape", [(96,), (3, 96)])
def test_istft_of_stft_is_the_signal(kwargs, shape):
    x = rng.standard_normal(shape)
    kwargs = dict(kwargs)
    ones = kwargs.pop("win", None) == "ones"
    win = kwargs.get("win_length", 32)
    window = ember.ones(win, dtype=ember.float64) if ones else \
        ember.tensor(np.hanning(win + 2)[1:-1])
    xt = ember.tensor(x)
    S = xt.stft(32, window=window, return_complex=True, **kwargs)
    y = S.istft(32, window=window, length=shape[-1], **kwargs)
    np.testing.assert_allclose(y.numpy(), x, atol=1e-12)


def test_stft_default_return_complex_and_window_warning_as_torch():
    with pytest.raises(RuntimeError, match="requires the return_complex parameter"):
        _quiet(torch.stft, torch.randn(64), 16)
    # torch's four stft/istft warnings come once a process (TORCH_WARN_ONCE): fresh processes
    import subprocess
    import sys
    code = ("import warnings, {lib} as torch; warnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    x = torch.randn(400)\n"
            "    for _ in range(2):\n"
            "        s = torch.stft(x, 64, return_complex=True)\n"
            "        torch.stft(x, 64, return_complex=False)\n"
            "        torch.istft(s, 64); torch.istft(s, 64, length=1000)\n"
            "print([str(a.message).split(' (Triggered')[0] for a in w])")
    outs = [subprocess.run([sys.executable, "-c", code.format(lib=lib)], capture_output=True,
                           text=True, check=True).stdout for lib in ("torch", "ember")]
    assert outs[1] == outs[0] and outs[0].count("', '") == 3  # four warnings, each once


def _stft_errors():
    def make(lib, shape=(100,), dtype=None, **kw):
        return lambda: _quiet(lib.stft, lib.zeros(*shape, dtype=dtype or lib.float32),
                              **{"return_complex": True, "n_fft": 16, **kw})
    return [
        lambda lib: make(lib, (2, 3, 100)),
        lambda lib: make(lib, n_fft=0),
        lambda lib: make(lib, n_fft=300, center=False),
        lambda lib: make(lib, n_fft=300),
        lambda lib: make(lib, hop_length=0),
        lambda lib: make(lib, win_length=20),
        lambda lib: make(lib, window=lib.ones(10)),
        lambda lib: make(lib, (3, 100), window=lib.ones(2, 8)),
        lambda lib: make(lib, pad_mode="zeros"),
        lambda lib: make(lib, dtype=lib.int64),
        lambda lib: make(lib, dtype=lib.float16),
        lambda lib: make(lib, dtype=lib.complex64, onesided=True),
        lambda lib: make(lib, align_to_window=True),
        lambda lib: make(lib, (5,)),
    ]


@pytest.mark.parametrize("index", range(14))
def test_stft_refusals_as_torch(index):
    caught = []
    for lib in (torch, ember):
        call = _stft_errors()[index](lib)
        with pytest.raises(Exception) as info:
            call()
        caught.append((info.type, str(info.value).replace("torch.", "ember.")))
    assert caught[1] == caught[0]


def _istft_errors():
    def make(lib, spectrum=None, **kw):
        def call():
            S = _spectrum(lib, np.ones(100), 16, lib.ones(16, dtype=lib.float64))
            S = S if spectrum is None else spectrum(S)
            return _quiet(lib.istft, S, **{"n_fft": 16, **kw})
        return call
    return [
        lambda lib: make(lib, lambda S: S.real),
        lambda lib: make(lib, lambda S: S[0]),
        lambda lib: make(lib, lambda S: S[None, None]),
        lambda lib: make(lib, onesided=False),
        lambda lib: make(lib, lambda S: S[:5]),
        lambda lib: make(lib, hop_length=20),
        lambda lib: make(lib, hop_length=0),
        lambda lib: make(lib, win_length=20),
        lambda lib: make(lib, window=lib.ones(10, dtype=lib.float64)),
        lambda lib: make(lib, return_complex=True),
        lambda lib: make(lib, window=lib.ones(16, dtype=lib.complex128)),
    ]


@pytest.mark.parametrize("index", range(11))
def test_istft_refusals_as_torch(index):
    caught = []
    for lib in (torch, ember):
        with pytest.raises(Exception) as info:
            _istft_errors()[index](lib)()
        caught.append((info.type, str(info.value).replace("torch.", "ember.")))
    assert caught[1] == caught[0]


def test_istft_refuses_a_window_without_overlap_add_as_torch():
    for lib in (torch, ember):
        S = _spectrum(lib, np.ones(100), 16, lib.tensor(np.hanning(16)))
        with pytest.raises(RuntimeError, match="window overlap add min: 1"):
            lib.istft(S, 16, window=lib.tensor(np.hanning(16)), center=False)


def test_import_ember_does_not_load_the_spectral_module():
    code = "import sys, ember; print('ember._spectral' in sys.modules, 'ember.fft' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
    assert ember.stft is ember._spectral.stft


def test_complex_window_through_stft_and_istft_matches_torch():
    x = rng.standard_normal(60)
    w = rng.standard_normal(16) + 1j * rng.standard_normal(16)
    results = []
    for lib in (ember, torch):
        xt, wt = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
        S = _quiet(lib.stft, xt, 16, window=wt)  # complex: two-sided, complex by default
        y = lib.istft(S, 16, window=wt, return_complex=True)
        (S.abs().sum() + y.abs().sum()).backward()
        results.append([S.detach().numpy(), y.detach().numpy(), xt.grad.numpy(),
                        wt.grad.numpy()])
    for a, b in zip(*results):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
