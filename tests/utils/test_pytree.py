"""ember.utils._pytree against torch.utils._pytree: leaves, specs, rebuilds, maps and errors."""
import collections

import pytest
import torch.utils._pytree as tp

import ember
import ember.utils._pytree as ep

NT = collections.namedtuple("NT", "x y")


class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b

    def __repr__(self):
        return f"Pair({self.a!r}, {self.b!r})"


class Sub(tuple):
    pass


TREES = [
    1, None, [], (), {}, [1, None, (2, {"b": 3, "a": 4})], Sub((1, 2)),
    {"k": NT(1, [2]), "o": collections.OrderedDict(a=1),
     "d": collections.defaultdict(list, {"z": 5}), "q": collections.deque([1, 2], maxlen=3)},
]


@pytest.mark.parametrize("tree", TREES, ids=repr)
def test_flatten_unflatten_as_torch(tree):
    leaves, spec = ep.tree_flatten(tree)
    t_leaves, t_spec = tp.tree_flatten(tree)
    assert leaves == t_leaves
    assert repr(spec) == repr(t_spec)
    assert (spec.num_leaves, spec.num_nodes, spec.num_children, spec.is_leaf()) == (
        t_spec.num_leaves, t_spec.num_nodes, t_spec.num_children, t_spec.is_leaf())
    assert spec.type is t_spec.type and spec.context == t_spec.context
    rebuilt = ep.tree_unflatten(leaves, spec)
    assert rebuilt == tp.tree_unflatten(leaves, t_spec) and type(rebuilt) is type(tree)
    assert ep.treespec_pprint(spec) == tp.treespec_pprint(t_spec)
    assert ep.tree_leaves(tree) == list(ep.tree_iter(tree)) == t_leaves
    assert ep.tree_is_leaf(tree) == tp.tree_is_leaf(tree)


def test_tensors_are_leaves_and_map():
    tree = {"w": ember.ones(2), "rest": (ember.zeros(1), 3)}
    out = ep.tree_map(lambda x: x * 2, tree)
    assert out["w"].tolist() == [2.0, 2.0] and out["rest"][0].tolist() == [0.0]
    assert out["rest"][1] == 6
    doubled = ep.tree_map_only(ember.Tensor, lambda x: x + 1, tree)
    assert doubled["rest"][1] == 3 and doubled["w"].tolist() == [2.0, 2.0]


@pytest.mark.parametrize("tree, rest", [
    ((1, [2]), (10, [20])), ({"a": 1, "b": 2}, {"b": 3, "a": 4}),
    ((1, [2]), (10, [[20, 3]])),
])
def test_map_with_rests_as_torch(tree, rest):
    def add(a, b):
        return (a, b)
    assert ep.tree_map(add, tree, rest) == tp.tree_map(add, tree, rest)


@pytest.mark.parametrize("tree, rest", [
    ((1, [2]), (10, [20, 3])), ((1, [2]), (10, (20,))), ({"a": 1, "b": 2}, {"a": 3, "c": 4}),
    ({"a": 1}, {"a": 3, "c": 4}), ([1, 2], 5),
])
def test_map_mismatch_errors_as_torch(tree, rest):
    with pytest.raises(ValueError) as theirs:
        tp.tree_map(lambda a, b: a, tree, rest)
    with pytest.raises(ValueError) as ours:
        ep.tree_map(lambda a, b: a, tree, rest)
    assert str(ours.value) == str(theirs.value)


def test_unflatten_errors_as_torch():
    leaves, spec = ep.tree_flatten([1, (2, 3)])
    with pytest.raises(ValueError) as theirs:
        tp.tree_unflatten([1], tp.tree_structure([1, (2, 3)]))
    with pytest.raises(ValueError) as ours:
        ep.tree_unflatten([1], spec)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(TypeError, match="instance of PyTreeSpec but got item of type <class 'int'>"):
        ep.tree_unflatten([1], 1)


def test_map_only_all_any_and_in_place_as_torch():
    tree = [1, 2.0, "a", (3,)]
    for mod in (ep, tp):
        assert mod.tree_map_only(int, lambda x: -x, tree) == [-1, 2.0, "a", (-3,)]
        assert mod.tree_map_only((int, float), lambda x: -x, tree) == [-1, -2.0, "a", (-3,)]
        assert mod.tree_map_only(lambda x: x == 2.0, lambda x: 0, tree) == [1, 0, "a", (3,)]
        assert mod.tree_all_only(int, lambda x: x > 0, [1, -2.0])
        assert not mod.tree_any_only(float, lambda x: x > 0, [1, -2.0])
        assert mod.tree_all(lambda x: x > 0, [1, (2,)]) and not mod.tree_any(bool, [0, (0,)])
        seen = []
        assert mod.tree_map_(seen.append, tree) is tree and seen == [1, 2.0, "a", 3]
    with pytest.raises(TypeError, match="must be a type, a tuple of types, or a callable"):
        ep.tree_map_only(3, lambda x: x, tree)


def test_is_leaf_and_structure_equality_as_torch():
    tree = [ember.ones(1), (2,), {"a": (3, 4)}]
    def is_tuple(x):
        return isinstance(x, tuple)
    assert repr(ep.tree_structure(tree, is_leaf=is_tuple)) == repr(
        tp.tree_structure(tree, is_leaf=is_tuple))
    assert ep.tree_leaves(tree, is_leaf=is_tuple)[1:] == [(2,), (3, 4)]
    assert ep.tree_structure([1, 2]) == ep.tree_structure([3, 4])
    assert ep.tree_structure([1, 2]) != ep.tree_structure((3, 4))
    assert repr(ep.LeafSpec()) == repr(tp.LeafSpec()) == "*"
    spec = ep.tree_structure([1, (2, 3)])
    assert spec.child(1) == ep.tree_structure((0, 0)) and spec.children()[0].is_leaf()
    assert spec.flatten_up_to([[1], (2, 3)]) == [[1], 2, 3]


def test_register_pytree_node_as_torch():
    for mod in (ep, tp):
        if Pair not in mod.SUPPORTED_NODES:
            mod.register_pytree_node(Pair, lambda p: ([p.a, p.b], "ctx"),
                                     lambda values, context: Pair(*values))
    tree = [Pair(1, (2,))]
    assert repr(ep.tree_structure(tree)) == repr(tp.tree_structure(tree))
    rebuilt = ep.tree_map(lambda x: x * 10, tree)
    assert (rebuilt[0].a, rebuilt[0].b) == (10, (20,))
    with pytest.raises(ValueError, match="is already registered as pytree node"):
        ep.register_pytree_node(Pair, lambda p: ([], None), lambda values, context: Pair(0, 0))


def test_reached_as_attribute_of_utils():
    assert ember.utils._pytree.tree_leaves([1, (2,)]) == [1, 2]
