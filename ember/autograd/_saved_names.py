"""Where each node keeps what torch shows as ``grad_fn._saved_<name>``, in torch's pack order."""
import math


def _numel(node):
    return math.prod(node.shape)  # a reduction's input size (its ``shape``)


def _permutation(node):
    dims = [0] * len(node.inverse)  # permute's dims, from the inverse its backward keeps
    for axis, position in enumerate(node.inverse):
        dims[position] = axis
    return tuple(dims)


def _transposed(tensor):
    return tensor.t()  # linear's weight: torch saves ``weight.t()`` (the addmm it records)


# node class -> ((torch's name, where ember keeps it, needed by), ...), in the order in which
# torch packs and unpacks them (saved_tensors_hooks show that order). ``where``: an int is a
# position in ``node._saved`` (a node with ``saves_output`` keeps its output last); a str is an
# attribute of the node; a pair (position, _transposed) shows the tensor there transposed (pack
# hooks see it so, and what they give back is transposed again for the backward).
# ``needed by``: None (always saved), or the input whose gradient uses the value: torch saves it
# only when that input needs a gradient (None otherwise), so its pack hook never sees it.
_SELF = (("self", 0, None),)
_RESULT = (("result", 0, None),)
_MM = (("mat2", 1, None), ("self", 0, None))
_SUM = (("dim", "dims", None), ("keepdim", "keepdim", None), ("self_sym_sizes", "shape", None))
_MEAN = _SUM + (("self_sym_numel", _numel, None),)
_LINEAR = (("mat1", 0, None), ("mat2", (1, _transposed), None))

