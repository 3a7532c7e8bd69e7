"""ember.autograd: reverse-mode automatic differentiation (backward, grad, Function, modes)."""
import sys

from .._tensor import bind_autograd
from . import forward_ad, functional, profiler  # noqa: F401  (torch.autograd.<those>)
from .anomaly import (
                      detect_anomaly,
                      is_anomaly_check_nan_enabled,
                      is_anomaly_enabled,
                      set_detect_anomaly,
)
from .engine import backward, grad
from .explain import GradExplanation, explain_grad
from .function import Function, FunctionCtx, InplaceFunction, once_differentiable
from .grad_mode import (
                        enable_grad,
                        inference_mode,
                        is_grad_enabled,
                        is_inference_mode_enabled,
                        no_grad,
                        set_grad_enabled,
)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .graph import Node
from .variable import Variable

__all__ = ["backward", "grad", "Function", "FunctionCtx", "InplaceFunction", "once_differentiable",
           "gradcheck", "gradgradcheck", "GradcheckError", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled",
           "Node", "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "explain_grad", "GradExplanation", "Variable"]

bind_autograd(sys.modules[__name__])  # Tensor.backward reaches the engine through this binding
