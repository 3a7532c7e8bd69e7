"""Saved tensors seen as torch shows them: packed by saved_tensors_hooks, ``grad_fn._saved_*``."""
import weakref

import numpy as np

from .._autograd_state import _state as _grad_state
from .._tensor import Tensor
from ._saved_names import saved_names


class _Freed(tuple):
    """A node's saved values once a backward has freed them: empty, and told apart from ()."""

    __slots__ = ()


FREED = _Freed()


def raise_freed():
    raise RuntimeError(
        "Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed). Saved intermediate values of the "
        "graph are freed when you call .backward() or autograd.grad(). Specify "
        "retain_graph=True if you need to backward through the graph a second time or "
        "if you need to access saved tensors after calling backward.")


# forward_ad's, while a dual level is active: id(SavedOutput) -> (the SavedOutput, its output's
# tangent, the setter giving a tensor a tangent); emptied when the level ends
output_tangents = {}


class SavedOutput:
    """An op's own output kept for backward, stored without the tensor to avoid a cycle."""

    __slots__ = ("_data", "_vc", "requires_grad")  # (set by Node._record, which makes it)

    def _restore(self, node):
        """The output again, as a new tensor (``node`` its grad_fn) sharing its version, with
        its tangent while the dual level it was made in is active (forward over reverse)."""
        tensor = Tensor._make(self._data, self.requires_grad, node if self.requires_grad else None)
        tensor._vc = self._vc
        if output_tangents:
            found = output_tangents.get(id(self))
            if found is not None and found[0] is self:
                found[2](tensor, found[1])
        return tensor


class PackedTensor:
    """A tensor saved for backward through a pack hook: what the hook returned, its unpack hook,
    and the place in the graph the saved tensor had (to rebuild it as torch does)."""

    __slots__ = ("packed", "unpack_hook", "_vc", "requires_grad", "grad_fn", "output_nr",
                 "accumulator", "is_output", "prefetched", "transposed")

    @property
    def _data(self):
        """The array a backward computes with: unpacked anew at each read, as torch."""
        data = self.unpacked()._data
        return data.T if self.transposed else data

    def unpacked(self):
        """What the unpack hook gives (or gave, when the node prefetched it in torch's order)."""
        tensor = self.prefetched
        if tensor is not None:
            self.prefetched = None
            return tensor
        tensor = self.unpack_hook(self.packed)
        if not isinstance(tensor, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got "
                            f"result of type {type(tensor).__name__}")
        return tensor

    def _restore(self, node):
        """The unpacked values as a tensor with the saved tensor's history (a new object)."""
        grad_fn = node if self.is_output else self.grad_fn
        tensor = Tensor._make(self._data, self.requires_grad, grad_fn)
        if grad_fn is not None:
            tensor._output_nr = self.output_nr
        elif self.accumulator is not None:  # a leaf: its gradient still reaches the leaf's .grad
            tensor._acc = weakref.ref(self.accumulator)
        return tensor


def packed(shown, origin, node, version, pack_hook, unpack_hook):
    """``pack_hook(shown)`` kept as a PackedTensor of ``origin`` (a tensor, or the SavedOutput of
    ``node``'s output) saved at ``version``; the hook runs without grad mode, as torch's."""
    before = shown._vc[0]
    enabled = _grad_state.enabled
    _grad_state.enabled = False
    try:
        result = pack_hook(shown)
    finally:
        _grad_state.enabled = enabled
    if shown._vc[0] != before:
        raise RuntimeError(
            "A saved tensor pack hook is modifying its input in place. Tensors provided as input "
            "to pack hook cannot be modified by in-place operations as this can lead to "
            "unexpected side-effects. Please open an issue if you need to perform in-place "
            "operations on the input to a pack hook.")
    item = PackedTensor()
    item.packed, item.unpack_hook, item._vc, item.prefetched = result, unpack_hook, [version], None
    item.transposed = False
    is_tensor = isinstance(origin, Tensor)
    item.is_output = not is_tensor or origin._grad_fn is node
    item.requires_grad = origin._requires_grad if is_tensor else origin.requires_grad
    item.grad_fn = None if item.is_output else origin._grad_fn
    item.output_nr = origin._output_nr if is_tensor else 0
    leaf = is_tensor and item.requires_grad and origin._grad_fn is None
    item.accumulator = origin._accumulator() if leaf else None
    return item


def _order(rows, count):
    """The positions of a node's saved values in torch's pack order: the table's, then the
    rest (a node the table does not know: its own order)."""
    first = [] if rows is None else [_position(row[1]) for row in rows]
    first = [p for p in first if p is not None and p < count]
    return first + [p for p in range(count) if p not in first]


def _position(where):
    if type(where) is int:
        return where
    return where[0] if type(where) is tuple else None


def _unneeded(node, rows):
    """Positions torch does not save for this node: used only by an input needing no grad."""
    edges = node.next_functions
    return {_position(row[1]) for row in rows or ()
            if row[2] is not None and edges[row[2]][0] is None}


def pack_node(node, out, stack):
    """Pass each tensor ``node`` saves through the innermost hooks of ``stack`` (this thread's
    (pack_hook, unpack_hook) pairs), in torch's order; ``out`` is the op's output (what the
    hook sees for a saved output)."""
    versions = node._versions
    if versions is None or not stack:  # plain values only, or hooks in another thread only
        return
    hooks = stack[-1]
    rows = saved_names(type(node))
    items, versions = list(node._saved), list(versions)
    skipped = _unneeded(node, rows)
    views = {row[1][0]: row[1][1] for row in rows or () if type(row[1]) is tuple}
    for i in _order(rows, len(items)):
        if versions[i] is None:
            continue
        if i in skipped:  # not kept by torch: never shown to the hook
            items[i] = versions[i] = None
            continue
        origin = items[i]
        shown = origin if isinstance(origin, Tensor) else out
        view = views.get(i)
        items[i] = packed(shown if view is None else view(shown), origin, node, versions[i],
                          *hooks)
        items[i].transposed = view is not None  # (the one view: linear's weight.t())
    node._saved = tuple(items)
    node._versions = tuple(versions) if versions.count(None) < len(versions) else None


