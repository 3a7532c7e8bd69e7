"""fx.passes.shape_prop (ember/fx/passes/shape_prop.py): each node's tensor metadata as
torch's ShapeProp records it."""
import torch
from torch.fx.passes.shape_prop import ShapeProp as TorchShapeProp

import ember
from ember.fx.passes.shape_prop import ShapeProp

from .._models import net


def _metas(lib, prop):
    gm = lib.fx.symbolic_trace(net(lib))
    prop(gm).propagate(lib.ones(2, 3))
    out = []
    for n in gm.graph.nodes:
        meta = n.meta.get("tensor_meta")
        if hasattr(meta, "shape"):
            meta = (tuple(meta.shape), str(meta.dtype).rpartition(".")[2], meta.requires_grad,
                    tuple(meta.stride), str(meta.memory_format).rpartition(".")[2])
        elif meta is not None:
            meta = type(meta).__name__
        kind = n.meta["type"]  # max's named tuple: torch.return_types.max, ember's own
        out.append((n.name, meta, "tuple" if issubclass(kind, tuple) else kind.__name__))
    return out


def test_metadata_matches_torch():
    assert _metas(ember, ShapeProp) == _metas(torch, TorchShapeProp)
