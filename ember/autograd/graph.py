"""The backward graph: Node (a tensor's grad_fn), AccumulateGrad, and saved-tensor checks."""
import itertools

from .. import _dtype

_sequence = itertools.count()
_anomaly_mode = False  # set by autograd.anomaly; when off, ops pay only this flag check
_new = object.__new__



def _type_name(np_dtype):
    """torch's legacy type name of an array's dtype ("ember.FloatTensor")."""
    return f"ember.{_dtype.of_numpy(np_dtype).scalar_name}Tensor"


# The kinds of ops.fastpath's nodes (Node._fast), whose plain backward the engine runs inline:
PASS = 1  # da = g (a + s, a - s): nothing saved
SCALAR = 2  # da = _formula(g, s) (a * s, a / s): saved (None, s)
PLAIN = 3  # da = _formula(g) (-a): nothing saved
SAVED_ONE = 4  # da = _formula(g, x), x the saved input or output (version-checked)


class _Freed(tuple):
    """A node's saved values once a backward has freed them: empty, and told apart from ()."""

    __slots__ = ()


FREED = _Freed()


class SavedOutput:
    """An op's own output kept for backward, stored without the tensor to avoid a cycle."""

    __slots__ = ("_data", "_vc", "requires_grad")

    def __init__(self, tensor):
        self._data = tensor._data
        self._vc = tensor._vc
        self.requires_grad = tensor._requires_grad


class Node:
    """A backward function: ``grad_fn`` of a tensor made by an op that needs gradients.

    Subclasses implement ``forward(self, *inputs)`` (tensors in, ndarray out, saving what the
    backward needs with ``self.save``) and ``backward(self, m, grad, *saved)``, written once over
    the math namespace ``m``: NumPy arrays normally, ember tensors under ``create_graph=True``.
    """

    __slots__ = ("next_functions", "_seq", "_shapes", "_dtypes", "_saved", "_versions",
                 "__dict__", "__weakref__")
    saves_output = False  # True: backward receives the op's output as its last saved value
    # rarely-set state lives in class defaults, overridden per instance only when used
    _pre_hooks = None
    _hooks = None
    _tensor_pre_hooks = None
    _retained = None
    _special = False  # True once any hook or retain_grad is registered: the engine's slow path
    _fast = 0  # ops.fastpath's node classes: their kind (PASS, ...), run inline by the engine

    def __init__(self):
        self.next_functions = ()
        self._seq = next(_sequence)
        self._saved = ()

    @classmethod
    def apply(cls, *inputs, **kwargs):
        """Run ``forward`` on the inputs; attach this node as grad_fn when a gradient is needed."""
        node = _new(cls)  # Node.__init__ is skipped: a node without a graph needs no state
        node._saved = ()
        token = _fp.quiet()  # NaN and inf come silently, as torch's
        try:
            data = node.forward(*inputs, **kwargs)
        except (ValueError, IndexError) as error:
            torch_error = _translate_numpy_error(error, inputs)
            if torch_error is None:
                raise
            raise torch_error from None
        finally:
            _fp.restore(token)
        if type(data) is not _ndarray:
            data = _asarray(data)
        if _anomaly_mode:
            return node._apply_anomaly(data, inputs, kwargs)
        if not _grad_mode.n_disabled or _grad_state._enabled:
            for t in inputs:
                if isinstance(t, _Tensor) and t._requires_grad:
                    return node._attach(data, inputs)
            out = _new(_Tensor)
            out._data, out._requires_grad, out._grad_fn, out._vc = data, False, None, [0]
            return out
        return _made_without_grad(data, inputs)

    def _apply_anomaly(self, data, inputs, kwargs):
        out = None
        if _grad_state.enabled:
            for t in inputs:
                if isinstance(t, _Tensor) and t._requires_grad:
                    out = self._attach(data, inputs)
                    break
        from .anomaly import on_forward
        on_forward(self, inputs, kwargs, data, out is not None)
        if out is None:
            out = _Tensor._make(data) if _grad_state.enabled else _made_without_grad(data, inputs)
        return out

    def _attach(self, data, inputs):
        """Record this node in the graph: edges to the inputs, output metadata, saved versions."""
        self._seq = next(_sequence)
        edges = []
        for t in inputs:  # _edge, inlined: this runs once per recorded op
            if isinstance(t, _Tensor) and t._requires_grad:
                fn = t._grad_fn
                edges.append((fn, t._output_nr) if fn is not None else (t._accumulator(), 0))
            else:
                edges.append(_NO_EDGE)
        self.next_functions = tuple(edges)
        self._shapes = (data.shape,)
        self._dtypes = (data.dtype,)
        out = _new(_Tensor)
        out._data, out._requires_grad, out._grad_fn, out._vc = data, True, self, [0]
        saved = self._saved
        if saved or self.saves_output:
            if self.saves_output:
                saved = self._saved = saved + (SavedOutput(out),)
            versions = []
            for t in saved:
                versions.append(t._vc[0] if isinstance(t, _VERSIONED) else None)
            self._versions = tuple(versions)
        return out

    def name(self):
        """The class name, as torch's ``grad_fn.name()``."""
        return type(self).__name__

    def __repr__(self):
        return f"<{type(self).__name__} object at {hex(id(self))}>"

    def save(self, *items):
        """Keep tensors (version-checked once the graph is recorded) or plain values."""
        self._saved = items

    @property
    def metadata(self):
        return self.__dict__.setdefault("_metadata", {})

    def register_hook(self, fn):
        """fn(grad_inputs, grad_outputs) runs after this node; may return new grad_inputs."""
        if self._hooks is None:
            self._hooks = []
        self._hooks.append(fn)
        self._special = True
        return _RemovableHandle(self._hooks, fn)

    def register_prehook(self, fn):
        """fn(grad_outputs) runs before this node; may return new grad_outputs."""
        if self._pre_hooks is None:
            self._pre_hooks = []
        self._pre_hooks.append(fn)
        self._special = True
        return _RemovableHandle(self._pre_hooks, fn)

    def _add_tensor_pre_hook(self, output_nr, fn):
        self._special = True
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = []
        entry = (output_nr, fn)
        self._tensor_pre_hooks.append(entry)
        return _RemovableHandle(self._tensor_pre_hooks, entry)

    def forward(self, *inputs):
        raise NotImplementedError

    def backward(self, m, grad, *saved):
        raise NotImplementedError(f"{self.name()} has no backward")

    def _unpack(self, graph_mode):
        """The saved values for backward: arrays, or tensors that record the graph."""
        saved = self._saved
        if not saved:
            if saved is FREED:
                _raise_freed()
            return saved
        out = []
        for item, version in zip(saved, self._versions):
            if version is None:
                out.append(item)
                continue
            if item._vc[0] != version:
                self._raise_modified(item, version)
            if not graph_mode:
                out.append(item._data)
            elif type(item) is SavedOutput:
                out.append(_restore_output(item, self))
            else:
                out.append(item)
        return out

    def _release(self):
        """Free the saved values (backward without retain_graph)."""
        if self._saved:
            self._saved = FREED
            self._versions = ()

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


