"""nn.functional utilities: dropout, one_hot, pad, normalize, bilinear, distances."""
import numpy as np

from .. import _dtype, _meta
from .._tensor import Tensor
from ..ops import api
from ..ops import loss_ops as L
from ..ops import pad_ops as P
from ..ops import reduction as R
from ..ops.linalg_extra import _VectorNormExtremes
from ..random import _gen

__all__ = ["dropout", "one_hot", "pad", "normalize", "bilinear", "cosine_similarity",
           "pairwise_distance"]


def check_dropout_p(p):
    """Every dropout's check of p (as torch's: ValueError outside [0, 1])."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def check_dropout_dtype(input, bool_as=None):
    """torch's error for dropping out an integer or bool tensor in training (its float noise
    cannot be multiplied into it); ``bool_as``: the dtype torch names for a bool input (alpha
    dropout computes on it as int64 first)."""
    kind = input._data.dtype.kind
    if kind in "biu":
        name = bool_as if kind == "b" and bool_as else input.dtype.scalar_name
        raise RuntimeError(f"result type Float can't be cast to the desired output type {name}")


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability p and scale the rest by 1 / (1 - p) (training only)."""
    check_dropout_p(p)
    if not training or p == 0.0:
        return input
    check_dropout_dtype(input)
    dtype = input._data.dtype
    if input.is_meta:  # no data: a meta noise, and (as torch) nothing drawn
        noise = _meta.like(input._data)
    elif p == 1.0:
        noise = np.zeros(input._data.shape, dtype)
    else:
        noise = _dropout_noise(input._data.shape, p, dtype)
    noise_t = Tensor._make(noise)
    return api.mul_(input, noise_t) if inplace else api.mul(input, noise_t)


def _dropout_noise(shape, p, dtype):
    """torch's dropout noise: bernoulli_(1 - p) draws (in order) divided by 1 - p in ``dtype``,
    formed in one pass as draw * (1 / (1 - p)): for a 0/1 draw both give the same value."""
    scale = np.asarray(1.0, dtype) / np.asarray(1.0 - p, dtype)
    return np.multiply(_gen(None).bernoulli(shape, 1.0 - p), scale, dtype=dtype)


def one_hot(input, num_classes=-1):
    """int64 one-hot rows for integer class indices (num_classes=-1: max + 1)."""
    data = input._data
    if data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if data.size and data.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(data.max()) + 1
    elif data.size and data.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = np.zeros(data.shape + (num_classes,), dtype=np.int64)
    np.put_along_axis(out, data[..., None], 1, axis=-1)
    return Tensor._make(out)


def pad(input, pad, mode="constant", value=None):
    """Pad the last len(pad) // 2 dims: (left, right, top, bottom, ...); modes constant,
    reflect, replicate, circular."""
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(pad)} and input of dimension "
                           f"{input.ndim}")
    if mode == "constant":
        return P.ConstantPadNdBackward0.apply(input, pad, 0.0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    dims = len(pad) // 2
    if dims > 3 or input.ndim not in (dims + 1, dims + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode == "circular" and any(p > size for p, size in zip(pad, _padded_sizes(input, dims))):
        raise RuntimeError("Padding value causes wrapping around more than once.")
    width = input.shape[-1] + pad[0] + pad[1]
    if dims == 1 and mode != "circular" and width < 1:  # (torch's 1-d kernels' check)
        raise RuntimeError(f"input (W: {input.shape[-1]}) is too small. Calculated output W: "
                           f"{width}")
    index = P.pad_index(input._data.shape, pad, mode)
    return P.PAD_NODES[(mode, dims)].apply(input, index)


def _padded_sizes(input, dims):
    """The size of the dim each entry of ``pad`` applies to (last dim first, two each)."""
    return [input.shape[-1 - i // 2] for i in range(2 * dims)]


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """x / max(||x||_p along dim, eps)."""
    norm = api.norm(input, p, dim, keepdim=True)
    denominator = api.expand(L.ClampMinBackward0.apply(norm, eps), *input.shape)
    if out is not None:  # torch divides into out (its out= rules: no autograd there)
        from .. import div  # lazy: the namespace sits above nn's functional helpers
        return div(input, denominator, out=out)
    return api.div(input, denominator)


def bilinear(input1, input2, weight, bias=None):
    """y_k = x1^T A_k x2 + b_k over the last dim of x1, x2; A is (out, in1, in2)."""
    out_f, in1, in2 = weight.shape
    if input1.shape[-1] != in1 or input2.shape[-1] != in2:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.shape[-1]} but expected {in1}" if input1.shape[-1] != in1
                           else f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.shape[-1]} but expected {in2}")
    lead = tuple(input1.shape[:-1])
    x1 = api.reshape(input1, (-1, in1))
    x2 = api.reshape(input2, (-1, in2))
    a = api.reshape(api.permute(weight, 1, 0, 2), (in1, out_f * in2))
    mixed = api.reshape(api.matmul(x1, a), (-1, out_f, in2))
    y = api.reshape(api.sum(api.mul(mixed, api.unsqueeze(x2, 1)), -1), lead + (out_f,))
    return api.add(y, bias) if bias is not None else y


def _unit(x, dim, eps):
    """x / max(||x||, eps) along dim; the clamp is not differentiated, as in torch's graph."""
    n = api.clone(R.LinalgVectorNormBackward0.apply(x, p=2, dim=dim, keepdim=True))
    np.maximum(n._data, eps, out=n._data)
    return api.div(x, n)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """sum((x1 / max(||x1||, eps)) * (x2 / max(||x2||, eps))) along dim, as torch computes it."""
    common = _dtype._np_promote(x1._data.dtype, x2._data.dtype)  # (float16 with bfloat16:
    if common.kind not in "fV":  # float32, where NumPy has no common type)
        raise RuntimeError(f"expected common dtype to be floating point, yet common dtype is "
                           f"{_dtype.of_numpy(common).scalar_name}")
    to = _dtype.of_numpy(common)  # torch computes both in the common dtype
    x1, x2 = api.to_dtype(x1, to), api.to_dtype(x2, to)
    return api.sum(api.mul(_unit(x1, dim, eps), _unit(x2, dim, eps)), dim)


class NormBackward1(R.LinalgVectorNormBackward0):
    """torch.norm(x, p, dim): torch names this node apart from linalg.vector_norm."""


class _NormExtremes1(_VectorNormExtremes):
    """NormBackward1 of order 0 or -inf (the count of nonzeros, the least |a|)."""


_NormExtremes1.__name__ = _NormExtremes1.__qualname__ = "NormBackward1"


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """||x1 - x2 + eps||_p along the last dim (of the moduli, for complex inputs)."""
    gaps = api.add(api.sub(x1, x2), eps)
    if gaps._data.dtype.kind == "c":
        gaps = gaps.abs()
    cls = _NormExtremes1 if p == 0 or p == -float("inf") else NormBackward1
    return cls.apply(gaps, p=p, dim=-1, keepdim=keepdim)
