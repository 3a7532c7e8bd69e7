"""The backward graph: Node (a tensor's grad_fn), AccumulateGrad, saved-tensor checks, and
saved_tensors_hooks (torch.autograd.graph's context managers for how saved tensors are kept)."""
import contextlib as _contextlib
import itertools
import re as _re
import threading as _threading
import types as _types

from numpy import dtype as _np_dtype
from numpy import ndarray as _ndarray

from .. import _autograd_state as _grad_mode
from .. import _dtype, _fp, _meta
from .._autograd_state import InferenceVersion
from .._autograd_state import _state as _grad_state
from .._handles import RemovableHandle
from .._meta import settle as _settle
from .._tensor import Tensor as _Tensor
from . import _complex, _opmath, _saved
from ._saved import FREED, PackedTensor, SavedOutput, SavedTensor  # noqa: F401  (torch's names)
from ._saved import raise_freed as _raise_freed

_sequence = itertools.count()
_anomaly_mode = False  # set by autograd.anomaly; when off, ops pay only this flag check
# ember.onnx's tracer while it exports: it sets _anomaly_mode too, so that every op takes the
# general path of Node.apply and is seen here (costless when off: no check outside that path)
_observer = None
# while any thread is inside saved_tensors_hooks: the per-thread hooks state (see there), which
# _record then reads; None otherwise, so that recording checks only this
_saved_hooks = None
_packed_any = False  # True once hooks were entered: _unpack then keeps torch's unpack order
# autograd.forward_ad's op hook while a dual level is active: every op of Node.apply is given to
# it (and the fast paths step aside), so that its output gets a tangent; one flag check when off
_dual = None
_any_special = False  # True once any node was marked special (Node._mark_special); never reset


