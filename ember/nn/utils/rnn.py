"""nn.utils.rnn: pad a list of variable-length sequences into one tensor, and split it back;
pack them (PackedSequence) for the recurrent layers."""
from collections import namedtuple

import numpy as np

from ... import _creation
from ... import _dtype as _dtype_module
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


# ------------------------------------------------------------------ packed sequences
class PackedSequence(namedtuple("PackedSequence",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """Time-major rows of a batch of sequences sorted by length, longest first: step t holds
    batch_sizes[t] rows (the sequences still running). Built by pack_padded_sequence."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # (data, batch_sizes) given as one tuple, as torch allows
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same packing with data converted by Tensor.to (indices stay as they are)."""
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else self._replace(data=data)

    def cpu(self):
        return self

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def _same_dtype_copy(name, dtype):
    def convert(self):
        return self.to(dtype=dtype)
    convert.__name__ = name
    return convert


for _name, _dtype in (("double", "float64"), ("float", "float32"), ("half", "float16"),
                      ("long", "int64"), ("int", "int32"), ("short", "int16"),
                      ("char", "int8"), ("byte", "uint8")):
    setattr(PackedSequence, _name, _same_dtype_copy(_name, getattr(_dtype_module, _dtype)))


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    inverse = np.empty(permutation.shape[0], dtype=np.int64)
    inverse[permutation.numpy()] = np.arange(permutation.shape[0])
    return _creation.tensor(inverse)


def _lengths_array(lengths):
    if isinstance(lengths, Tensor):
        if lengths.ndim != 1:
            raise RuntimeError(f"'lengths' argument should be a 1D tensor, but got "
                               f"{lengths.ndim}D")
        return lengths.numpy().astype(np.int64)
    return np.asarray(lengths, dtype=np.int64).reshape(-1)


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs a padded (T, B, *) (or (B, T, *)) batch whose sequence b has lengths[b] steps."""
    sizes = _lengths_array(lengths)
    sorted_indices = None
    if enforce_sorted:
        if np.any(sizes[1:] > sizes[:-1]):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                               "to pack_padded_sequence and/or pack_sequence to sidestep this "
                               "requirement if you do not need ONNX exportability.")
    else:
        sorted_lengths, sorted_indices = _creation.tensor(sizes).sort(descending=True)
        sizes = sorted_lengths.numpy()
        input = api.index_select(input, 0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = api.transpose(input, 0, 1)
    _check_lengths(sizes, input.shape)
    batch_sizes = (sizes[None, :] > np.arange(int(sizes[0]))[:, None]).sum(1)
    data = api.cat([input[t, :int(n)] for t, n in enumerate(batch_sizes)], 0)
    return PackedSequence(data, _creation.tensor(batch_sizes), sorted_indices, None)


def _check_lengths(sizes, shape):
    if sizes.shape[0] != shape[1]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{sizes.shape[0]} (batch_size={shape[1]})")
    if sizes.shape[0] and sizes.min() <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if sizes.shape[0] and sizes.max() > shape[0]:
        raise RuntimeError(f"Expected sequence length to be at most {shape[0]}, but got "
                           f"a length of {int(sizes.max())}")


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Inverse of pack_padded_sequence: (padded batch, lengths) in the caller's batch order."""
    data, batch_sizes = sequence.data, sequence.batch_sizes.numpy()
    steps, batch = batch_sizes.shape[0], int(batch_sizes[0])
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {steps}")
        steps = total_length
    rows, offset = [], 0
    for n in batch_sizes:
        block = data[offset:offset + int(n)]
        offset += int(n)
        extra = batch - int(n)
        rows.append(F.pad(block, (0, 0) * (data.ndim - 1) + (0, extra), value=padding_value)
                    if extra else block)
    padded = api.stack(rows, 0)
    if steps > len(rows):
        padded = F.pad(padded, (0, 0) * data.ndim + (0, steps - len(rows)), value=padding_value)
    lengths = (batch_sizes[None, :] > np.arange(batch)[:, None]).sum(1)
    if sequence.unsorted_indices is not None:
        padded = api.index_select(padded, 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.numpy()]
    if batch_first:
        padded = api.transpose(padded, 0, 1)
    return padded, _creation.tensor(lengths)


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of (L_i, *) tensors (pad_sequence, then pack_padded_sequence)."""
    lengths = _creation.tensor([s.shape[0] for s in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of (L_i, *) tensors inside a PackedSequence."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