def prefetch(node, saved):
    """Unpack ``node``'s packed values in torch's order before the engine reads them."""
    rows = saved_names(type(node))
    if rows is None:
        return
    for i in _order(rows, len(saved)):
        item = saved[i]
        if type(item) is PackedTensor and item.prefetched is None:
            item.prefetched = item.unpacked()


class SavedTensor:
    """``grad_fn._raw_saved_<name>``: one tensor a node saved, which can be given hooks."""

    __slots__ = ("_node", "_position", "_needed_by")

    def __init__(self, node, position, needed_by=None):
        self._node, self._position, self._needed_by = node, position, needed_by

    def register_hooks(self, pack_hook, unpack_hook):
        """Pack the saved tensor now with ``pack_hook``; backward reads ``unpack_hook``'s."""
        if not callable(pack_hook) or not callable(unpack_hook):
            raise TypeError("register_hooks(): incompatible function arguments: pack_hook and "
                            "unpack_hook must be callables")
        node, i = self._node, self._position
        saved = node._saved
        if saved is FREED:
            raise RuntimeError(
                "Calling register_hooks on a saved tensor after it has been freed. Saved "
                "intermediate values of the graph are freed when you call .backward() or "
                "autograd.grad(). Specify retain_graph=True if you need to backward through the "
                "graph a second time or if you need to access saved variables after calling "
                "backward.")
        versions = node._versions
        unneeded = self._needed_by is not None and node.next_functions[self._needed_by][0] is None
        if unneeded or versions is None or versions[i] is None:  # (or a scalar ember keeps)
            raise RuntimeError("Calling register_hooks on a saved tensor with value None is "
                               "forbidden")
        item = saved[i]
        if type(item) is PackedTensor:
            raise RuntimeError("Calling register_hooks on a saved tensor whose hooks have already "
                               "been set. Hint: only one pair of hooks is allowed at a time.")
        shown = Tensor._make(item._data)
        shown._vc = item._vc
        items = list(saved)
        items[i] = packed(shown, item, node, versions[i], pack_hook, unpack_hook)
        node._saved = tuple(items)

    @property
    def data(self):
        """The saved tensor (unpacked, as ``_saved_<name>``)."""
        return _value(self._node, self._position, self._needed_by)

    def __repr__(self):
        return f"<ember.autograd.graph.SavedTensor object at {hex(id(self))}>"


def saved_attribute(node, name):
    """``node._saved_<name>`` or ``node._raw_saved_<name>``, as torch names what the node saved."""
    raw = name.startswith("_raw_saved_")
    key = name[len("_raw_saved_" if raw else "_saved_"):]
    for row in saved_names(type(node)) or ():
        if row[0] == key:
            break
    else:
        raise AttributeError(f"'{type(node).__name__}' object has no attribute '{name}'")
    where, needed_by = row[1], row[2]
    if type(where) is str or callable(where):
        if raw:
            raise AttributeError(f"'{type(node).__name__}' object has no attribute '{name}'")
        return getattr(node, where) if type(where) is str else where(node)
    position, view = where if type(where) is tuple else (where, None)
    if raw:
        return SavedTensor(node, position, needed_by)
    value = _value(node, position, needed_by)
    if type(value) is not Tensor and value is not None and key == "other":
        value = _wrapped_number(value)
    return view(value) if view is not None and value is not None else value


def _wrapped_number(value):
    """A Python scalar operand as torch saves it: a 0-d int64 or float64 tensor. The scalar fast
    path keeps it cast to the tensor's dtype: a whole number is taken to have been an int."""
    if isinstance(value, np.ndarray):
        value = value.item()
        if isinstance(value, float) and value.is_integer():
            value = int(value)
    return Tensor._make(np.asarray(value))


class _SavedName:
    """The descriptor behind ``grad_fn._saved_<name>`` and ``grad_fn._raw_saved_<name>``."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __get__(self, node, cls=None):
        if node is None:
            return self
        return saved_attribute(node, self.name)


def add_saved_names(cls):
    """Give a node class the ``_saved_*`` / ``_raw_saved_*`` names its table rows list."""
    for name in saved_names_of_class(cls):
        if name not in cls.__dict__:
            setattr(cls, name, _SavedName(name))


def is_saved_name(name):
    return name.startswith(("_saved_", "_raw_saved_"))


def saved_names_of(node):
    """The ``_saved_*`` and ``_raw_saved_*`` names a node shows (for ``dir``)."""
    return saved_names_of_class(type(node))


def saved_names_of_class(cls):
    rows = saved_names(cls) or ()
    names = ["_saved_" + row[0] for row in rows]
    return names + ["_raw_saved_" + row[0] for row in rows if _position(row[1]) is not None]


def _value(node, position, needed_by):
    """The value saved at ``position``: the tensor itself for an input (as torch), a new tensor
    for an output or a packed tensor, None where torch saved nothing."""
    if needed_by is not None and node.next_functions[needed_by][0] is None:
        return None
    saved = node._saved
    if saved is FREED:
        raise_freed()
    if position >= len(saved):  # not saved by this call of the op
        return None
    item = saved[position]
    if item is None or isinstance(item, Tensor):
        return item
    versions = node._versions
    if versions is not None and versions[position] is not None:  # SavedOutput, PackedTensor
        return item._restore(node)
    return item
