"""ember: PyTorch's training core in Python over NumPy. Use as ``import ember as torch``."""
from . import _openblas  # noqa: F401, I001  (first: OpenBLAS's spin timeout, before NumPy loads)
from ._tensor import Size, Tensor, device  # noqa: I001  (Tensor first: the rest builds on it)
from ._device import get_default_device, set_default_device
from . import _dtype
from ._dtype import (bool_ as bool, bfloat16, dtype, finfo, float16, float32, float64,
                     get_default_dtype, iinfo, int8, int16, int32, int64, promote_types,
                     set_default_dtype, uint8)
from . import autograd
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled
from .autograd.grad_mode import is_inference_mode_enabled
from . import _tensor_methods  # noqa: F401  (binds methods and operators onto Tensor)
from ._creation import (arange, as_tensor, bernoulli, empty, empty_like, eye, from_numpy, full,
                        full_like, linspace, logspace, multinomial, normal, ones, ones_like, rand,
                        rand_like, randint, randint_like, randn, randn_like, randperm, tensor,
                        zeros, zeros_like)
from ._tensor_methods import UNARY as _UNARY
from ._tensor_str import set_printoptions
from .ops.api import (add, all, allclose, amax, amin, any, argmax, argmin, bitwise_and,
                      bitwise_not, bitwise_or, bitwise_xor, bmm, broadcast_to, cat, chunk, clamp,
                      clone, concat, count_nonzero, div, eq, equal, expand, flatten,
                      flip, floor_divide, gather, ge, greater, greater_equal, gt, index_select,
                      isclose, isfinite, isinf, isnan, le, less, less_equal, logical_and,
                      logical_not, logical_or, logical_xor, logsumexp, lt, masked_fill,
                      masked_select, max, maximum, mean, min, minimum, mul, narrow, narrow_copy, ne,
                      neg, nonzero, norm, not_equal, permute, pow, prod, remainder, repeat,
                      reshape, rsub, scatter, scatter_add, select, split, squeeze, stack, std,
                      sub, sum, swapdims, t, transpose, unbind, unflatten, unsqueeze,
                      var, where)
from .random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed,
                     seed, set_rng_state)
from ._interop import from_dlpack, frombuffer, to_dlpack  # noqa: F401  (public)
from ._legacy import TYPES as _LEGACY_TYPES
from ._legacy import set_default_tensor_type  # noqa: F401  (public)
from .ops import _parallel
from .ops import profiler as _ops_profiler  # noqa: F401  (torch.ops.profiler)
from .amp import autocast, get_autocast_dtype, is_autocast_enabled

globals().update(_dtype.ALIASES)  # float, double, half, long, int, short
globals().update(_dtype.COMPLEX_ALIASES)  # cfloat, cdouble, chalf
complex64, complex128, complex32 = _dtype.complex64, _dtype.complex128, _dtype.complex32
uint16, uint32, uint64 = _dtype.uint16, _dtype.uint32, _dtype.uint64
from ._memory_format import (  # noqa: E402
    channels_last,
    channels_last_3d,
    contiguous_format,
    memory_format,
    preserve_format,
)

globals().update(_UNARY)
globals().update(_tensor_methods.ACTIVATIONS)
globals().update(_LEGACY_TYPES)  # FloatTensor, LongTensor, ...
subtract, multiply, divide, negative = sub, mul, div, neg
clip = clamp
from .version import __version__  # noqa: E402  (torch 2.13.0's API; ember.version.ember is ours)


def is_tensor(obj):
    """True for ember tensors."""
    return isinstance(obj, Tensor)


def is_floating_point(input):
    return input.is_floating_point()


def numel(input):
    return input.numel()


def typename(obj):
    return obj.type() if isinstance(obj, Tensor) else type(obj).__name__


class OutOfMemoryError(RuntimeError):
    """torch.OutOfMemoryError (also torch.cuda.OutOfMemoryError): an accelerator's allocation
    failed. ember never raises it (there is no accelerator); scripts catch it by name."""


class AcceleratorError(RuntimeError):
    """torch.AcceleratorError: an accelerator's runtime failed (never raised by ember)."""


def _assert(condition, message):
    """torch._assert: an assert that fx can record (torch.fx traces it as a call)."""
    assert condition, message


def get_num_threads():
    """Threads a large element-wise pass (GELU, softmax, normalization, ...) runs on: the
    ``EMBER_NUM_THREADS`` environment variable, else 1 (see README). NumPy's BLAS keeps its own
    thread count (``OPENBLAS_NUM_THREADS``)."""
    return _parallel.get_num_threads()


def set_num_threads(n):
    """Run large element-wise passes on ``n`` threads; 1 keeps them on the caller's thread."""
    _parallel.set_num_threads(n)


