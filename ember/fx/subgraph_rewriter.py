"""torch.fx.subgraph_rewriter: replace_pattern, rewriting each match of a traced pattern."""
from typing import Dict, NamedTuple

from ._symbolic_trace import symbolic_trace
from .graph_module import GraphModule
from .node import Node


class Match(NamedTuple):
    anchor: Node  # the pattern's returned node
    nodes_map: Dict[Node, Node]  # pattern node -> graph node


def _match(pattern, value, mapping):
    """Whether the pattern node (with its inputs) matches value, extending mapping: a
    placeholder matches any value (a node or a constant), consistently."""
    if pattern in mapping:
        return mapping[pattern] is value
    if pattern.op == "placeholder":
        mapping[pattern] = value
        return True
    if not isinstance(value, Node) or (pattern.op, pattern.target) != (value.op, value.target) \
            or len(pattern.args) != len(value.args) or set(pattern.kwargs) != set(value.kwargs):
        return False
    mapping[pattern] = value
    pairs = list(zip(pattern.args, value.args)) + \
        [(pattern.kwargs[k], value.kwargs[k]) for k in pattern.kwargs]
    return all(_match_arg(p, v, mapping) for p, v in pairs)


def _match_arg(pattern, value, mapping):
    if isinstance(pattern, Node):
        return _match(pattern, value, mapping)
    if isinstance(pattern, (list, tuple)):
        return type(pattern) is type(value) and len(pattern) == len(value) and \
            all(_match_arg(p, v, mapping) for p, v in zip(pattern, value))
    return pattern == value


def _find_matches(graph, pattern_graph):
    output = next(n for n in pattern_graph.nodes if n.op == "output")
    anchor = output.args[0]
    matches, taken = [], set()
    for node in graph.nodes:
        mapping = {}
        if not _match(anchor, node, mapping):
            continue
        inner = [mapping[p] for p in mapping if p.op != "placeholder"]  # all graph nodes
        if taken.intersection(inner):
            continue
        # a matched node other than the anchor used outside the match cannot be removed
        if any(user not in inner for n in inner if n is not node for user in n.users):
            continue
        taken.update(inner)
        matches.append(Match(anchor=anchor, nodes_map=mapping))
    return matches


def replace_pattern(gm: GraphModule, pattern, replacement):
    """Replace every non-overlapping match of pattern (a function or module, traced) in gm's
    graph by replacement's graph; the matches, in graph order."""
    pattern_graph = symbolic_trace(pattern).graph
    replacement_graph = symbolic_trace(replacement).graph
    pattern_inputs = [n for n in pattern_graph.nodes if n.op == "placeholder"]
    replacement_inputs = [n for n in replacement_graph.nodes if n.op == "placeholder"]
    graph = gm.graph
    matches = _find_matches(graph, pattern_graph)
    replaced = {}  # a replaced anchor -> the value standing for it now

    def current(value):
        while isinstance(value, Node) and value in replaced:
            value = replaced[value]
        return value
    for match in matches:
        anchor = match.nodes_map[match.anchor]
        for p in pattern_inputs:  # inputs an earlier replacement changed: its result (as torch)
            match.nodes_map[p] = current(match.nodes_map[p])
        val_map = {r: match.nodes_map[p] for r, p in zip(replacement_inputs, pattern_inputs)}
        # the copy goes before the anchor's first user (as torch), else right after it
        first_user = next((n for n in graph.nodes if n in anchor.users), anchor.next)
        with graph.inserting_before(first_user):
            result = graph.graph_copy(replacement_graph, val_map)
        anchor.replace_all_uses_with(result)
        replaced[anchor] = result
        matched = {match.nodes_map[p] for p in match.nodes_map if p.op != "placeholder"}
        for node in [n for n in reversed(graph.nodes) if n in matched]:
            graph.erase_node(node)
    gm.recompile()
    return matches
