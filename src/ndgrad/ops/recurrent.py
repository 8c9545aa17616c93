"""Recurrent-network ops: mkldnn_rnn_layer, one LSTM layer over a whole sequence as a single op (the
node torch's CPU LSTM records, MkldnnRnnLayerBackward0, for float32 inputs), and
_pack_padded_sequence (packed sequences; the rest is in ndgrad/nn/utils_rnn.py).

mkldnn_rnn_layer's forward and backward reuse nn/rnn.py's composed LSTM step: the forward runs it
under no_grad; the backward (_lstm_layer_backward, the yaml formula) recomputes the layer with grad
mode on and differentiates it, so with create_graph the gradients are themselves differentiable.
"""

import numpy as np

from ._registry import op, register
from .._tensor import Tensor
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad


# ---- packed sequences ---------------------------------------------------------------------
def packed_positions(batch_sizes, batch):
    """Flat (time * batch + b) positions of the packed rows, in packed (time-major) order."""
    batch_sizes = np.asarray(batch_sizes)
    t = np.repeat(np.arange(len(batch_sizes)), batch_sizes)
    b = np.concatenate([np.arange(n) for n in batch_sizes]) if len(batch_sizes) else np.zeros(0, np.int64)
    return t * batch + b


@op("_pack_padded_sequence", public="_pack_padded_sequence")
def _pack_padded_sequence(input, lengths, batch_first):
    x = np.swapaxes(input, 0, 1) if batch_first else input
    lengths = np.asarray(lengths, np.int64).reshape(-1)
    if len(lengths) != x.shape[1]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                           f"(batch_size={x.shape[1]})")
    if (lengths <= 0).any():
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if (np.diff(lengths) > 0).any():
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                           "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    if lengths[0] > x.shape[0]:
        raise RuntimeError(f"Expected the longest sequence (length {lengths[0]}) to be at most the padded length "
                           f"{x.shape[0]}; pass lengths no larger than the input's time dimension")
    batch_sizes = (lengths[None, :] > np.arange(lengths[0])[:, None]).sum(1).astype(np.int64)
    rows = x.reshape((-1,) + x.shape[2:])
    return rows[packed_positions(batch_sizes, x.shape[1])], batch_sizes


LSTM_MODE = 2   # torch's RNN mode enum: RNN_RELU 0, RNN_TANH 1, LSTM 2, GRU 3


def _composite(input, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse):
    """(output, hy, cy) of one LSTM layer, composed from ndgrad ops."""
    from ..nn.modules.recurrent import _lstm_step, _run_full
    output, (hy, cy) = _run_full(_lstm_step, input, None, (hx, cx), (w_ih, w_hh, b_ih, b_hh, None), reverse)
    return output, hy, cy


@op("mkldnn_rnn_layer", public="mkldnn_rnn_layer", promote="same")
def mkldnn_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_, reverse, batch_sizes, mode, hidden_size,
                     num_layers, has_biases, bidirectional, batch_first, train):
    """(output (T, N, H), hy, cy, workspace) of one LSTM layer on input (T, N, I)."""
    if mode != LSTM_MODE or batch_first or len(batch_sizes):
        raise NotImplementedError("mkldnn_rnn_layer: ndgrad implements the LSTM mode on (T, N, I) inputs only")
    tensors = [Tensor._make(a, False, None, 0) for a in (input, weight0, weight1, weight2, weight3, hx_, cx_)]
    with no_grad():
        output, hy, cy = _composite(*tensors, reverse)
    return output._data, hy._data, cy._data, np.zeros(0, np.uint8)


@register()
def _lstm_layer_backward(grads, input, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse):
    """Gradients of mkldnn_rnn_layer's output, hy and cy with respect to its seven tensor inputs."""
    from .. import autograd
    create = is_grad_enabled()   # the engine runs formulas with grad mode on only for create_graph
    leaves = [t if create and t.requires_grad else t.detach().requires_grad_()
              for t in (input, w_ih, w_hh, b_ih, b_hh, hx, cx)]
    with enable_grad():
        outputs = _composite(*leaves, reverse)
    used = [(o, g) for o, g in zip(outputs, grads[:3]) if g is not None]
    return autograd.grad([o for o, _ in used], leaves, [g for _, g in used], create_graph=create, allow_unused=True)
