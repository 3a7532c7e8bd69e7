"""fx.immutable_collections (ember/fx/immutable_collections.py): node arguments refuse
mutation with torch's message."""
import pytest
import torch

import ember


def _args(lib):
    g = lib.fx.Graph()
    x = g.placeholder("x")
    return g.call_function(lib.cat, ([x, x],), {"dim": 0})


@pytest.mark.parametrize("mutate", [lambda n: n.args[0].append(1),
                                    lambda n: n.kwargs.update(dim=1),
                                    lambda n: n.args[0].__setitem__(0, 1)])
def test_mutation_refused_as_torch(mutate):
    seen = []
    for lib in (torch, ember):
        with pytest.raises(TypeError) as info:
            mutate(_args(lib))
        seen.append(str(info.value))
    assert seen[1] == seen[0]


def test_hashable_and_equal_to_plain_containers():
    node = _args(ember)
    assert node.args[0] == [node.args[0][0]] * 2 and node.kwargs == {"dim": 0}
    assert hash(node.args[0]) == hash(tuple(node.args[0])) and hash(node.kwargs)
    assert type(node.args[0]).__name__ == "immutable_list"
