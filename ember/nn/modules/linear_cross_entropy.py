"""LinearCrossEntropyLoss (a Linear layer's logits scored by cross entropy) and its options."""
import dataclasses
import math

from ... import _dtype
from .._functional_linear_ce import linear_cross_entropy
from .linear import Linear
from .loss import _WeightedLoss

_ACC_DTYPES = (_dtype.float16, _dtype.bfloat16, _dtype.float32, _dtype.float64)


@dataclasses.dataclass(frozen=True)
class LinearCrossEntropyOptions:
    """torch's chunking options for linear_cross_entropy, validated as torch validates them;
    ember computes the reference path, whose values the chunked one reproduces."""

    allow_retain_graph: bool = False
    batch_chunk_size: int = None
    chunking_method: str = "auto"
    acc_policy: str = "auto"
    acc_dtype: object = None

    def __post_init__(self):
        if self.acc_policy not in {"auto", "accurate", "balanced", "compact"}:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            factor = factor if sep else "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None or (isinstance(self.batch_chunk_size, int)
                                                  and self.batch_chunk_size > 0)):
            raise ValueError(f"batch_chunk_size must be positive int or None, got "
                             f"{self.batch_chunk_size!r}")
        if self.acc_dtype is not None and self.acc_dtype not in _ACC_DTYPES:
            raise ValueError("acc_dtype must be one of {None, ember.float16, ember.bfloat16, "
                             f"ember.float32, ember.float64}}, got {self.acc_dtype!r}. Pass "
                             "acc_dtype=None to let the op pick automatically.")


class LinearCrossEntropyLoss(_WeightedLoss):
    """cross_entropy(Linear(input), target) with a Linear of in_features -> num_classes *
    prod(out_features) outputs, reshaped to (num_classes, *out_features) logits."""

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None,
                 dtype=None, reduction="mean", weight=None, ignore_index=None,
                 label_smoothing=0.0, options=None):
        if weight is not None and tuple(weight.shape) != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got "
                               f"{tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got "
                               f"{label_smoothing}")
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes, self.out_features = num_classes, out_features
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes), bias=bias,
                             dtype=dtype)
        self.options = options

    def forward(self, input, target):
        shape = (self.num_classes, *self.out_features)
        bias = self.linear.bias.reshape(shape) if self.linear.bias is not None else None
        return linear_cross_entropy(
            input, self.linear.weight.reshape(shape + (self.linear.in_features,)), target,
            linear_bias=bias, weight=self.weight, reduction=self.reduction,
            ignore_index=self.ignore_index, label_smoothing=self.label_smoothing,
            options=self.options)

    def extra_repr(self):
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")