# Sub-packages load on first use, so `import ember` stays fast (nn, optim, data are not needed
# to build tensors). `ember.nn` works without `import ember.nn`, as `torch.nn` does.
_LAZY_MODULES = ("overrides", "nn", "optim", "utils", "distributed", "viz", "serialization",
                 "cli", "cuda",
                 "backends", "accelerator", "onnx", "func", "fft", "special", "distributions",
                 "testing", "jit", "compiler", "__future__", "profiler", "fx", "_C",
                 "functional", "cpu", "multiprocessing", "_dynamo", "hub")
_LAZY_ATTRS = {"save": "serialization", "load": "serialization", "compile": "_compile",
               "vmap": "func", "stft": "_spectral", "istft": "_spectral", "GradScaler": "amp",
               "svd_lowrank": "_lowrank", "pca_lowrank": "_lowrank"}


def __getattr__(name):
    import importlib
    if name in _LAZY_MODULES:
        return importlib.import_module(f".{name}", __name__)
    if name in _LAZY_ATTRS:
        return getattr(importlib.import_module(f".{_LAZY_ATTRS[name]}", __name__), name)
    raise AttributeError(f"module 'ember' has no attribute '{name}'")


# The math API of issue 14: sorting, scans, einsum, triangles, diagonals and torch.linalg.
from . import linalg  # noqa: E402

globals().update(linalg.TORCH_FORMS)  # torch.cholesky, qr, svd, slogdet, logdet, ...
from .ops.aliases import concatenate, det, dot, inverse, mv, swapaxes, true_divide  # noqa: E402
from .ops.as_strided import as_strided  # noqa: E402
from .ops.einsum import einsum  # noqa: E402
from .ops.matrix_ops import (  # noqa: E402
    addmm,
    baddbmm,
    clamp_max,
    clamp_min,
    diag,
    diagonal,
    lerp,
    meshgrid,
    outer,
    repeat_interleave,
    roll,
    tril,
    triu,
)
from .ops.out import install as _install_out  # noqa: E402
from .ops.scan import cumprod, cumsum, logcumsumexp  # noqa: E402
from .ops.sorting import argsort, sort, topk  # noqa: E402

# torch.sparse: sparse COO tensors; torch.mm and torch.matmul also take a sparse operand
from .sparse import dispatch_matmul as matmul  # noqa: E402
from .sparse import dispatch_mm as mm  # noqa: E402
from .sparse import dispatch_mm as spmm  # noqa: E402  (torch.spmm: mm's older name)
from .sparse import layout, sparse_coo, sparse_coo_tensor, strided  # noqa: E402

ger = outer
# torch's functions that take out=: the result is written into the given tensor and returned
_install_out(globals(), (
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "floor_divide",
    "remainder", "pow", "neg", "negative", "clamp", "clip", "clamp_min", "clamp_max", "where",
    "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less",
    "less_equal", "not_equal", "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "matmul", "mm", "bmm", "dot", "mv",
    "outer", "ger", "addmm", "baddbmm", "lerp", "cat", "concat", "concatenate", "stack", "sum",
    "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "std", "var", "logsumexp",
    "norm", "all", "any", "sort", "topk", "cumsum", "cumprod", "tril", "triu", "diag", "inverse",
    "gather", "index_select", "masked_select", "nonzero", "erf", "normal", "bernoulli",
    "multinomial", *[n for n in _UNARY if n != "negative"]), factories=(
    "zeros", "ones", "empty", "full", "eye", "arange", "linspace", "logspace", "rand", "randn",
    "randint", "randperm"), elementwise=_UNARY)

from . import _tensor_misc  # noqa: E402  (binds the extra math, in-place forms, misc attributes)

globals().update(_tensor_misc.FUNCTIONS)  # atan2, xlogy, lgamma, addcmul, ...
globals().update({_n: getattr(_tensor_misc, _n) for _n in _tensor_misc.NAMESPACE})
from . import _switches  # noqa: E402  (torch's global switches: deterministic, matmul precision)

globals().update({_n: getattr(_switches, _n) for _n in _switches.NAMES})
globals().update({_n: _tensor_misc.torch_inplace(_n) for _n in _tensor_misc.TORCH_INPLACE})
_install_out(globals(), [_n for _n in _tensor_misc.FUNCTIONS
                         if _n not in ("positive", "is_nonzero", "isreal")])

from . import _malloc  # noqa: E402

_malloc.tune()  # freed arrays stay in the heap: no page faults each step (see _malloc)

