"""torch.onnx: export a model to an ONNX file through the optional onnx package (extra `onnx`).

The model is traced by running it once on the example arguments and recording the calls of its
leaf modules; the supported ones are listed in ``_export.CONVERTERS``. A model whose forward
computes between module calls (``x.view(...)``, ``F.relu(x)``) is refused with an error that
names the module whose input came from outside the trace.
"""
from ._export import export


def is_in_onnx_export():
    """False: ember's export traces eagerly and never runs the model in an export mode."""
    return False


__all__ = ["export", "is_in_onnx_export"]