class Untracked:
    """An op that makes no node (no gradient: a comparison), as ``_observer`` is shown it."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


def observe_untracked(name, inputs, out):
    """Show ``_observer`` the op ``name`` (``out`` made from ``inputs`` without a node)."""
    if _observer is not None:
        _observer(Untracked(name), inputs, {}, out)
    return out
_new = object.__new__



def _type_name(np_dtype):
    """torch's legacy type name of an array's dtype ("ember.FloatTensor")."""
    return f"ember.{_dtype.of_numpy(np_dtype).scalar_name}Tensor"


class Node:
    """A backward function: ``grad_fn`` of a tensor made by an op that needs gradients.

    Subclasses implement ``forward(self, *inputs)`` (tensors in, ndarray out, saving what the
    backward needs with ``self.save``) and ``backward(self, m, grad, *saved)``, written once over
    the math namespace ``m``: NumPy arrays normally, ember tensors under ``create_graph=True``.
    """

    # _special: True once any hook or retain_grad is registered (the engine's slow path);
    # _after: True when a backward does more than free the saved values (cache or hook). Both
    # are read for every node a backward runs, so they are slots (a class default is a generic
    # lookup in CPython 3.11). Node has no __init__ (``cls()`` is the cheapest way to make an
    # instance): _record gives a node its state as it enters a graph, _blank one outside any.
    __slots__ = ("next_functions", "_seq", "_shapes", "_dtypes", "_saved", "_versions",
                 "_special", "_after", "__dict__", "__weakref__")
    saves_output = False  # True: backward receives the op's output as its last saved value
    complex_aware = False  # True: backward handles complex gradients itself (see _complex)
    # None: the result as NumPy lays it out (an element-wise op's: in its inputs' memory order,
    # as torch's TensorIterator); else a function (data, inputs) -> data giving torch's layout
    # when that differs (_memory_format.contiguous_result, ...)
    result_layout = None
    # rarely-set state lives in class defaults, overridden per instance only when used
    _pre_hooks = None
    _hooks = None
    _tensor_pre_hooks = None
    _retained = None
    _cached = False  # True when forward left attributes on the node (see _record): _release

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # grad_fn._saved_<name>: descriptors (a __getattr__ would slow every attribute read)
        _saved.add_saved_names(cls)
        for name in _PER_CLASS:
            if name not in cls.__dict__:
                setattr(cls, name, _code_copy(getattr(Node, name)))

    def _blank(self):
        """The fields of a node outside any graph (yet): a leaf's sink, a Function's context."""
        self.next_functions = ()
        self._seq = next(_sequence)
        self._saved = ()
        self._versions = None
        self._special = self._after = False

    @classmethod
    def apply(cls, *inputs, **kwargs):
        """Run ``forward`` on the inputs; attach this node as grad_fn when a gradient is needed."""
        node = cls()  # (no __init__: a node gets its state when _record puts it in a graph)
        node._saved = ()
        token = _fp.quiet()  # NaN and inf come silently, as torch's
        args = inputs
        if _dtype.reduced_loaded:  # bfloat16, float16: computed in float32 (torch's op math)
            args = _opmath.widen(cls, inputs)
        try:
            data = node.forward(*args, **kwargs)
        except (ValueError, IndexError) as error:
            torch_error = _translate_numpy_error(error, inputs)
            if torch_error is None:
                raise
            raise torch_error from None
        finally:
            _fp.restore(token)
        if type(data) is not _ndarray:  # a NumPy scalar, or a meta placeholder
            data = _settle(data, inputs)
        elif _meta.in_use:  # an op that made an ndarray from meta inputs gives a meta tensor
            data = _meta.recheck(data, inputs)
        if args is not inputs:  # bfloat16 computed in float32: rounded once, here
            data = _opmath.narrow(cls, data, inputs, kwargs)
        if cls.result_layout is not None and type(data) is _ndarray:  # (a meta placeholder
            # has no layout)
            data = cls.result_layout(data, inputs)
        if _dual is not None:
            return _dual(node, data, inputs, kwargs)
        if _anomaly_mode:
            return node._apply_anomaly(data, inputs, kwargs)
        if not _grad_mode.n_disabled or _grad_state._enabled:
            for t in inputs:
                if isinstance(t, _Tensor) and t._requires_grad:
                    return node._attach(data, inputs)
            out = _new(_Tensor)
            out._data, out._requires_grad, out._grad_fn, out._vc = data, False, None, [0]
            out._output_nr = 0
            return out
        return _made_without_grad(data, inputs)

    def _apply_anomaly(self, data, inputs, kwargs):
        out = None
        if _grad_state.enabled:
            for t in inputs:
                if isinstance(t, _Tensor) and t._requires_grad:
                    out = self._attach(data, inputs)
                    break
        if _observer is None:
            from .anomaly import on_forward  # anomaly builds on graph (a cycle); anomaly only
            on_forward(self, inputs, kwargs, data, out is not None)
        if out is None:
            out = _Tensor._make(data) if _grad_state.enabled else _made_without_grad(data, inputs)
        if _observer is not None:
            _observer(self, inputs, kwargs, out)
        return out

    def _attach(self, data, inputs):
        """Record this node for ``data`` computed from ``inputs``; return the output tensor."""
        edges = []
        for t in inputs:  # _edge, inlined: this runs once per recorded op
            if isinstance(t, _Tensor) and t._requires_grad:
                fn = t._grad_fn
                edges.append((fn, t._output_nr) if fn is not None else (t._accumulator(), 0))
            else:
                edges.append(_NO_EDGE)
        out = _new(_Tensor)
        out._data, out._vc, out._output_nr = data, [0], 0
        self._record(tuple(edges), self._saved, out)
        return out

    def _record(self, edges, saved, out=None, like=None, outputs=None, saves_output=None):
        """The one way a node enters the graph (ops, fast paths, Function, module hooks).

        ``edges``: one (node, output_nr) per input; ``saved``: tensors (version-checked at
        backward) or plain values. ``out``: the op's one output, which gets this node as grad_fn
        (and is saved too when ``saves_output``); its shape and dtype are taken from ``like``, an
        input's node, when the op keeps them (a fast path's cheap way), else from its data.
        ``outputs``: the (shapes, dtypes) of a node with several outputs, linked by the caller.
        ``saves_output``: the class's ``saves_output`` when the caller holds it already (a fast
        path: a class default read is a generic lookup in CPython 3.11).
        """
        self._seq = next(_sequence)
        self.next_functions = edges
        self._special = self._after = False
        if out is None:
            if self.__dict__:  # forward left attributes on the node: its release looks there
                self._cached = self._after = True
            self._shapes, self._dtypes = outputs
        else:
            out._requires_grad = True
            out._grad_fn = self
            shapes = like._shapes if like is not None else None
            if shapes is not None and len(shapes) == 1:
                self._shapes = shapes
                self._dtypes = like._dtypes
            else:
                if like is None and self.__dict__:  # (a fast path's node has no forward cache)
                    self._cached = self._after = True
                data = out._data
                self._shapes, self._dtypes = (data.shape,), (data.dtype,)
            if self.saves_output if saves_output is None else saves_output:
                kept = SavedOutput()
                kept._data, kept._vc, kept.requires_grad = out._data, out._vc, True
                if not saved:  # the output alone (a unary op's): its version, without a loop
                    self._saved = (kept,)
                    version = out._vc[0]  # (a new output's 0: one shared tuple)
                    self._versions = _VERSION_0 if version == 0 else (version,)
                    if _saved_hooks is not None:
                        _saved.pack_node(self, out, _saved_hooks.stack)
                    return
                saved += (kept,)
        self._saved = saved
        if not saved:
            self._versions = None
        elif len(saved) == 1:  # a unary op's input (the common case, without a loop)
            t = saved[0]
            if isinstance(t, _VERSIONED):
                self._versions = (t._vc[0] if type(t) is SavedOutput else _saved_version(t),)
            else:
                self._versions = None
        elif saved[0] is None and len(saved) == 2 and not isinstance(saved[1], _VERSIONED):
            self._versions = None  # a tensor-scalar op's (None, scalar)
        else:
            self._versions = _versions_of(saved)
        if _saved_hooks is not None:  # inside saved_tensors_hooks: the pack hook sees them
            _saved.pack_node(self, out, _saved_hooks.stack)

    def name(self):
        """The class name, as torch's ``grad_fn.name()``."""
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def save(self, *items):
        """Keep tensors (version-checked once the graph is recorded) or plain values."""
        self._saved = items

    def __dir__(self):  # without the _saved_* names a parent class shows and this one lacks
        return [n for n in super().__dir__() if not _saved.is_saved_name(n) or
                n in _saved.saved_names_of(self)]

    @property
    def metadata(self):
        return self.__dict__.setdefault("_metadata", {})

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) runs after this node; may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        self._mark_special()
        self._after = True
        return RemovableHandle(self._hooks, entry=fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) runs before this node; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        self._pre_hooks.append(fn)
        self._mark_special()
        return RemovableHandle(self._pre_hooks, entry=fn)

    def _mark_special(self):
        """The one way a node gets ``_special`` (a hook, a retained grad, a Function's user
        backward): the engine then runs it in its exact walk. The first one ever also turns on
        ``_any_special``, until when the frontier chain need not read the flag of each node
        (a read there sees every node class: a generic lookup in CPython 3.11)."""
        global _any_special
        self._special = _any_special = True

    def _add_tensor_pre_hook(self, output_nr, fn):
        self._mark_special()
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = []
        entry = (output_nr, fn)
        self._tensor_pre_hooks.append(entry)
        return RemovableHandle(self._tensor_pre_hooks, entry=entry)

    def forward(self, *inputs):
        raise NotImplementedError

    def backward(self, m, grad, *saved):
        raise NotImplementedError(f"{self.name()} has no backward")

    def _run_backward(self, m, grad, graph_mode, retain):
        """The one way this node's backward runs: its saved values unpacked (version-checked),
        ``backward``, its post-hooks, then its own release unless the graph is retained.
        ``grad``: the bare gradient of a one-output node, else one slot per output. Returns a
        tuple: one gradient (or None) per input edge."""
        saved = self._saved
        versions = self._versions
        if _dtype.reduced_loaded and not graph_mode and _opmath.reduced_grad(grad):
            outs = _opmath.backward(self, m, grad)  # in float32, as torch's op math
        elif (type(grad) is not _ndarray or self._dtypes[0] is not _FLOAT32
              and self._dtypes[0] is not _FLOAT64) and _complex.is_complex_grad(grad) \
                and not self.complex_aware:  # (an array gradient has its node's dtype, as the
            # engine conforms it: float32 and float64 told by identity on the node, not the array)
            outs = _complex.backward(self, m, grad, graph_mode)  # torch's convention: conj
        elif versions is None:  # plain values only: nothing to check
            if not saved:
                if saved is FREED:
                    _raise_freed()  # an earlier backward freed the graph
                outs = self.backward(m, grad)
            elif len(saved) == 2:  # a tensor-scalar op's (None, scalar): no *saved call
                outs = self.backward(m, grad, saved[0], saved[1])
            else:
                outs = self.backward(m, grad, *saved)
        elif len(saved) == 1 and not graph_mode:  # _unpack's common case, without its call
            item = saved[0]
            if item._vc[0] != versions[0]:
                self._raise_modified(item, versions[0])
            outs = self.backward(m, grad, item._data)
        else:
            outs = self.backward(m, grad, *self._unpack(graph_mode))
        if type(outs) is not tuple:
            outs = (outs,)
        if self._after:  # post-hooks or caches: the rare case
            return self._finish(outs, grad, graph_mode, retain)
        if saved and not retain:
            self._saved = FREED  # all that _release does without caches (the common case)
        return outs

    def _finish(self, outs, grad, graph_mode, retain):
        """``_run_backward``'s end for a node with post-hooks or forward caches."""
        if self._hooks is not None:
            outs = self._post_hooks(outs, grad if type(grad) is list else [grad], graph_mode)
        if not retain:
            if self._cached:
                self._release()
            elif self._saved:
                self._saved = FREED
        return outs

    def _unpack(self, graph_mode):
        """The saved values for backward: arrays, or tensors that record the graph."""
        saved = self._saved
        if saved is FREED:
            _raise_freed()
        versions = self._versions
        if versions is None:  # plain values only
            return saved
        if not graph_mode:  # the common cases, without the loop
            if len(saved) == 1:
                item, version = saved[0], versions[0]
                if item._vc[0] != version:
                    self._raise_modified(item, version)
                return (item._data,)
            if len(saved) == 2 and not _packed_any and None not in versions:  # (a, b)
                a, b = saved
                if a._vc[0] != versions[0]:
                    self._raise_modified(a, versions[0])
                if b._vc[0] != versions[1]:
                    self._raise_modified(b, versions[1])
                return a._data, b._data
        return self._unpack_each(saved, versions, graph_mode)

    def _unpack_each(self, saved, versions, graph_mode):
        """``_unpack``'s general case: each saved value checked and unpacked in turn."""
        if _packed_any:  # saved_tensors_hooks were used: unpack in torch's order first
            _saved.prefetch(self, saved)
        out = []
        for item, version in zip(saved, versions):
            if version is None:
                out.append(item)
                continue
            if item._vc[0] != version:
                self._raise_modified(item, version)
            if not graph_mode:
                out.append(item._data)
            elif isinstance(item, _Tensor):
                out.append(item)
            else:  # SavedOutput, PackedTensor: a tensor with its history
                out.append(item._restore(self))
        return out

    def _post_hooks(self, outs, grads, graph_mode):
        """Hooks registered with ``register_hook``: fn(grad_inputs, grad_outputs)."""
        for fn in self._hooks:
            res = fn(tuple(_as_tensor(g) for g in outs), tuple(_as_tensor(g) for g in grads))
            if res is not None:
                outs = tuple(r._data if isinstance(r, _Tensor) and not graph_mode else r
                             for r in res)
        return outs

    def _release(self):
        """Free what backward needed (backward without retain_graph): the saved values and
        every array cache the forward left on the node (statistics, indices, masks...), so
        nothing outlives the backward but the graph's shape; a second backward then raises."""
        cache = self.__dict__ if self._cached else None
        dropped = False
        if cache:
            for key, value in cache.items():
                if _holds_array(value):
                    cache[key] = None
                    dropped = True
        if self._saved or dropped:
            self._saved = FREED
            self._versions = None

    def _raise_modified(self, item, version):
        data = item._data
        where = ""
        if isinstance(item, SavedOutput):
            where = f", which is output 0 of {_op_name(self)},"
        elif getattr(item, "_grad_fn", None) is not None:
            where = f", which is output {item._output_nr} of {_op_name(item._grad_fn)},"
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [{_type_name(data.dtype)} {list(data.shape)}]{where} is "
            f"at version {item._vc[0]}; expected version {version} instead. Hint: enable anomaly "
            "detection to find the operation that failed to compute its gradient, with "
            "ember.autograd.set_detect_anomaly(True, check_nan=False).")


