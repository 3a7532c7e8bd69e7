"""SyncBatchNorm: batch norm whose statistics torch syncs across a process group; on CPU without
an initialised group it is BatchNorm over inputs of any rank >= 2, as torch's is."""
import sys

from ...autograd import grad_mode
from .normalization import _BatchNorm, _InstanceNorm


def _distributed_initialized():
    # ember.distributed is only ever initialised after being imported: no import needed here
    distributed = sys.modules.get("ember.distributed")
    return distributed is not None and distributed.is_initialized()


class SyncBatchNorm(_BatchNorm):
    """Batch norm over (N, C, *); torch syncs only CUDA/XPU inputs, so with an initialised
    process group a CPU input in training is refused as torch refuses it."""

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True,
                 track_running_stats=True, process_group=None, device=None, dtype=None, *,
                 bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias=bias)
        self.process_group = process_group

    def _check_input_dim(self, input):
        if input.dim() < 2:
            raise ValueError(f"expected at least 2D input (got {input.dim()}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        if input.shape[1] == 0:
            raise ValueError("SyncBatchNorm number of input channels should be non-zero")
        if self.training and _distributed_initialized():
            raise ValueError("SyncBatchNorm expected input tensor to be on GPU or XPU or "
                             "privateuseone")
        return super().forward(input)

    @classmethod
    def convert_sync_batchnorm(cls, module, process_group=None):
        """``module`` with every BatchNorm*d inside it replaced by a SyncBatchNorm sharing its
        parameters and buffers (the module itself when it is one)."""
        output = module
        if isinstance(module, _BatchNorm) and not isinstance(module, (_InstanceNorm, cls)):
            output = cls(module.num_features, module.eps, module.momentum, module.affine,
                         module.track_running_stats, process_group,
                         bias=module.affine and module._has_bias)
            if module.affine:
                with grad_mode.no_grad():
                    output.weight, output.bias = module.weight, module.bias
            output.running_mean, output.running_var = module.running_mean, module.running_var
            output.num_batches_tracked = module.num_batches_tracked
            output.training = module.training
            if hasattr(module, "qconfig"):
                output.qconfig = module.qconfig
        for name, child in module.named_children():
            output.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return output
