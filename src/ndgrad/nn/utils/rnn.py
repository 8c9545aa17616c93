"""torch.nn.utils.rnn: packed sequences (reached as ndgrad.nn.utils.rnn).

A PackedSequence holds the rows of a padded batch that are real time steps, time-major, with the
number of sequences still running at each step (batch_sizes). Packing is the op
`_pack_padded_sequence` (ops/nn_extra.py, node PackPaddedSequenceBackward0); padding back writes
the rows into a filled tensor in place, so the graph has torch's CopySlices.
"""
from collections import namedtuple

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from ...ops.creation import arange, empty_like, tensor
from ...ops.recurrent import _pack_padded_sequence
from ...ops.reduction import sort


class PackedSequence(namedtuple("PackedSequence", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """(data, batch_sizes, sorted_indices, unsorted_indices); build it with pack_padded_sequence or
    pack_sequence."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        data = self.data.to(*args, **kwargs)
        return self if data is self.data else type(self)(data, self.batch_sizes, self.sorted_indices,
                                                         self.unsorted_indices)

    def double(self):
        return self.to(dtype=_dtype.float64)

    def float(self):
        return self.to(dtype=_dtype.float32)

    def cpu(self):
        return self

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    if permutation is None:
        return None
    out = empty_like(permutation)
    out[permutation] = arange(permutation.numel(), dtype=permutation.dtype)
    return out


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (time-major, or batch-major with batch_first) of sequences of `lengths`."""
    if isinstance(lengths, Tensor):
        lengths = lengths.to(_dtype.int64)
    else:
        lengths = tensor(list(lengths), dtype=_dtype.int64)
    sorted_indices = None
    if not enforce_sorted:
        lengths, sorted_indices = sort(lengths, descending=True, stable=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _pack_padded_sequence(input, lengths, batch_first)
    return PackedSequence(data, batch_sizes, sorted_indices, None)


def _sequence_lengths(batch_sizes):
    bs = batch_sizes.numpy()
    return (bs[:, None] > np.arange(bs[0] if len(bs) else 0)[None, :]).sum(0)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The padded batch and the lengths of a PackedSequence (the inverse of pack_padded_sequence)."""
    data, batch_sizes = sequence.data, sequence.batch_sizes
    steps = batch_sizes.shape[0]
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {steps}")
        steps = total_length
    lengths = _sequence_lengths(batch_sizes)
    batch = len(lengths)
    rest = tuple(data.shape[1:])
    bs = batch_sizes.numpy()
    t = np.repeat(np.arange(len(bs)), bs)
    b = np.concatenate([np.arange(n) for n in bs]) if len(bs) else np.zeros(0, np.int64)
    rows = b * steps + t if batch_first else t * batch + b
    out = data.new_full(((batch, steps) if batch_first else (steps, batch)) + rest, padding_value)
    out.view((-1,) + rest)[tensor(rows)] = data
    lengths = tensor(lengths, dtype=_dtype.int64)
    if sequence.unsorted_indices is not None:
        return (out.index_select(0 if batch_first else 1, sequence.unsorted_indices),
                lengths[sequence.unsorted_indices])
    return out, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of different lengths (dim 0) into one padded tensor."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    rest = tuple(sequences[0].shape[1:])
    shape = (len(sequences), longest) if batch_first else (longest, len(sequences))
    out = sequences[0].new_full(shape + rest, padding_value)
    for i, s in enumerate(sequences):
        n = s.shape[0]
        steps = slice(0, n) if padding_side == "right" else slice(longest - n, longest)
        out[(i, steps) if batch_first else (steps, i)] = s
    return out


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences of a padded batch (the inverse of pad_sequence)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:int(n)] for seq, n in zip(padded_sequences, lengths)]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences of different lengths."""
    lengths = tensor([s.shape[0] for s in sequences], dtype=_dtype.int64)
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences of a PackedSequence (the inverse of pack_sequence)."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
