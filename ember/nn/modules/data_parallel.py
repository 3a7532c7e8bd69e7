"""nn.DataParallel: single-process multi-GPU replication in torch. ember has no GPU, as torch
without CUDA: the wrapper keeps the module under ``module`` (state_dict keys 'module.*') and
calls it directly."""
from .module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Runs ``module`` as it is (no devices to replicate to; ``device_ids`` stays [])."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)
