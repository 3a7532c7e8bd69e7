"""SummaryWriter: torch's TensorBoard logger, written through the optional tensorboardX package
(extra `tensorboard`), which keeps the event-file format; ember turns its tensors into NumPy."""
import numpy as np


def _backend():
    try:
        import tensorboardX  # optional: the event-file writer
    except ImportError:
        raise ImportError("ember.utils.tensorboard needs the tensorboardX package: "
                          "pip install 'ember[tensorboard]'") from None
    return tensorboardX


def _plain(value):
    """Tensors become NumPy arrays (0-d ones Python numbers); anything else passes through."""
    data = getattr(value, "_data", None)
    if isinstance(data, np.ndarray):
        return data.item() if data.ndim == 0 else np.array(data, copy=True)
    return value


class SummaryWriter:
    """Writes scalars, histograms and more to ``log_dir`` (default ``runs/<time>_<host>``)."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10,
                 flush_secs=120, filename_suffix=""):
        self._writer = _backend().SummaryWriter(
            logdir=log_dir, comment=comment, purge_step=purge_step, max_queue=max_queue,
            flush_secs=flush_secs, filename_suffix=filename_suffix)
        self.log_dir = self._writer.logdir

    def get_logdir(self):
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """One value of the curve ``tag`` at ``global_step``."""
        self._writer.add_scalar(tag, _plain(scalar_value), _plain(global_step), walltime,
                                display_name="", summary_description="")

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Several curves under ``main_tag`` (each written to its own sub-directory)."""
        values = {key: _plain(value) for key, value in tag_scalar_dict.items()}
        self._writer.add_scalars(main_tag, values, _plain(global_step), walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        """A histogram of ``values`` (a tensor or array)."""
        self._writer.add_histogram(tag, np.asarray(_plain(values)), _plain(global_step), bins,
                                   walltime, max_bins)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._writer.add_text(tag, text_string, _plain(global_step), walltime)

    def add_image(self, tag, img_tensor, global_step=None, walltime=None, dataformats="CHW"):
        self._writer.add_image(tag, np.asarray(_plain(img_tensor)), _plain(global_step),
                               walltime, dataformats)

    def add_hparams(self, hparam_dict, metric_dict, hparam_domain_discrete=None, run_name=None,
                    global_step=None):
        metrics = {key: _plain(value) for key, value in metric_dict.items()}
        self._writer.add_hparams(hparam_dict, metrics, name=run_name,
                                 global_step=_plain(global_step))

    def add_graph(self, model, input_to_model=None, verbose=False, use_strict_trace=True):
        raise NotImplementedError("SummaryWriter.add_graph needs torch.jit tracing, which ember "
                                  "does not have")

    def flush(self):
        """Write pending events to disk."""
        self._writer.flush()

    def close(self):
        self._writer.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
