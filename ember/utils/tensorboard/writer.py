"""SummaryWriter: torch's TensorBoard logger, written through the optional tensorboardX package
(extra `tensorboard`), which keeps the event-file format; ember turns its tensors into NumPy."""
import time

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


def _scalar_summary(tag, value, new_style=False, double_precision=False):
    """torch's scalar Summary: the tag kept as given (tensorboardX's own would replace
    characters such as '=' or ' '), the value as simple_value, or under ``new_style`` as a
    tensor for the scalars plugin."""
    from tensorboardX.proto.summary_pb2 import Summary, SummaryMetadata
    from tensorboardX.proto.tensor_pb2 import TensorProto
    array = np.asarray(_plain(value)).squeeze()
    if array.ndim != 0:
        raise AssertionError(f"Tensor should contain one element (0 dimensions). Was given "
                             f"size: {array.size} and {array.ndim} dimensions.")
    number = float(array)
    if not new_style:
        return Summary(value=[Summary.Value(tag=tag, simple_value=number)])
    tensor = (TensorProto(double_val=[number], dtype="DT_DOUBLE") if double_precision else
              TensorProto(float_val=[number], dtype="DT_FLOAT"))
    metadata = SummaryMetadata(plugin_data=SummaryMetadata.PluginData(plugin_name="scalars"))
    return Summary(value=[Summary.Value(tag=tag, tensor=tensor, metadata=metadata)])


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
        summary = _scalar_summary(tag, scalar_value, new_style, double_precision)
        self._writer._get_file_writer().add_summary(summary, _plain(global_step), walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Several curves in one chart ``main_tag``: as torch, each goes to its own run
        ``<log_dir>/<main_tag>_<tag>`` ('/' in main_tag read as '_') under the tag main_tag."""
        walltime = time.time() if walltime is None else walltime
        root = self._writer._get_file_writer().get_logdir()
        writers = self._writer.all_writers
        for tag, value in tag_scalar_dict.items():
            run = root + "/" + main_tag.replace("/", "_") + "_" + tag
            if run not in writers:
                writers[run] = _backend().FileWriter(run, self._writer._max_queue,
                                                     self._writer._flush_secs,
                                                     self._writer._filename_suffix)
            writers[run].add_summary(_scalar_summary(main_tag, value), _plain(global_step),
                                     walltime)

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
