"""torch.utils._pytree: nested containers flattened to a list of leaves plus a TreeSpec that
rebuilds them. Nodes are tuple, list, dict, namedtuple, OrderedDict, defaultdict, deque and the
classes given to register_pytree_node (matched by exact type, as torch does: a subclass of tuple
that is not a namedtuple is a leaf); everything else, None included, is a leaf."""
import collections
import types
from typing import Any, NamedTuple

PyTree = Any


class _NodeDef(NamedTuple):
    flatten: Any      # tree -> (children, context)
    unflatten: Any    # (children, context) -> tree


SUPPORTED_NODES = {}


def register_pytree_node(cls, flatten_fn, unflatten_fn, *, serialized_type_name=None,
                         to_dumpable_context=None, from_dumpable_context=None,
                         flatten_with_keys_fn=None):
    """Make ``cls`` a node: ``flatten_fn(obj) -> (children, context)`` and
    ``unflatten_fn(children, context) -> obj``."""
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = _NodeDef(flatten_fn, unflatten_fn)


def is_namedtuple_class(cls):
    """Whether ``cls`` was made by collections.namedtuple (or typing.NamedTuple)."""
    return (isinstance(cls, type) and issubclass(cls, tuple)
            and isinstance(getattr(cls, "_fields", None), tuple)
            and callable(getattr(cls, "_make", None)) and callable(getattr(cls, "_asdict", None)))


def is_namedtuple_instance(obj):
    return is_namedtuple_class(type(obj))


is_namedtuple = is_namedtuple_instance


register_pytree_node(tuple, lambda t: (list(t), None), lambda values, _: tuple(values))
register_pytree_node(list, lambda t: (list(t), None), lambda values, _: list(values))
register_pytree_node(dict, lambda t: (list(t.values()), list(t)),
                     lambda values, keys: dict(zip(keys, values)))
# A namedtuple's spec type is collections.namedtuple itself and its context the class.
register_pytree_node(collections.namedtuple, lambda t: (list(t), type(t)),
                     lambda values, cls: cls(*values))
register_pytree_node(collections.OrderedDict, lambda t: (list(t.values()), list(t)),
                     lambda values, keys: collections.OrderedDict(zip(keys, values)))
register_pytree_node(collections.defaultdict,
                     lambda t: (list(t.values()), [t.default_factory, list(t)]),
                     lambda values, context: collections.defaultdict(
                         context[0], zip(context[1], values)))
register_pytree_node(collections.deque, lambda t: (list(t), t.maxlen),
                     lambda values, maxlen: collections.deque(values, maxlen=maxlen))


def _node_type(tree):
    return collections.namedtuple if is_namedtuple_instance(tree) else type(tree)


def tree_is_leaf(tree, is_leaf=None):
    """Whether ``tree`` is a leaf: ``is_leaf(tree)`` says so, or its type is no node."""
    return (is_leaf is not None and is_leaf(tree)) or _node_type(tree) not in SUPPORTED_NODES