# The methods that run once per op on every node. Each Node subclass gets its own copy of their
# code object (the same source, no second implementation): CPython specializes attribute access
# per code object for one class at a time, so one shared copy, seeing every node class, falls back
# to generic lookups for each attribute; a copy per class stays specialized (~10% of the per-op
# time).
_PER_CLASS = ("_record", "_run_backward")


def _code_copy(function):
    """``function`` with its own copy of its code object (own specialization caches)."""
    copy = _types.FunctionType(function.__code__.replace(), function.__globals__,
                               function.__name__, function.__defaults__, function.__closure__)
    copy.__qualname__, copy.__doc__ = function.__qualname__, function.__doc__
    return copy


def _op_name(node):
    """'MulBackward0' -> 'Mul', as torch names the op in its version-counter error."""
    name = node.name()
    cut = name.rfind("Backward")
    return name[:cut] if cut > 0 else name



def broadcast_message(a, b):
    """torch's error for shapes that do not broadcast, or None when they do."""
    ndim = max(len(a), len(b))
    for k in range(1, min(len(a), len(b)) + 1):
        if a[-k] != b[-k] and a[-k] != 1 and b[-k] != 1:
            return (f"The size of tensor a ({a[-k]}) must match the size of tensor b ({b[-k]}) "
                    f"at non-singleton dimension {ndim - k}")
    return None


