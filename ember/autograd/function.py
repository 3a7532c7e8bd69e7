"""User-defined differentiable operations: autograd.Function with a ctx, as torch."""
import contextlib
import warnings

import numpy as np

from .._tensor import Tensor
from . import forward_ad as _forward_ad
from . import grad_mode
from . import graph as _graph
from .anomaly import on_function_forward
from .graph import FREED, Node, _edge

_NO_CONTEXT = contextlib.nullcontext()


class FunctionCtx:
    """The ``ctx`` passed to forward/backward: saved tensors, flags and free attributes."""

    def save_for_backward(self, *tensors):
        """Keep tensors (or None) for backward; in-place changes to them are detected."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError("save_for_backward can only save variables, but argument "
                                f"{i} is of type {type(t).__name__}")
        self._to_save = tensors

    def mark_non_differentiable(self, *tensors):
        self._non_diff = {id(t) for t in tensors}

    def mark_dirty(self, *tensors):
        self._dirty = {id(t) for t in tensors}

    def set_materialize_grads(self, value):
        self._materialize = bool(value)

    def save_for_forward(self, *tensors):
        self._saved_forward = tensors


class BackwardCFunction(Node, FunctionCtx):
    """The graph node of a custom Function: its ctx, and the bridge to its backward."""

    _function = None
    _materialize = True
    complex_aware = True  # the user's backward gets torch's complex gradients as they are

    def __init__(self):
        self._blank()  # the context exists before (and without) the graph: Function.apply

    @property
    def saved_tensors(self):
        if "_in_jvp" in self.__dict__:  # in jvp: what save_for_forward kept, as torch
            return tuple(self.__dict__.get("_saved_forward", ()))
        # unpacked (and version-checked) only here, as torch: the engine leaves them alone, as
        # its backward never reads them (its versions are set aside at record, see _connect)
        self._versions = self.__dict__.get("_ctx_versions")
        try:
            return tuple(self._unpack(True))
        finally:
            self._versions = None

    saved_variables = saved_tensors

    @property
    def needs_input_grad(self):
        return self.__dict__.get("_needs_input_grad", ())

    def backward(self, m, grads, *saved):
        grads = list(grads) if isinstance(grads, list) else [grads]
        for i, g in enumerate(grads):
            if g is None and self._materialize:
                g = np.zeros(self._shapes[i], self._dtypes[i])
            grads[i] = g if g is None or isinstance(g, Tensor) else Tensor._make(g)
        result = self._function.backward(self, *grads)
        if not isinstance(result, tuple):
            result = (result,)
        n = len(self.next_functions)
        if len(result) != n:
            if len(result) > n and all(r is None for r in result[n:]):
                result = result[:n]
            else:
                raise RuntimeError(f"function {type(self).__name__} returned an incorrect number "
                                   f"of gradients (expected {n}, got {len(result)})")
        return tuple(self._checked(i, r, m) for i, r in enumerate(result))

    def _checked(self, i, grad, m):
        """The gradient for input ``i``, as the engine takes it; torch's checks first."""
        if grad is None:
            return None
        if not self._tensor_inputs[i]:
            raise RuntimeError(f"function {type(self).__name__} returned a gradient different "
                               f"than None at position {i + 1}, but the corresponding forward "
                               "input was not a Variable")
        if not isinstance(grad, Tensor):
            raise RuntimeError(f"expected Variable or None (got {type(grad).__name__})")
        nxt, nr = self.next_functions[i]
        if nxt is not None and not _expandable(nxt._shapes[nr], grad._data.shape):
            raise RuntimeError(f"Function {type(self).__name__} returned an invalid gradient at "
                               f"index {i} - got {list(grad._data.shape)} but expected shape "
                               f"compatible with {list(nxt._shapes[nr])}")
        return grad if m.is_graph else grad._data

    def apply(self, *grads):
        return self._function.backward(self, *grads)

    def _release(self):
        """Only the tensors of save_for_backward: what user code put on ctx stays, as torch."""
        if self._saved:
            self._saved = FREED
            self._versions = None


def _expandable(shape, grad_shape):
    """Whether a gradient of ``grad_shape`` sums back to ``shape`` (shape broadcasts to it)."""
    if len(shape) > len(grad_shape):
        return False
    return all(s == g or s == 1 for s, g in zip(shape[::-1], grad_shape[::-1]))


class FunctionMeta(type):
    """Gives each Function subclass its own node class, named ``<Name>Backward``."""

    def __init__(cls, name, bases, attrs):
        super().__init__(name, bases, attrs)
        cls._backward_cls = type(name + "Backward", (BackwardCFunction,), {"_function": cls})


