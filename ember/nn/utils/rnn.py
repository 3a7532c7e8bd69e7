"""nn.utils.rnn: pad a list of variable-length sequences into one tensor, and split it back."""
from ..._tensor import Tensor
from ...ops import api
from .. import _functional_misc as F


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack (L_i, *) tensors into (max L, B, *) (or (B, max L, *)), padding with a value."""
    if isinstance(sequences, Tensor):
        sequences = list(api.unbind(sequences, 0))
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        extra = longest - s.shape[0]
        pad = (0, 0) * (s.ndim - 1) + ((extra, 0) if padding_side == "left" else (0, extra))
        padded.append(F.pad(s, pad, value=padding_value) if extra else s)
    return api.stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of (L_i, *) tensors inside a right-padded batch."""
    if not batch_first:
        padded_sequences = api.transpose(padded_sequences, 0, 1)
    return [padded_sequences[i, :int(n)] for i, n in enumerate(lengths)]