def _translate_numpy_error(error, inputs):
    """numpy's shape/index errors, reworded as torch's (raised only on the error path)."""
    text = str(error)
    if isinstance(error, ValueError) and "be broadcast" in text:
        shapes = [t._data.shape if isinstance(t, _Tensor) else t.shape for t in inputs
                  if isinstance(t, (_Tensor, _ndarray))]
        for i, a in enumerate(shapes):
            for b in shapes[i + 1:]:
                message = broadcast_message(a, b)
                if message:
                    return RuntimeError(message)
    if isinstance(error, IndexError) and "out of bounds for axis" in text:
        return IndexError(text.replace("for axis", "for dimension"))
    if isinstance(error, IndexError) and "indexing arrays could not be broadcast" in text:
        shapes = [[int(n) for n in shape.split(",") if n.strip()]
                  for shape in _re.findall(r"\(([^)]*)\)", text)]
        return IndexError("shape mismatch: indexing tensors could not be broadcast together "
                          "with shapes " + ", ".join(str(shape) for shape in shapes))
    return None


def _made_without_grad(data, inputs):
    """A result computed under no_grad; marked (for explain_grad) if an input required grad."""
    out = _Tensor._make(data)
    for t in inputs:
        if isinstance(t, _Tensor) and t._requires_grad:
            out.__dict__["_no_grad_origin"] = True
            break
    return out


