"""torch.stft and torch.istft, built from differentiable ops: frames cut by unfold, the window
product, torch.fft's transforms, and overlap-add by index_add; their gradients (with respect to
the signal, the spectrum and the window) come from those ops."""

import numpy as np

from . import _creation
from . import fft as _fft
from ._warn import warn_once
from .ops import api
from .ops.complex_ops import view_as_real
from .ops.index_ops import index_add

_NO_WINDOW = ("A window was not provided. A rectangular window will be applied,{}To suppress "
              "this warning and use a rectangular window, explicitly set "
              "`window=torch.ones(n_fft, device=<device>)`.")


def _pad(input, pad, mode="constant"):
    from .nn.functional import pad as nn_pad  # late binding up: torch.stft pads with F.pad
    return nn_pad(input, pad, mode)


def _describe(t):
    """A tensor as torch's argument lists in its error messages print it."""
    return "None" if t is None else f"{t.type()}{{{list(t.shape)}}}"


def _flag(value):
    return "None" if value is None else str(int(value))


def _centered_window(window, win_length, n_fft, dtype):
    """The window padded with zeros on both sides to n_fft (ones of win_length if None)."""
    if window is None:
        if win_length == n_fft:
            return None
        window = _creation.ones(win_length, dtype=dtype)
    left = (n_fft - win_length) // 2
    return window if win_length == n_fft else _pad(window, [left, n_fft - win_length - left])


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform (*, n_fft // 2 + 1 or n_fft, frames) of 1-D or 2-D
    input; frames of n_fft samples every hop_length, times the window (centered in n_fft)."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:  # torch pads a (1, 1, L) or (1, B, L) view, whatever the input's dims
        dims, half = input.dim(), n_fft // 2
        padded = _pad(api.reshape(input, [1] * (3 - dims) + list(input.shape)), [half, half],
                      pad_mode)
        input = api.reshape(padded, padded.shape[len(padded.shape) - dims:])
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if window is None:
        warn_once(_NO_WINDOW.format("which is known to cause spectral leakage. Other "
                                        "windows such as torch.hann_window or "
                                        "torch.hamming_window are recommended to reduce "
                                        "spectral leakage."))
    complex_input = input.is_complex() or (window is not None and window.is_complex())
    if return_complex is None and not complex_input:
        raise RuntimeError("stft requires the return_complex parameter be given for real "
                           "inputs, and will further require that return_complex=True in a "
                           "future PyTorch release.")
    return_complex = complex_input if return_complex is None else return_complex
    if not return_complex:
        warn_once("stft with return_complex=False is deprecated. In a future pytorch "
                      "release, stft will return complex tensors for all inputs, and "
                      "return_complex=False will raise an error.\nNote: you can still call "
                      "torch.view_as_real on the complex output to recover the old return "
                      "format.")
    prefix = (f"stft({input.type()}{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, "
              f"win_length={win}, window={_describe(window)}, normalized={_flag(normalized)}, "
              f"onesided={_flag(onesided)}, return_complex={_flag(return_complex)}, "
              f"align_to_window={_flag(align_to_window)}) : ")
    frames = _frames(input, n_fft, hop, win, window, align_to_window, prefix)
    if frames.dtype.itemsize < 4:  # (half input times a float32 window is float32, as torch)
        raise RuntimeError(f"MKL FFT doesn't support tensors of type: "
                           f"{frames.dtype.scalar_name}")
    onesided = not complex_input if onesided is None else onesided
    if onesided and complex_input:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    spectrum = (_fft.rfft if onesided else _fft.fft)(frames, dim=-1, norm=norm)
    spectrum = api.transpose(spectrum, 1, 2)
    if input.dim() == 1:
        spectrum = api.squeeze(spectrum, 0)
    return spectrum if return_complex else view_as_real(spectrum)


def _frames(input, n_fft, hop, win, window, align_to_window, prefix):
    """The windowed frames (B, frames, n_fft) of the (padded) signal, after torch's checks."""
    if input.dim() not in (1, 2):
        raise RuntimeError(prefix + "expected a 1D or 2D tensor")
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(prefix + "expected a tensor of floating point or complex values")
    x = input if input.dim() == 2 else api.unsqueeze(input, 0)
    length = x.shape[1]
    if n_fft <= 0 or n_fft > length:
        raise RuntimeError(prefix + f"expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(prefix + f"expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(prefix + f"expected 0 < win_length <= n_fft, but got "
                           f"win_length={win}")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(prefix + f"expected a 1D window tensor of size equal to "
                           f"win_length={win}, but got window with size {list(window.shape)}")
    if align_to_window and win < n_fft:  # frames start where their window starts
        left = (n_fft - win) // 2
        x = _pad(x, [left, n_fft - win - left])
    frames = x.unfold(-1, n_fft, hop)
    window = _centered_window(window, win, n_fft, input.real.dtype if input.is_complex()
                              else input.dtype)
    return frames if window is None else frames * window


def _overlap_add(frames, hop, size):
    """(B, size): the sum of frames (B, T, n) placed every hop samples (unfold's adjoint)."""
    count, n = frames.shape[1], frames.shape[2]
    positions = (np.arange(count)[:, None] * hop + np.arange(n)).reshape(-1)
    out = _creation.zeros((frames.shape[0], size), dtype=frames.dtype)
    index = _creation.tensor(positions)
    return index_add(out, 1, index, api.reshape(frames, (frames.shape[0], count * n)))


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The signal whose stft is ``input`` (complex (*, freq, frames)): each frame's inverse
    transform times the window, overlap-added and divided by the overlap-added squared window."""
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if window is None:
        warn_once(_NO_WINDOW.format(".Please provide the same window used by stft to make "
                                        "the inversion lossless.").replace(",.", "."))
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    dims = input.dim() + 1  # torch counts the dims of the (..., 2) real view
    if dims < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-dims}, "
                         f"{dims - 1}], but got -3)")
    kind = input.type().split(".")[-1].replace("Tensor", "Type")
    prefix = (f"istft(CPU{kind}{list(input.shape)}, n_fft={n_fft}, hop_length={hop}, "
              f"win_length={win}, window={_describe(window)}, center={_flag(center)}, "
              f"normalized={_flag(normalized)}, onesided={_flag(onesided)}, "
              f"length={'None' if length is None else length}, "
              f"return_complex={_flag(return_complex)})")
    frames_count, freqs = input.shape[-1], input.shape[-2]
    onesided = _check_istft(prefix, dims, n_fft, hop, win, window, freqs, onesided)
    spectrum = api.transpose(input if dims == 4 else api.unsqueeze(input, 0), 1, 2)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = _fft.ifft(spectrum, dim=-1, norm=norm)
    else:
        if window is not None and window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not onesided:  # the Hermitian half (the rest is ignored, as torch)
            spectrum = spectrum[..., :n_fft // 2 + 1]
        frames = _fft.irfft(spectrum, n=n_fft, dim=-1, norm=norm)
    window = _centered_window(window, win, n_fft, input.real.dtype)
    if window is None:
        window = _creation.ones(n_fft, dtype=input.real.dtype)
    frames = frames * window
    expected = n_fft + hop * (frames_count - 1)
    signal = _overlap_add(frames, hop, expected)
    envelope = _overlap_add(api.expand(window * window, (1, frames_count, n_fft)), hop, expected)
    start = n_fft // 2 if center else 0
    end = start + length if length is not None else (-(n_fft // 2) if center else expected)
    signal, envelope = signal[:, start:end], envelope[:, start:end]
    if envelope.numel() and bool((envelope.abs() < 1e-11).any()):
        raise RuntimeError(prefix + " window overlap add min: 1")  # torch's NOLA check
    signal = signal / envelope
    if end > expected:
        warn_once("The length of signal is shorter than the length parameter. Result is "
                      "being padded with zeros in the tail. Please check your center and "
                      "hop_length settings.")
        signal = _pad(signal, [0, end - expected])
    return api.squeeze(signal, 0) if dims == 3 else signal


def _check_istft(prefix, dims, n_fft, hop, win, window, freqs, onesided):
    """torch's checks of istft's arguments; returns onesided (inferred from the frequency
    count when not given)."""
    if dims not in (3, 4):
        raise RuntimeError(f"{prefix} : expected a tensor with 3 or 4 dimensions, but got {dims}")
    onesided = freqs != n_fft if onesided is None else onesided
    if onesided and n_fft // 2 + 1 != freqs:
        raise RuntimeError(f"{prefix} : expected the frequency dimension (3rd to the last) of "
                           f"the input tensor to match n_fft / 2 + 1 when onesided=True, but "
                           f"got {freqs}")
    if not onesided and n_fft != freqs:
        raise RuntimeError(f"{prefix} : expected the frequency dimension (3rd to the last) of "
                           f"the input tensor to match n_fft when onesided=False, but got "
                           f"{freqs}")
    if not 0 < hop <= win:
        raise RuntimeError(f"{prefix} : expected 0 < hop_length <= win_length")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"{prefix} : expected 0 < win_length <= n_fft")
    if window is not None and (window.dim() != 1 or window.shape[0] != win):
        raise RuntimeError(f"{prefix} : Invalid window shape. window has to be 1D and length of "
                           "`win_length`")
    return onesided
