"""torch.autocast's CPU casts: which dtype an op's floating inputs take inside an autocast region.

torch on the CPU runs the "lower precision" ops (matmul, mm, bmm, addmm, baddbmm, linear, the
convolutions, prelu, scaled_dot_product_attention) in the region's dtype (bfloat16 unless told
otherwise) and the "float32" ops (the losses) in float32; every other op computes in its inputs'
dtype (promotion then mixes: float32 + bfloat16 is float32). The casts are recorded in the graph
(ToCopyBackward0), so gradients flow back to float32 parameters in float32. float64 tensors are
never cast, as torch's autocast leaves them alone. ``ember.amp.autocast`` keeps the state here.
"""
from .. import _dtype
from .api.copies import to_dtype

enabled = {}  # device type -> whether an enabled autocast region is active
dtypes = {}  # device type -> that region's dtype


def lower(*tensors):
    """The inputs of a lower-precision op: cast to the CPU region's dtype when one is active."""
    if not enabled.get("cpu"):
        return tensors
    return tuple(_cast(t, dtypes["cpu"]) for t in tensors)


def float32(*tensors):
    """The inputs of a float32 op (a loss): cast to float32 inside an active CPU region."""
    if not enabled.get("cpu"):
        return tensors
    return tuple(_cast(t, _dtype.float32) for t in tensors)


def _cast(t, dtype):
    data = getattr(t, "_data", None)
    if data is None or data.dtype.kind not in "fV" or data.dtype.itemsize == 8:
        return t  # not a floating tensor (None, an index tensor) or float64: left as it is
    return to_dtype(t, dtype)