class TreeSpec:
    """The structure of a pytree: node type, its context (keys, namedtuple class, ...) and one
    spec per child; a leaf's spec has type None and prints as ``*``."""

    def __init__(self, type, context, children_specs):
        self.type, self.context, self.children_specs = type, context, list(children_specs)
        self.num_children = len(self.children_specs)
        self.num_nodes = 1 + sum(child.num_nodes for child in self.children_specs)
        self.num_leaves = (1 if type is None else
                           sum(child.num_leaves for child in self.children_specs))

    def is_leaf(self):
        return self.num_nodes == 1 and self.num_leaves == 1

    def children(self):
        return list(self.children_specs)

    def child(self, index):
        return self.children_specs[index]

    def __eq__(self, other):
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return ((self.type, self.context, self.children_specs)
                == (other.type, other.context, other.children_specs))

    def __hash__(self):
        return hash((self.type, self.num_nodes, self.num_leaves))

    def __repr__(self):
        return self._repr(0)

    def _repr(self, indent):
        if self.is_leaf():
            return "*"
        children = (",\n" + " " * (indent + 2)).join(
            child._repr(indent + 2) for child in self.children_specs)
        return f"TreeSpec({self.type.__name__}, {self.context}, [{children}])"

    def unflatten(self, leaves):
        """The pytree of this structure holding ``leaves`` in order."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} "
                             f"but the spec refers to a pytree that holds {self.num_leaves} "
                             f"items ({self!r}).")
        return self._build(iter(leaves))

    def _build(self, leaves):
        if self.is_leaf():
            return next(leaves)
        children = [child._build(leaves) for child in self.children_specs]
        return SUPPORTED_NODES[self.type].unflatten(children, self.context)

    def flatten_up_to(self, tree):
        """``tree``'s subtrees at this spec's leaves (``tree`` has this structure, or a finer one
        below its leaves), in order."""
        subtrees = []
        self._cut(tree, subtrees)
        return subtrees

    def _cut(self, tree, subtrees):
        if self.is_leaf():
            subtrees.append(tree)
            return
        for spec, child in zip(self.children_specs, self._children_like_self(tree)):
            spec._cut(child, subtrees)

    def _children_like_self(self, tree):
        node_type = _node_type(tree)
        if node_type is not self.type:
            raise ValueError(f"Node type mismatch; expected {self.type}, but got {node_type}.")
        children, context = SUPPORTED_NODES[node_type].flatten(tree)
        if len(children) != self.num_children:
            raise ValueError(f"Node arity mismatch; expected {self.num_children}, but got "
                             f"{len(children)}.")
        if self.type in (dict, collections.OrderedDict, collections.defaultdict):
            keys = context[1] if self.type is collections.defaultdict else context
            mine = self.context[1] if self.type is collections.defaultdict else self.context
            if set(keys) != set(mine):
                raise ValueError(f"Node keys mismatch; missing key(s): {set(mine) - set(keys)}; "
                                 f"extra key(s): {set(keys) - set(mine)}.")
            return [tree[key] for key in mine]   # the keys in this spec's order
        if context != self.context:
            raise ValueError(f"Node context mismatch for custom node type {self.type}; expected "
                             f"{self.context}, but got {context}.")
        return children


class LeafSpec(TreeSpec):
    """The spec of a single leaf."""

    def __init__(self):
        super().__init__(None, None, [])


def treespec_leaf():
    return LeafSpec()


def tree_flatten(tree, is_leaf=None):
    """(leaves in depth-first order, the TreeSpec that rebuilds ``tree`` from them)."""
    leaves = []
    return leaves, _flatten(tree, is_leaf, leaves)


def _flatten(tree, is_leaf, leaves):
    if tree_is_leaf(tree, is_leaf):
        leaves.append(tree)
        return LeafSpec()
    node_type = _node_type(tree)
    children, context = SUPPORTED_NODES[node_type].flatten(tree)
    return TreeSpec(node_type, context, [_flatten(child, is_leaf, leaves) for child in children])


def tree_unflatten(leaves, treespec):
    """The pytree of structure ``treespec`` holding ``leaves``."""
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be an instance "
                        f"of PyTreeSpec but got item of type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_iter(tree, is_leaf=None):
    """The leaves of ``tree``, lazily, in depth-first order."""
    if tree_is_leaf(tree, is_leaf):
        yield tree
        return
    for child in SUPPORTED_NODES[_node_type(tree)].flatten(tree)[0]:
        yield from tree_iter(child, is_leaf)


def tree_leaves(tree, is_leaf=None):
    return list(tree_iter(tree, is_leaf))


def tree_structure(tree, is_leaf=None):
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func, tree, *rests, is_leaf=None):
    """``tree`` with each leaf x replaced by func(x, *the same leaves of ``rests``); the rests
    have ``tree``'s structure (or a finer one, their subtrees then passed whole)."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(rest) for rest in rests]
    return spec.unflatten(map(func, leaves, *others))


def tree_map_(func, tree, *rests, is_leaf=None):
    """tree_map for func's side effects: calls it on every leaf and returns ``tree`` itself."""
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(rest) for rest in rests]
    collections.deque(map(func, leaves, *others), maxlen=0)
    return tree


def _predicate(type_or_types_or_pred):
    if isinstance(type_or_types_or_pred, (type, tuple, types.UnionType)):
        return lambda x: isinstance(x, type_or_types_or_pred)
    if callable(type_or_types_or_pred):
        return type_or_types_or_pred
    raise TypeError("Argument must be a type, a tuple of types, or a callable.")


def map_only(type_or_types_or_pred):
    """Decorator: the function applies to the values the types (or predicate) select and passes
    every other value through unchanged."""
    selects = _predicate(type_or_types_or_pred)

    def wrap(func):
        return lambda x: func(x) if selects(x) else x
    return wrap


def tree_map_only(type_or_types_or_pred, func, tree, is_leaf=None):
    return tree_map(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_map_only_(type_or_types_or_pred, func, tree, is_leaf=None):
    return tree_map_(map_only(type_or_types_or_pred)(func), tree, is_leaf=is_leaf)


def tree_all(pred, tree, is_leaf=None):
    return all(map(pred, tree_iter(tree, is_leaf)))


def tree_any(pred, tree, is_leaf=None):
    return any(map(pred, tree_iter(tree, is_leaf)))


def tree_all_only(type_or_types, pred, tree, is_leaf=None):
    return all(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, pred, tree, is_leaf=None):
    return any(pred(x) for x in tree_iter(tree, is_leaf) if isinstance(x, type_or_types))


class _Star:
    def __repr__(self):
        return "*"


def treespec_pprint(treespec):
    """The structure drawn as its own container types with ``*`` for each leaf."""
    return repr(treespec.unflatten([_Star()] * treespec.num_leaves))