SAVED_NAMES = {
    "MulBackward0": (("other", 1, 0), ("self", 0, 1)),
    "DivBackward0": (("other", 1, None), ("self", 0, 1)),
    "PowBackward0": (("self", 0, None), ("exponent", 1, None)),
    "PowBackward1": (("exponent", 1, None), ("self", 0, None), ("result", 2, None)),
    "PowBackward2": (("self", 0, None), ("result", 1, None)),
    "MaximumBackward0": (("other", 1, None), ("self", 0, None)),
    "MinimumBackward0": (("other", 1, None), ("self", 0, None)),
    "ThresholdBackward0": _SELF + (("threshold", "threshold", None),),
    "ClampBackward1": _SELF + (("min", "lo", None), ("max", "hi", None)),
    "AddBackward0": (("alpha", "alpha", None),),
    "SubBackward0": (("alpha", "alpha", None),),
    "MmBackward0": _MM,
    "BmmBackward0": _MM,
    "MvBackward0": (("self", 0, None), ("vec", 1, None)),
    "DotBackward0": (("self", 0, None), ("tensor", 1, None)),
    "AddmmBackward0": (("alpha", "alpha", None), ("beta", "beta", None), ("mat1", 0, None),
                       ("mat2", 1, None)),
    # nn.Linear's fused node (ember.ops.linear_ops): saves (input, weight)
    "ember.ops.linear_ops.AddmmBackward0": (("alpha", lambda node: 1, None),
                                            ("beta", lambda node: 1, None)) + _LINEAR,
    "ember.ops.linear_ops.MmBackward0": (("mat2", (1, _transposed), None), ("self", 0, None)),
    "SumBackward0": (("self_sym_sizes", "shape", None),),
    "SumBackward1": _SUM,
    "MeanBackward0": (("self_sym_numel", _numel, None), ("self_sym_sizes", "shape", None)),
    "MeanBackward1": _MEAN,
    "SoftmaxBackward0": (("dim", "dim", None), ("result", 0, None)),
    "LogSoftmaxBackward0": (("dim", "dim", None), ("result", 0, None)),
    "NegBackward0": (),
    # reductions that keep their input and output
    "MaxBackward1": (("self", 0, None), ("result", 1, None)),
    "MinBackward1": (("self", 0, None), ("result", 1, None)),
    "ProdBackward0": (("self", 0, None), ("result", 1, None)),
    "LinalgVectorNormBackward0": (("self", 0, None), ("result", 1, None), ("ord", "p", None),
                                  ("keepdim", "keepdim", None)),
    "VarBackward0": (("self", 0, None), ("dim", "dims", None), ("keepdim", "keepdim", None)),
    "StdBackward0": (("self", 0, None), ("dim", "dims", None), ("keepdim", "keepdim", None)),
    "MaxBackward0": (("dim", "dim", None), ("keepdim", "keepdim", None),
                     ("self_sym_sizes", "shape", None)),
    "CumsumBackward0": (("dim", "dim", None),),
    # activations (nn.functional)
    "GeluBackward0": (("self", 0, None), ("approximate", "approximate", None)),
    "SiluBackward0": _SELF,
    "LogSigmoidBackward0": _SELF,
    "LeakyReluBackward0": _SELF + (("negative_slope", "slope", None),),
    "EluBackward0": _SELF + (("alpha", "alpha", None), ("scale", "scale", None),
                             ("input_scale", "input_scale", None)),
    "SoftplusBackward0": _SELF + (("beta", "beta", None), ("threshold", "threshold", None)),
    "HardtanhBackward0": _SELF + (("min_val", "lo", None), ("max_val", "hi", None)),
    # losses, convolution, normalization (ember keeps the statistics as arrays: not shown)
    "MseLossBackward0": (("self", 0, None), ("target", 1, None)),
    "BinaryCrossEntropyWithLogitsBackward0": (("self", 0, None), ("target", 1, None),
                                              ("weight", "weight", None),
                                              ("pos_weight", "pos_weight", None)),
    "ConvolutionBackward0": (("input", 0, None), ("weight", 1, None),
                             ("transposed", "transposed", None)),
    "NativeLayerNormBackward0": (("input", 0, None), ("weight", 1, None)),
    "NativeBatchNormBackward0": (("input", 0, None), ("weight", 1, None), ("eps", "eps", None),
                                 ("training", "training", None)),
    # views and joins: what their backward needs to know of the input
    "ViewBackward0": (("self_sym_sizes", "shape", None),),
    "SqueezeBackward1": (("self_sym_sizes", "shape", None),),
    "SliceBackward0": (("self_sym_sizes", "shape", None),),
    "SelectBackward0": (("index", "index", None), ("self_sym_sizes", "shape", None)),
    "TransposeBackward0": (("dim0", "d0", None), ("dim1", "d1", None)),
    "CatBackward0": (("dim", "dim", None),),
    "StackBackward0": (("dim", "dim", None),),
    "PermuteBackward0": (("dims", _permutation, None),),
    "FlipBackward0": (("dims", "dims", None),),
    "RepeatBackward0": (("repeats", "repeats", None), ("self_sym_sizes", "shape", None)),
    "SplitBackward0": (("self_sym_sizes", "shape", None),),
    "IndexBackward0": (("self_sym_sizes", "shape", None),),
    "GatherBackward0": (("dim", "dim", None),),
    "SortBackward0": (("self_sym_sizes", "shape", None),),  # (torch shows dim as given)
    "TopkBackward0": (("self_sym_sizes", "shape", None),),
    "CumprodBackward0": (("dim", "dim", None), ("self", 0, None), ("result", 1, None)),
    "RsubBackward1": (("alpha", "alpha", None),),
}
for _name in ("Log", "Log2", "Log10", "Log1P", "Sin", "Cos", "Asin", "Acos", "Atan", "Sinh",
              "Cosh", "Abs"):
    SAVED_NAMES[_name + "Backward0"] = _SELF
for _name in ("Exp", "Expm1", "Sqrt", "Rsqrt", "Tan", "Tanh", "Sigmoid", "Reciprocal", "Relu"):
    SAVED_NAMES[_name + "Backward0"] = _RESULT

_by_class = {}


def saved_names(cls):
    """The (name, where, needed by) rows of a node class (a module-qualified entry first), or
    None for a class this table does not know."""
    rows = _by_class.get(cls, False)
    if rows is False:
        rows = SAVED_NAMES.get(f"{cls.__module__}.{cls.__name__}")
        if rows is None:
            rows = SAVED_NAMES.get(cls.__name__)
        _by_class[cls] = rows
    return rows
