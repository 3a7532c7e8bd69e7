"""torch.fx: symbolic tracing of modules into Graphs, and Python code generated back from them."""
# the submodules torch.fx exposes as attributes
from . import (  # noqa: F401
    graph,
    graph_module,
    immutable_collections,
    node,
    passes,
    proxy,
    subgraph_rewriter,
)
from ._symbolic_trace import Tracer, symbolic_trace, wrap  # noqa: F401
from .graph import Graph  # noqa: F401
from .graph_module import GraphModule  # noqa: F401
from .interpreter import Interpreter, Transformer  # noqa: F401
from .node import Node, map_arg  # noqa: F401
from .proxy import Proxy  # noqa: F401
from .subgraph_rewriter import replace_pattern  # noqa: F401
