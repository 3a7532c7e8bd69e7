"""Which of torch's CPU kernels this machine runs, for the tests that promise torch's bits.

ember reproduces, bit for bit, what torch computes on an AVX2 CPU: ATen's AVX2 vector kernels
(16-lane bfloat16 steps, Sleef-style erf/exp/tanh), with NumPy's AVX2 math underneath. On other
CPUs torch itself picks other kernels: AVX512 vectors of another width, oneDNN for contiguous
bfloat16 GELU and convolutions where the CPU has AVX512 bfloat16 support; and NumPy dispatches
float64 log/cos/exp to its AVX512 (SVML) versions, which round differently from glibc's. There
the promise is "within ``rtol``/``atol`` of torch on its finite values", asserted instead of the bits.
"""
import numpy as np
import torch

TORCH_AVX2 = torch.backends.cpu.get_cpu_capability() == "AVX2"
ONEDNN_BFLOAT16 = bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
NUMPY_AVX512 = bool(np._core._multiarray_umath.__cpu_features__.get("AVX512_SKX"))


def _floats(x):
    x = x.detach() if hasattr(x, "detach") else x
    if hasattr(x, "float") and not isinstance(x, np.ndarray):
        x = x.float()
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x, dtype=np.float64)


def assert_as_torch_kernel(e, t, bits, *, exact, rtol, atol, of_max=0.0):
    """``bits(e) == bits(t)`` where ``exact`` (this machine runs the kernels ember reproduces),
    else ``e`` within ``rtol``/``atol + of_max * max|t|`` of ``t`` wherever ``t`` is finite
    (``of_max`` for sums whose kernels add in another order: the error scales with the terms)."""
    if exact:
        np.testing.assert_array_equal(bits(e), bits(t))
        return
    e, t = _floats(e), _floats(t)
    finite = np.isfinite(t)
    scale = np.abs(t[finite]).max(initial=0.0)
    np.testing.assert_allclose(e[finite], t[finite], rtol=rtol, atol=atol + of_max * scale)