_NO_EDGE = (None, 0)
_VERSION_0 = (0,)


def _saved_version(t):
    """The version of a tensor saved for backward; inference tensors cannot be saved."""
    version = t._vc
    if type(version) is InferenceVersion:
        raise RuntimeError(
            "Inference tensors cannot be saved for backward. Please do not use Tensors created "
            "in inference mode in computation tracked by autograd. To work around this, you can "
            "make a clone to get a normal tensor and use it in autograd, or use "
            "`torch.no_grad()` instead of `torch.inference_mode()`.")
    return version[0]


def _versions_of(saved):
    """The versions of the tensors among ``saved`` (None for plain values), or None if none."""
    if len(saved) == 2:  # a binary op's (a, b), without the loop
        a, b = saved
        if isinstance(a, _Tensor) and isinstance(b, _Tensor):
            return _saved_version(a), _saved_version(b)
    versions = [_saved_version(t) if isinstance(t, _VERSIONED) else None for t in saved]
    return tuple(versions) if versions.count(None) < len(versions) else None


def _as_tensor(g):
    return g if g is None or isinstance(g, _Tensor) else _Tensor._make(g)


def _holds_array(value):
    """Whether a node attribute keeps array memory alive (an array, a tensor, or a list or
    tuple holding one)."""
    if isinstance(value, _ARRAYS):
        return True
    if type(value) is tuple or type(value) is list:
        for item in value:
            if type(item) is not int and _holds_array(item):  # (a shape's ints: no call)
                return True
    return False