class Function(metaclass=FunctionMeta):
    """Subclass with static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``; call apply."""

    def __init__(self, *args, **kwargs):
        # torch still lets the class be instantiated (old-style code does), with a warning
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions "
                      "are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future "
                      "version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: https://pytorch.org/docs/stable/"
                           "autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError("You must implement the jvp function for custom "
                                  "autograd.Function to use it with forward mode AD.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        return None

    @classmethod
    def apply(cls, *args, **kwargs):
        node = cls._backward_cls()
        node._needs_input_grad = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        node._tensor_inputs = tuple(isinstance(a, Tensor) for a in args)
        tangents = _input_tangents(args) if _graph._dual is not None else None
        with grad_mode.no_grad(), _forward_ad.hidden(args) if tangents else _NO_CONTEXT:
            if _overrides_setup(cls):
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(node, args, outputs)
            else:
                outputs = cls.forward(node, *args, **kwargs)
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        record = grad_mode._state.enabled and any(node._needs_input_grad)
        outs = tuple(_wrap_output(node, o, args, record) for o in outs)
        if record:
            _connect(node, args, outs)
        if _graph._anomaly_mode:
            on_function_forward(node, outs)
        if tangents:
            _run_jvp(cls, node, args, tangents, outs)
        return outs[0] if single else outs


def _input_tangents(args):
    """The tangents of a Function's inputs (None where none), or None when no input has one."""
    tangents = [_forward_ad.tangent_of(a) for a in args]
    return tangents if any(t is not None for t in tangents) else None


def _run_jvp(cls, node, args, tangents, outs):
    """Forward mode through a custom Function: its ``jvp`` gets one tangent per input (zeros
    for a tensor without one, None for a non-tensor) and returns one per output."""
    grads = [None if not isinstance(a, Tensor) else t if t is not None else
             Tensor._make(np.zeros_like(a._data)) for a, t in zip(args, tangents)]
    node._in_jvp = True
    try:
        with _forward_ad.hidden():
            result = cls.jvp(node, *grads)
    finally:
        del node._in_jvp
    result = result if isinstance(result, tuple) else (result,)
    if len(result) != len(outs):
        raise RuntimeError("Function's jvp returned an invalid number of forward gradients "
                           f"(expected {len(outs)} but got {len(result)})")
    for out, tangent in zip(outs, result):
        if isinstance(out, Tensor) and tangent is not None and out._data.dtype.kind in "fcV":
            _forward_ad.check_tangent(out, tangent)
            _forward_ad.set_tangent(out, tangent)


def _overrides_setup(cls):
    return cls.setup_context is not Function.setup_context


def _wrap_output(node, out, args, record):
    if not isinstance(out, Tensor):
        return out
    if any(out is a for a in args) and record:  # an input returned as-is: a new alias
        alias = Tensor._make(out._data)
        alias._vc = out._vc
        return alias
    return out


def _connect(node, args, outs):
    non_diff = node.__dict__.get("_non_diff", ())
    dirty = node.__dict__.get("_dirty", ())
    if any(isinstance(a, Tensor) and id(a) in dirty and a._grad_fn is None and a._requires_grad
           for a in args):  # torch's check after forward: a leaf was modified in place
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                           "operation.")
    for i, o in enumerate(outs):
        if isinstance(o, Tensor) and id(o) not in non_diff and o._data.dtype.kind in "fcV":
            o._grad_fn, o._output_nr, o._requires_grad = node, i, True
            if id(o) in node.__dict__.get("_dirty", ()):
                o._vc[0] += 1  # before the saved versions are taken: saving it is fine
    shapes = tuple(o._data.shape if isinstance(o, Tensor) else () for o in outs)
    dtypes = tuple(o._data.dtype if isinstance(o, Tensor) else np.float32 for o in outs)
    node._record(tuple(_edge(a) for a in args), tuple(node.__dict__.pop("_to_save", ())),
                 outputs=(shapes, dtypes))
    # User code runs in its backward and may look at leaves' .grad mid-pass: the engine runs
    # such graphs in its exact order (leaf sinks as soon as ready), as for hooks.
    node._mark_special()
    node._ctx_versions, node._versions = node._versions, None


class InplaceFunction(Function):
    pass


class NestedIOFunction(Function):
    pass


def once_differentiable(fn):
    """Marks a backward as not differentiable twice (accepted for compatibility)."""
    return fn