from .ops.composites import (  # noqa: E402
    asarray,
    block_diag,
    cross,
    diff,
    fliplr,
    flipud,
    hstack,
    kron,
    masked_scatter,
    nan_to_num,
    ravel,
    rot90,
    square,
    tensor_split,
    vander,
    vstack,
)
from .ops.counting import (  # noqa: E402
    bincount,
    bucketize,
    cartesian_prod,
    combinations,
    histc,
    searchsorted,
    tril_indices,
    triu_indices,
    unique,
)
from .ops.index_ops import (  # noqa: E402
    index_add,
    index_copy,
    index_fill,
    take,
    take_along_dim,
)
from .ops.matrix_functions import dist, matrix_exp  # noqa: E402

_install_out(globals(), ("logcumsumexp", "index_copy"))
from .ops.order_stats import (  # noqa: E402
    aminmax,
    cdist,
    cummax,
    cummin,
    kthvalue,
    median,
    mode,
    nanmean,
    nansum,
    std_mean,
    var_mean,
)

# torch.X aliases of nn.functional's, loaded with it on first use
_LAZY_ATTRS.update(cosine_similarity="nn.functional", pairwise_distance="nn.functional",
                   pixel_shuffle="nn.functional", pixel_unshuffle="nn.functional")
# torch.X forms of nn.functional's layers and losses (torch.conv2d, torch.layer_norm, ...)
_LAZY_ATTRS.update(dict.fromkeys(("conv1d", "conv2d", "conv3d", "conv_transpose1d",
                                  "conv_transpose2d", "conv_transpose3d", "celu", "selu",
                                  "prelu", "hardshrink", "bilinear", "threshold", "rrelu",
                                  "adaptive_avg_pool1d", "avg_pool1d", "max_pool1d", "max_pool2d",
                                  "pdist", "channel_shuffle", "rms_norm", "celu_", "selu_",
                                  "threshold_", "rrelu_", "layer_norm", "group_norm",
                                  "batch_norm", "dropout", "dropout_", "feature_dropout",
                                  "feature_dropout_", "embedding", "constant_pad_nd", "kl_div",
                                  "binary_cross_entropy_with_logits", "cosine_embedding_loss",
                                  "margin_ranking_loss", "hinge_embedding_loss",
                                  "triplet_margin_loss", "poisson_nll_loss",
                                  "max_pool1d_with_indices", "convolution", "lstm_cell",
                                  "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
                                  "native_channel_shuffle", "max_pool3d", "conv_tbc",
                                  "adaptive_max_pool1d", "instance_norm", "alpha_dropout",
                                  "alpha_dropout_", "feature_alpha_dropout",
                                  "feature_alpha_dropout_", "ctc_loss"), "nn._torch_namespace"))
from .ops import complex_ops as _complex_ops  # noqa: E402
from .ops.finite_differences import gradient  # noqa: E402
from .ops.shape_extra import (  # noqa: E402
    argwhere,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    broadcast_shapes,
    broadcast_tensors,
    chain_matmul,
    column_stack,
    diag_embed,
    diagflat,
    diagonal_scatter,
    dsplit,
    dstack,
    hsplit,
    index_put,
    index_put_,
    inner,
    isin,
    moveaxis,
    movedim,
    msort,
    put,
    renorm,
    row_stack,
    select_scatter,
    slice_scatter,
    tensordot,
    tile,
    trace,
    unravel_index,
    vdot,
    vsplit,
)
from .ops.statistics import (  # noqa: E402
    corrcoef,
    cov,
    cumulative_trapezoid,
    nanmedian,
    nanquantile,
    quantile,
    trapezoid,
    trapz,
    unique_consecutive,
)
from .ops.windows import (  # noqa: E402
    bartlett_window,
    blackman_window,
    hamming_window,
    hann_window,
    kaiser_window,
)

_complex_ops._install()
globals().update({_n: getattr(_complex_ops, _n) for _n in _complex_ops.NAMESPACE})
_tensor_methods.guard_inplace_methods()  # last: every in-place method is bound by now
_tensor_methods.take_numpy_names()  # x.sum(axis=0, keepdims=True), as torch

from math import e, inf, nan, pi  # noqa: E402, F401  (torch.e, torch.inf, torch.nan, torch.pi)

newaxis = None  # torch.newaxis, as NumPy's
from . import storage  # noqa: E402  (torch.storage; binds Tensor.storage/untyped_storage)
from .ops.foreach import FUNCTIONS as _FOREACH  # noqa: E402
from .ops.histogram import histogram, histogramdd  # noqa: E402, F401  (public)
from .storage import TypedStorage, UntypedStorage, is_storage  # noqa: E402, F401  (public)

globals().update(_FOREACH)  # torch._foreach_add, _foreach_mul_, ... (one op over a tensor list)
from .ops.control_flow import cond  # noqa: E402, F401  (torch.cond, run eagerly)
