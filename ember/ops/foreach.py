"""torch._foreach_*: one op over a list of tensors, each tensor as the single-tensor op would do
(with a scalar, a list of scalars, a tensor or a list of tensors as the other operand);
the in-place forms return the list they updated, the others a tuple, as torch's."""
from .._tensor import Tensor

_UNARY = ("abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "expm1",
          "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "neg", "reciprocal",
          "round", "rsqrt", "sigmoid", "sign", "sin", "sinh", "sqrt", "tan", "tanh", "trunc")
_BINARY = ("add", "sub", "mul", "div", "clamp_min", "clamp_max", "maximum", "minimum", "pow")

# maximum/minimum take tensors only; with a number they are clamp_min/clamp_max (as torch's)
_SCALAR_FORMS = {"maximum": "clamp_min", "minimum": "clamp_max"}


def _check(tensors, *others):
    """torch's errors for an empty list or lists of different lengths."""
    if len(tensors) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")
    for other in others:
        if isinstance(other, (list, tuple)) and len(other) != len(tensors):
            if other and all(isinstance(o, Tensor) for o in other):
                raise RuntimeError(f"Tensor lists must have the same number of tensors, got "
                                   f"{len(tensors)} and {len(other)}")
            raise RuntimeError("Tensor list must have same number of elements as scalar list.")


def _each(other, n):
    return list(other) if isinstance(other, (list, tuple)) else [other] * n


def _unary(name, inplace):
    def op(self):
        _check(self)
        if inplace:
            for t in self:
                getattr(t, name + "_")()
            return self
        return tuple(getattr(t, name)() for t in self)
    return op


def _binary(name, inplace):
    def op(self, other, *, alpha=None):
        if name == "pow" and not isinstance(self, (list, tuple)):  # _foreach_pow(scalar, list)
            _check(other)
            return tuple(self ** t for t in other)
        _check(self, other)
        kwargs = {} if alpha is None else {"alpha": alpha}
        results = [getattr(t, _SCALAR_FORMS.get(name, name) if not isinstance(o, Tensor) else
                           name)(o, **kwargs) for t, o in zip(self, _each(other, len(self)))]
        if not inplace:
            return tuple(results)
        for t, result in zip(self, results):
            t.copy_(result)
        return self
    return op


def _pointwise(name, inplace):
    """addcmul / addcdiv: self + value * t1 (*|/) t2, value a scalar, a list or a tensor."""
    def op(self, tensor1, tensor2, value=1):
        _check(self, tensor1, tensor2, value)
        if isinstance(value, Tensor):
            value = value.tolist()
        triples = zip(self, tensor1, tensor2, _each(value, len(self)))
        method = name + ("_" if inplace else "")
        results = [getattr(t, method)(a, b, value=v) for t, a, b, v in triples]
        return self if inplace else tuple(results)
    return op


def _lerp(inplace):
    def op(self, tensors1, weight):
        _check(self, tensors1, weight)
        pairs = zip(self, tensors1, _each(weight, len(self)))
        results = [getattr(t, "lerp_" if inplace else "lerp")(end, w) for t, end, w in pairs]
        return self if inplace else tuple(results)
    return op


def _foreach_norm(self, ord=2, dtype=None):
    _check(self)
    return tuple(t.norm(ord, dtype=dtype) if dtype is not None else t.norm(ord) for t in self)


def _foreach_max(self):
    _check(self)
    return tuple(t.max() for t in self)


def _foreach_clone(self):
    return tuple(t.clone() for t in self)


def _foreach_copy_(self, src, non_blocking=False):
    _check(self, src)
    for t, s in zip(self, src):
        t.copy_(s)
    return self


def _foreach_zero_(self):
    _check(self)
    for t in self:
        t.zero_()
    return self


def _functions():
    table = {}
    for inplace, suffix in ((False, ""), (True, "_")):
        for name in _UNARY:
            table[f"_foreach_{name}{suffix}"] = _unary(name, inplace)
        for name in _BINARY:
            table[f"_foreach_{name}{suffix}"] = _binary(name, inplace)
        for name in ("addcmul", "addcdiv"):
            table[f"_foreach_{name}{suffix}"] = _pointwise(name, inplace)
        table[f"_foreach_lerp{suffix}"] = _lerp(inplace)
    for name, fn in list(table.items()):
        fn.__name__ = fn.__qualname__ = name
    for fn in (_foreach_norm, _foreach_max, _foreach_clone, _foreach_copy_, _foreach_zero_):
        table[fn.__name__] = fn
    return table


FUNCTIONS = _functions()
