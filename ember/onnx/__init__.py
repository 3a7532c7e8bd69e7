"""torch.onnx: export a model to an ONNX file through the optional onnx package (extra `onnx`).

The model is traced: its forward runs on the example arguments with every op reported (see
``_trace``), and each op becomes the matching ONNX node(s) (``_ops``, ``_ops_shape``,
``_ops_nn``, ``_ops_reduce``, ``_ops_index``); parameters and buffers become initializers. A
second run on permuted inputs (each dynamic axis one longer, or 2 or 4 where the model needs it)
finds the sizes that follow a dynamic axis (``_dynamic``) and refuses values that
came from the inputs through an op the trace does not see; a copy of every value the trace saw
finds writes that bypass ember's ops (through ``.numpy()``). Ops without a conversion are refused
with an error naming them: the export never writes a model that computes something else.
"""
from . import _trace
from ._export import TrainingMode, export


def is_in_onnx_export():
    """True while ``export`` runs the model's forward to trace it, as torch's."""
    return _trace.exporting


__all__ = ["TrainingMode", "export", "is_in_onnx_export"]
