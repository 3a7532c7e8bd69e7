"""torch.fx.passes.shape_prop: ShapeProp, running a GraphModule to record each node's tensor
shape, dtype and layout in node.meta['tensor_meta']."""
import traceback
from typing import Any, Dict, NamedTuple, Optional, Tuple

from ember import _memory_format
from ember._tensor import Tensor

from ..interpreter import Interpreter
from ..node import map_aggregate


class TensorMetadata(NamedTuple):
    shape: Any
    dtype: Any
    requires_grad: bool
    stride: Tuple[int, ...]
    memory_format: Optional[Any]
    is_quantized: bool
    qparams: Dict[str, Any]


def _extract_tensor_metadata(result):
    layouts, layout = (_memory_format.contiguous_format, _memory_format.channels_last), None
    for fmt in layouts:
        if (fmt is _memory_format.contiguous_format or result.dim() == 4) and \
                result.is_contiguous(memory_format=fmt):
            layout = fmt
            break
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, result.stride(),
                          layout, False, {})


class ShapeProp(Interpreter):
    """Interpreter that stores TensorMetadata (or a structure of them) in node.meta
    ['tensor_meta'] for each node whose value holds tensors, and its type in meta['type']."""

    def __init__(self, gm, fake_mode=None):
        super().__init__(gm)

    def run_node(self, n):
        try:
            result = super().run_node(n)
        except Exception as e:
            traceback.print_exc()
            raise RuntimeError(f"ShapeProp error for: node={n.format_node()} with "
                               f"meta={n.meta}") from e
        found = []

        def extract(value):
            if isinstance(value, Tensor):
                found.append(True)
                return _extract_tensor_metadata(value)
            return value
        meta = map_aggregate(result, extract)
        if found:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        """Run the module on args, recording metadata; its output."""
        return super().run(*args)