def _raise_freed():
    raise RuntimeError(
        "Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed). Saved intermediate values of the "
        "graph are freed when you call .backward() or autograd.grad(). Specify "
        "retain_graph=True if you need to backward through the graph a second time or "
        "if you need to access saved tensors after calling backward.")



def _translate_numpy_error(error, inputs):
    """numpy's shape/index errors, reworded as torch's (raised only on the error path)."""
    text = str(error)
    if isinstance(error, ValueError) and "could not be broadcast" in text:
        shapes = [t._data.shape for t in inputs if isinstance(t, _Tensor)]
        for i, a in enumerate(shapes):
            for b in shapes[i + 1:]:
                message = broadcast_message(a, b)
                if message:
                    return RuntimeError(message)
    if isinstance(error, IndexError) and "out of bounds for axis" in text:
        return IndexError(text.replace("for axis", "for dimension"))
    return None


def _made_without_grad(data, inputs):
    """A result computed under no_grad; marked (for explain_grad) if an input required grad."""
    out = _Tensor._make(data)
    for t in inputs:
        if isinstance(t, _Tensor) and t._requires_grad:
            out.__dict__["_no_grad_origin"] = True
            break
    return out


def _restore_output(saved, node):
    t = _Tensor._make(saved._data, saved.requires_grad, node if saved.requires_grad else None)
    t._vc = saved._vc
    return t


_NO_EDGE = (None, 0)
UNVERSIONED_PAIR = (None, None)  # the versions of two saved plain values (engine: skip checks)


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
        super().__init__()
        self.variable = variable
        self._shapes = (variable._data.shape,)
        self._dtypes = (variable._data.dtype,)

    def name(self):
        """torch gives the leaf sink its C++ qualified name."""
        return "torch::autograd::AccumulateGrad"


class _RemovableHandle:
    """Returned by register_hook; ``remove()`` unregisters the hook."""

    _next_id = itertools.count()

    def __init__(self, container, entry):
        self._container = container
        self._entry = entry
        self.id = next(self._next_id)

    def remove(self):
        container = self._container
        for i, e in enumerate(container):
            if e is self._entry:
                del container[i]
                return

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


from numpy import asarray as _asarray  # noqa: E402
from numpy import ndarray as _ndarray  # noqa: E402

from .. import _fp  # noqa: E402
from .._tensor import Tensor as _Tensor  # noqa: E402
from . import grad_mode as _grad_mode  # noqa: E402
from .grad_mode import _state as _grad_state  # noqa: E402

_VERSIONED = (_Tensor, SavedOutput)