def _edge(t):
    """The (node, output_nr) pair through which a gradient reaches ``t``."""
    if isinstance(t, _Tensor) and t._requires_grad:
        fn = t._grad_fn
        if fn is None:
            return (t._accumulator(), 0)
        return (fn, t._output_nr)
    return _NO_EDGE


class AccumulateGrad(Node):
    """The sink for a leaf tensor: adds the incoming gradient into ``variable.grad``."""

    def __init__(self, variable):
        self._blank()
        self.variable = variable
        self._shapes = (variable._data.shape,)
        self._dtypes = (variable._data.dtype,)

    def _release(self):
        """A leaf's sink keeps its variable: nothing of a backward is cached here."""

    def name(self):
        """torch gives the leaf sink its C++ qualified name."""
        return "torch::autograd::AccumulateGrad"


_FLOAT32, _FLOAT64 = _np_dtype("float32"), _np_dtype("float64")  # (NumPy's one instance each)
_VERSIONED = (_Tensor, SavedOutput)  # (a PackedTensor is made after _record reads this)
_ARRAYS = (_ndarray, _Tensor)


# ---------------------------------------------------------------- saved tensors hooks
class _HooksState(_threading.local):
    """Per thread, as torch's: the open saved_tensors_hooks and the disabling message."""

    def __init__(self):
        self.stack = []  # (pack_hook, unpack_hook) pairs, innermost last
        self.disabled = None  # inside disable_saved_tensors_hooks: its message


_hooks_state = _HooksState()
_hooks_open = 0  # saved_tensors_hooks open in all threads
_hooks_lock = _threading.Lock()


class saved_tensors_hooks:
    """Context manager: each tensor an op saves for backward is kept as ``pack_hook(tensor)``
    and read back as ``unpack_hook(packed)`` when needed; nested, the innermost pair applies."""

    def __init__(self, pack_hook, unpack_hook):
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self):
        global _saved_hooks, _packed_any, _hooks_open
        if _hooks_state.disabled is not None:
            raise RuntimeError(_hooks_state.disabled)
        _hooks_state.stack.append((self.pack_hook, self.unpack_hook))
        with _hooks_lock:
            _hooks_open += 1
            _saved_hooks, _packed_any = _hooks_state, True
        return self

    def __exit__(self, *exc_info):
        global _saved_hooks, _hooks_open
        _hooks_state.stack.pop()
        with _hooks_lock:
            _hooks_open -= 1
            if not _hooks_open:
                _saved_hooks = None


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept in CPU memory (pinned if asked) and moved back for backward."""

    def __init__(self, pin_memory=False, device_type="cuda"):
        def pack_to_cpu(tensor):
            if not pin_memory:
                return tensor.device, tensor.cpu()
            return tensor.device, _Tensor._make(tensor._data.copy())  # a copy, as torch's

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


@_contextlib.contextmanager
def disable_saved_tensors_hooks(error_message):
    """Context manager (and decorator): saved_tensors_hooks raise ``error_message`` inside."""
    state = _hooks_state
    if state.stack:
        raise RuntimeError(error_message)
    previous, state.disabled = state.disabled, error_message
    try:
        yield
    finally:
        state.disabled = previous
