"""Convolution, pooling, normalisation, embedding, recurrent and attention layers."""
from .conv import Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d
from .dropout import Dropout1d, Dropout2d, Dropout3d
from .normalization import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm
from .pooling import (
           AdaptiveAvgPool1d,
           AdaptiveAvgPool2d,
           AvgPool1d,
           AvgPool2d,
           MaxPool1d,
           MaxPool2d,
)
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from .sparse import Embedding

__all__ = ["Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "Dropout1d", "Dropout2d",
           "Dropout3d", "BatchNorm1d", "BatchNorm2d", "GroupNorm", "LayerNorm",
           "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AvgPool1d", "AvgPool2d", "MaxPool1d",
           "MaxPool2d", "GRU", "LSTM", "RNN", "GRUCell", "LSTMCell", "RNNBase", "RNNCell",
           "RNNCellBase", "Embedding"]

from .attention import MultiheadAttention  # noqa: E402
from .linear import NonDynamicallyQuantizableLinear  # noqa: E402
from .transformer import (  # noqa: E402
           Transformer,
           TransformerDecoder,
           TransformerDecoderLayer,
           TransformerEncoder,
           TransformerEncoderLayer,
)

__all__ += ["MultiheadAttention", "NonDynamicallyQuantizableLinear", "TransformerEncoder",
            "TransformerEncoderLayer", "Transformer", "TransformerDecoder",
            "TransformerDecoderLayer"]

from .conv import Conv3d, ConvTranspose3d  # noqa: E402

__all__ += ["Conv3d", "ConvTranspose3d"]

from .spatial import Fold, PixelShuffle, PixelUnshuffle, Unfold, Upsample  # noqa: E402

__all__ += ["Fold", "PixelShuffle", "PixelUnshuffle", "Unfold", "Upsample"]

from .extra import (  # noqa: E402
           AlphaDropout,
           ChannelShuffle,
           FeatureAlphaDropout,
           LocalResponseNorm,
           RMSNorm,
           UpsamplingBilinear2d,
           UpsamplingNearest2d,
)

__all__ += ["AlphaDropout", "ChannelShuffle", "FeatureAlphaDropout", "LocalResponseNorm",
            "RMSNorm", "UpsamplingBilinear2d", "UpsamplingNearest2d"]

from .lazy import (  # noqa: E402
           LazyBatchNorm1d,
           LazyBatchNorm2d,
           LazyBatchNorm3d,
           LazyConv1d,
           LazyConv2d,
           LazyConv3d,
           LazyConvTranspose1d,
           LazyConvTranspose2d,
           LazyConvTranspose3d,
           LazyLinear,
)

__all__ += ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d",
            "LazyConv3d", "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
            "LazyLinear"]

from .normalization import (  # noqa: E402
           BatchNorm3d,
           InstanceNorm1d,
           InstanceNorm2d,
           InstanceNorm3d,
)
from .pooling import (  # noqa: E402
           AdaptiveAvgPool3d,
           AdaptiveMaxPool1d,
           AdaptiveMaxPool2d,
           AdaptiveMaxPool3d,
           AvgPool3d,
           LPPool1d,
           LPPool2d,
           LPPool3d,
           MaxPool3d,
           MaxUnpool1d,
           MaxUnpool2d,
           MaxUnpool3d,
)

__all__ += ["BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
            "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d",
            "AvgPool3d", "MaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d",
            "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]

from .embedding_bag import EmbeddingBag  # noqa: E402

__all__ += ["EmbeddingBag"]

from .lazy import LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d  # noqa: E402

__all__ += ["LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]

from .sync_batchnorm import SyncBatchNorm  # noqa: E402

__all__ += ["SyncBatchNorm"]

from .ctc import CTCLoss  # noqa: E402

__all__ += ["CTCLoss"]

from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402

__all__ += ["AdaptiveLogSoftmaxWithLoss"]

from .fractional_pooling import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402

__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]

from .linear_cross_entropy import LinearCrossEntropyLoss, LinearCrossEntropyOptions  # noqa: E402

__all__ += ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]

from .cross_map_lrn import CrossMapLRN2d  # noqa: E402

__all__ += ["CrossMapLRN2d"]
