"""Recurrent-network ops: mkldnn_rnn_layer, one LSTM layer over a whole sequence as a single op (the
node torch's CPU LSTM records, MkldnnRnnLayerBackward0, for float32 inputs), and
_pack_padded_sequence (packed sequences; the rest is in ndgrad/nn/utils_rnn.py).

mkldnn_rnn_layer runs on arrays: the input projection of every time step in one call, then per
step one matmul and a few in-place ufuncs into preallocated buffers. Like torch's, its workspace
output carries what the backward reads (the gate activations and cell states, as bytes); the
backward (_lstm_layer_backward, the yaml formula) is backpropagation through time on those arrays,
the weight and input gradients computed for the whole sequence after the loop. Whole-sequence
products are stacks of per-step products (numpy's batched matmul): each is small enough that BLAS
keeps it on one thread, where splitting the whole product over two threads costs more in handoff
than it saves (many times more on a busy machine). With create_graph the backward instead
recomputes the layer from nn/rnn.py's composed LSTM step with grad mode on and differentiates
that, so the gradients are themselves differentiable.
"""

import numpy as np

from .. import _dtype
from . import _fused
from ._registry import op, register
from ._schema import Parser
from ._scratch import buffer
from .activation import relu
from .creation import zeros
from .dropout import dropout as _dropout
from .linalg import linear
from .pointwise import tanh
from .shape import cat, stack, unsafe_split
from .._tensor import Tensor
from ..autograd.engine import vjp
from ..autograd.grad_mode import enable_grad, is_grad_enabled


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
    output, (hy, cy) = _run_full(_lstm_step, input, None, (hx, cx), (w_ih, w_hh, b_ih, b_hh, None), reverse)
    return output, hy, cy


def _lstm_buffers(workspace, steps, batch, hidden):
    """The gate activations (T, N, 4H: sigmoid(i), sigmoid(f), tanh(g), sigmoid(o)), cell states
    (T, N, H) and tanh of the cell states (T, N, H), as views of one flat workspace array."""
    gates, cells = steps * batch * 4 * hidden, steps * batch * hidden
    return (workspace[:gates].reshape(steps, batch, 4 * hidden),
            workspace[gates:gates + cells].reshape(steps, batch, hidden),
            workspace[gates + cells:].reshape(steps, batch, hidden))


@op("mkldnn_rnn_layer", public="mkldnn_rnn_layer", promote="same")
def mkldnn_rnn_layer(input, weight0, weight1, weight2, weight3, hx_, cx_, reverse, batch_sizes, mode, hidden_size,
                     num_layers, has_biases, bidirectional, batch_first, train):
    """One LSTM layer over a whole sequence (torch's oneDNN kernel; here computed step by step with NumPy).

    Args:
        input (Tensor): the sequence, (T, N, I).
        weight0 (Tensor): the input weights, (4H, I).
        weight1 (Tensor): the hidden weights, (4H, H).
        weight2 (Tensor): the input bias, (4H,).
        weight3 (Tensor): the hidden bias, (4H,).
        hx_ (Tensor): the initial hidden state, (N, H).
        cx_ (Tensor): the initial cell state, (N, H).
        reverse (bool): run the sequence backwards.
        batch_sizes (list of int): must be empty (packed sequences are not supported here).
        mode (int): torch's RNN mode number; only 2 (LSTM) is implemented.
        hidden_size (int): H.
        num_layers (int): the number of layers of the whole RNN.
        has_biases (bool): whether the biases are used.
        bidirectional (bool): whether the whole RNN is bidirectional.
        batch_first (bool): must be ``False``: `input` is (T, N, I).
        train (bool): training mode.

    Returns:
        (Tensor, Tensor, Tensor, Tensor): the output (T, N, H), the last hidden and cell states and a workspace.

    Example::

        >>> w = [torch.zeros(4, 2), torch.zeros(4, 1), torch.zeros(4), torch.zeros(4)]
        >>> out = torch.mkldnn_rnn_layer(torch.ones(3, 1, 2), *w, torch.zeros(1, 1), torch.ones(1, 1),
        ...                              False, [], 2, 1, 1, True, False, False, False)
        >>> out[0].shape
        torch.Size([3, 1, 1])
    """
    if mode != LSTM_MODE or batch_first or len(batch_sizes):
        raise NotImplementedError("mkldnn_rnn_layer: ndgrad implements the LSTM mode on (T, N, I) inputs only")
    steps, batch = input.shape[:2]
    hidden = weight1.shape[1]
    dtype = np.result_type(input, weight0, weight1, weight2, weight3, hx_, cx_)
    # sigmoid(x) = tanh(x / 2) / 2 + 1/2: one tanh over all four gates per step, the halving folded
    # into the weights and biases (exact: a power of two). `scale` halves the sigmoid gates'
    # pre-activations, `shift` then maps their tanh to the sigmoid; the g gate (tanh) passes unchanged.
    scale = np.full(4 * hidden, 0.5, dtype)
    scale[2 * hidden:3 * hidden] = 1
    shift = 1 - scale
    # the input projection of every step in one call; per step only the recurrent product remains
    igates = np.matmul(input, np.multiply(weight0.T, scale, order="C"),
                       out=buffer("lstm_igates", (steps, batch, 4 * hidden), dtype))
    igates += (weight2 + weight3) * scale
    w_hh = np.multiply(weight1.T, scale, order="C")   # (H, 4H) row-major: BLAS's fast layout for h @ w_hh
    workspace = np.empty(steps * batch * 6 * hidden, dtype)
    acts, cells, tanh_cells = _lstm_buffers(workspace, steps, batch, hidden)
    output = np.empty((steps, batch, hidden), dtype)
    i_g = buffer("lstm_i_g", (batch, hidden), dtype)
    # every step's views made before the loop: indexing inside it costs as much as a small ufunc
    views = zip(acts, igates, *(acts[:, :, k * hidden:(k + 1) * hidden] for k in range(4)), cells, tanh_cells,
                output)
    h, c = hx_, cx_
    fused = _fused.kernels(workspace, hx_, cx_, igates, w_hh)
    for a, ig, i, f, g, o, c_new, tanh_c, out in (reversed(list(views)) if reverse else views):
        np.matmul(h, w_hh, out=a)
        a += ig
        np.tanh(a, out=a)
        if fused is not None:   # the same operations, in one compiled pass
            fused.lstm_gates(a, scale, shift, c, c_new)
        else:
            a *= scale
            a += shift
            np.multiply(f, c, out=c_new)
            np.multiply(i, g, out=i_g)
            c_new += i_g
        np.tanh(c_new, out=tanh_c)
        h = np.multiply(o, tanh_c, out=out)
        c = c_new
    return output, h.copy(), c.copy(), workspace.view(np.uint8)


def _step_links(reverse):
    """(steps, their previous steps, the first step) as indices into a (T, ...) sequence, the previous
    step in processing order: what each step started from is seq[previous], or the initial state for
    the first step. Kernels index with these instead of building the shifted sequence."""
    return (slice(None, -1), slice(1, None), -1) if reverse else (slice(1, None), slice(None, -1), 0)


def _lstm_layer_bptt(grads, input, w_ih, w_hh, hx, cx, reverse, output, workspace, needed=(True,) * 7):
    """The seven gradients of mkldnn_rnn_layer on arrays, from its saved output and workspace (None
    for the input's gradient where `needed` says no one reads it: a first layer's input)."""
    steps, batch = input.shape[:2]
    hidden = w_hh.shape[1]
    acts, cells, tanh_cells = _lstm_buffers(workspace.view(output.dtype), steps, batch, hidden)
    d_out, d_hy, d_cy = grads
    dtype = output.dtype
    here, previous, first = _step_links(reverse)
    # whole-sequence factors: d(gate)/d(pre-activation) times what each gate multiplies; and dc per dh,
    # through h = o tanh(c)
    factors = buffer("lstm_factors", acts.shape, dtype)
    d_cell_out = buffer("lstm_cell_out", tanh_cells.shape, dtype)
    if (fused := _fused.kernels(acts, cells, tanh_cells, cx, factors)) is not None:   # (the same operations, one pass)
        fused.lstm_back_factors(acts, cells, tanh_cells, cx, reverse, dtype.type(1), factors, d_cell_out)
    else:
        deriv = np.subtract(1, acts, out=buffer("lstm_deriv", acts.shape, dtype))
        deriv *= acts
        g = acts[:, :, 2 * hidden:3 * hidden]
        np.multiply(g, g, out=deriv[:, :, 2 * hidden:3 * hidden])
        np.subtract(1, deriv[:, :, 2 * hidden:3 * hidden], out=deriv[:, :, 2 * hidden:3 * hidden])
        for k, part in enumerate((g, None, acts[:, :, :hidden], tanh_cells)):
            gate, out = deriv[:, :, k * hidden:(k + 1) * hidden], factors[:, :, k * hidden:(k + 1) * hidden]
            if part is None:   # the forget gate multiplies the previous cell state
                np.multiply(cells[previous], gate[here], out=out[here])
                np.multiply(cx, gate[first], out=out[first])
            else:
                np.multiply(part, gate, out=out)
        np.multiply(tanh_cells, tanh_cells, out=d_cell_out)
        np.subtract(1, d_cell_out, out=d_cell_out)
        d_cell_out *= acts[:, :, 3 * hidden:]
    factors = factors.reshape(steps, batch, 4, hidden)
    d_pre = buffer("lstm_d_pre", (steps, batch, 4, hidden), dtype)
    # dh and dc live in buffers updated in place; dc is (N, 1, H) to broadcast over the i, f, g gates
    dh = np.zeros_like(hx) if d_hy is None else d_hy.copy()
    dc_gates = np.zeros((batch, 1, hidden), dtype)
    dc = dc_gates[:, 0]
    if d_cy is not None:
        dc[...] = d_cy
    dh_dc = buffer("lstm_dh_dc", dh.shape, dtype)
    views = list(zip(factors[:, :, :3], factors[:, :, 3], d_cell_out, acts[:, :, hidden:2 * hidden],
                     d_pre[:, :, :3], d_pre[:, :, 3], d_pre.reshape(steps, batch, 4 * hidden),
                     [None] * steps if d_out is None else d_out))
    later = None   # the pre-activation gradient of the step processed just after this one
    fused = _fused.kernels(d_pre, dh, factors, *(() if d_out is None else (d_out,)))
    no_dout = np.empty((0, 0), dtype)
    for f_ifg, f_o, dc_dh, forget, d_ifg, d_o, d_flat, dout in (views if reverse else reversed(views)):
        if later is not None:
            np.matmul(later, w_hh, out=dh)
        if fused is not None:   # the same operations, in one compiled pass
            fused.lstm_back_step(dh, no_dout if dout is None else dout, dc_dh, dc, f_ifg, f_o, forget, d_ifg, d_o)
            later = d_flat
            continue
        if dout is not None:
            dh += dout
        np.multiply(dh, dc_dh, out=dh_dc)
        dc += dh_dc
        np.multiply(f_ifg, dc_gates, out=d_ifg)
        np.multiply(f_o, dh, out=d_o)
        dc *= forget
        later = d_flat
    if later is not None:   # (an empty sequence leaves d_hy)
        dh = np.matmul(later, w_hh)
    d_pre = d_pre.reshape(steps, batch, 4 * hidden)
    d_pre_t = d_pre.transpose(0, 2, 1)
    d_bias = d_pre.sum((0, 1))

    def weight_grad(x, x0=None):   # the per-step products d_pre[t]^T x[t], summed over the steps
        products = buffer("lstm_products", (steps, 4 * hidden, x.shape[2]), dtype)
        if x0 is None:
            np.matmul(d_pre_t, x, out=products)
        else:   # x[t] is the previous step's output, x0 for the first step
            np.matmul(d_pre_t[here], x[previous], out=products[here])
            np.matmul(d_pre_t[first], x0, out=products[first])
        return products.sum(0)
    return (np.matmul(d_pre, w_ih) if needed[0] else None, weight_grad(input), weight_grad(output, hx), d_bias,
            d_bias.copy(), dh, dc.copy())


@register()
def _lstm_layer_backward(grads, input, w_ih, w_hh, b_ih, b_hh, hx, cx, reverse, output, workspace,
                         grad_input_mask=(True,) * 7):
    """Gradients of mkldnn_rnn_layer's output, hy and cy with respect to its seven tensor inputs."""
    create = is_grad_enabled()   # the engine runs formulas with grad mode on only for create_graph
    if not create:
        arrays = _lstm_layer_bptt([None if g is None else g._array for g in grads[:3]], input._array, w_ih._array,
                                  w_hh._array, hx._array, cx._array, reverse, output._array, workspace._array,
                                  grad_input_mask)
        return tuple(None if a is None else Tensor._make(a, False, None, 0) for a in arrays)
    leaves = [t if t.requires_grad else t.detach().requires_grad_() for t in (input, w_ih, w_hh, b_ih, b_hh, hx, cx)]
    with enable_grad():
        outputs = _composite(*leaves, reverse)
    used = [(o, g) for o, g in zip(outputs, grads[:3]) if g is not None]
    return tuple(vjp([o for o, _ in used], leaves, [g for _, g in used], create_graph=True))


# ---- RNN, LSTM and GRU layers composed from ops (nn.RNN/LSTM/GRU and their cells run these) -------
# ---- one time step ------------------------------------------------------------------------
# `igates` is the input projection linear(x, w_ih, b_ih), computed by the caller (a cell computes it
# per call, a layer once for the whole sequence); `hx` the hidden state (LSTM: (h, c)).
def _rnn_step(activation):
    def step(igates, hx, w_hh, b_hh, w_hr=None):
        return activation(linear(hx, w_hh, b_hh) + igates)
    return step


def _lstm_step(igates, hx, w_hh, b_hh, w_hr=None):
    h, c = hx
    gates = linear(h, w_hh, b_hh) + igates
    i, f, g, o = unsafe_split(gates, gates.shape[1] // 4, 1)
    cy = f.sigmoid() * c + i.sigmoid() * g.tanh()
    hy = o.sigmoid() * cy.tanh()
    return (hy if w_hr is None else linear(hy, w_hr)), cy


def _gru_step(igates, hx, w_hh, b_hh, w_hr=None):
    hgates = linear(hx, w_hh, b_hh)
    size = hgates.shape[1] // 3
    i_r, i_z, i_n = unsafe_split(igates, size, 1)
    h_r, h_z, h_n = unsafe_split(hgates, size, 1)
    reset = (h_r + i_r).sigmoid()
    update = (h_z + i_z).sigmoid()
    new = (i_n + h_n * reset).tanh()
    return (hx - new) * update + new


_STEPS = {"RNN_TANH": _rnn_step(tanh), "RNN_RELU": _rnn_step(relu), "LSTM": _lstm_step, "GRU": _gru_step}


def _hidden(hx):
    """The output part of a hidden state (h of LSTM's (h, c))."""
    return hx[0] if isinstance(hx, tuple) else hx


# ---- the layers ---------------------------------------------------------------------------


def _map_state(hx, fn):
    return tuple(fn(h) for h in hx) if isinstance(hx, tuple) else fn(hx)


def _run_full(step, data, batch_sizes, h, weights, reverse):
    """One layer and direction over a (seq, batch, features) sequence."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    igates = linear(data, w_ih, b_ih).unbind(0)
    outputs = []
    for t in (reversed(range(len(igates))) if reverse else range(len(igates))):
        h = step(igates[t], h, w_hh, b_hh, w_hr)
        outputs.append(_hidden(h))
    if reverse:
        outputs.reverse()
    return stack(outputs, 0), h


def _run_packed(step, data, batch_sizes, h0, weights, reverse):
    """One layer and direction over packed data: at step t only the first batch_sizes[t] sequences
    (the longest ones) advance; the others keep the hidden state they ended with."""
    w_ih, w_hh, b_ih, b_hh, w_hr = weights
    igates = linear(data, w_ih, b_ih)
    starts = [0]
    for b in batch_sizes:
        starts.append(starts[-1] + b)
    steps = range(len(batch_sizes))
    outputs = [None] * len(batch_sizes)
    if not reverse:
        h, done = h0, []          # done: final states of sequences that have ended, latest first
        for t in steps:
            n = batch_sizes[t]
            if n < _rows(h):
                done.insert(0, _map_state(h, lambda s: s[n:]))
                h = _map_state(h, lambda s: s[:n])
            h = step(igates[starts[t]:starts[t + 1]], h, w_hh, b_hh, w_hr)
            outputs[t] = _hidden(h)
        final = _map_state_cat([h] + done)
    else:
        h = _map_state(h0, lambda s: s[:batch_sizes[-1]])
        for t in reversed(steps):
            n = batch_sizes[t]
            if n > _rows(h):   # sequences that start (from their end) at this step join with h0
                h = _map_state_cat([h, _map_state(h0, lambda s: s[_rows(h):n])])
            h = step(igates[starts[t]:starts[t + 1]], h, w_hh, b_hh, w_hr)
            outputs[t] = _hidden(h)
        final = h
    return cat(outputs, 0), final


def _rows(h):
    return _hidden(h).shape[0]


def _map_state_cat(states):
    if len(states) == 1:
        return states[0]
    if isinstance(states[0], tuple):
        return tuple(cat([s[i] for s in states], 0) for i in range(len(states[0])))
    return cat(states, 0)


# ---- all layers and directions (nn.RNN/LSTM/GRU and the functional torch.lstm... run this) --------
def _run_layers(mode, data, batch_sizes, hx, weights, num_layers, dropout, train, bidirectional):
    """(output, final states) of every layer and direction over (seq, batch, features) data, or over
    packed data given `batch_sizes` (a list of int). hx: the initial states, (layers * directions, batch,
    H) (LSTM: a pair); weights: (w_ih, w_hh, b_ih, b_hh, w_hr) per layer and direction, None where
    absent. As torch's CPU kernels: a float32 LSTM without projection runs each layer and direction as
    mkldnn_rnn_layer (selecting its states), other RNNs unbind the states and step through the layer."""
    step = _STEPS[mode]
    directions = 2 if bidirectional else 1
    finals = []
    fused = batch_sizes is None and mode == "LSTM" and weights[0][4] is None and data.dtype == _dtype.float32
    initial = hx if fused else _map_state(hx, lambda h: h.unbind(0))
    for layer in range(num_layers):
        if layer and dropout and train:
            data = _dropout(data, dropout, True)
        outputs = []
        for direction in range(directions):
            k = layer * directions + direction
            h0 = tuple(h[k] for h in initial) if isinstance(hx, tuple) else initial[k]
            if fused:
                out, final = _fused_layer(data, h0, weights[k], direction == 1, num_layers, bidirectional, train)
            else:
                run = _run_packed if batch_sizes is not None else _run_full
                out, final = run(step, data, batch_sizes, h0, weights[k], reverse=direction == 1)
            outputs.append(out)
            finals.append(final)
        data = outputs[0] if directions == 1 else cat(outputs, data.dim() - 1)
    return data, finals


def _fused_layer(data, h0, weights, reverse, num_layers, bidirectional, train):
    w_ih, w_hh, b_ih, b_hh, _ = weights
    has_biases = b_ih is not None
    if not has_biases:   # the op always takes biases
        b_ih = b_hh = zeros(w_ih.shape[0], dtype=w_ih.dtype)
    out, hy, cy, _ = mkldnn_rnn_layer(data, w_ih, w_hh, b_ih, b_hh, h0[0], h0[1], reverse, [], LSTM_MODE,
                                      w_hh.shape[1], num_layers, has_biases, bidirectional, False, train)
    return out, (hy, cy)


# ---- api: the functional RNNs, torch's ATen ops behind nn.RNN/LSTM/GRU. Each has two overloads: a
# padded (seq, batch, features) input (batch first with batch_first), or packed data with its batch
# sizes. params is the flat list of weights, per layer and direction (w_ih, w_hh[, b_ih, b_hh][, w_hr]).
def _rnn_parser(name, hx):
    common = "Tensor[] params, bool has_biases, int num_layers, float dropout, bool train, bool bidirectional"
    return Parser(f"{name}(Tensor data, Tensor batch_sizes, {hx} hx, {common})",
                  f"{name}(Tensor input, {hx} hx, {common}, bool batch_first)")


_lstm_args, _gru_args = _rnn_parser("lstm", "Tensor[]"), _rnn_parser("gru", "Tensor")
_rnn_tanh_args, _rnn_relu_args = _rnn_parser("rnn_tanh", "Tensor"), _rnn_parser("rnn_relu", "Tensor")


def _functional_rnn(mode, parser, args, kwargs):
    which, values = parser.parse(args, kwargs)
    if which == 0:
        data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional = values
        batch_sizes, batch_first = [int(b) for b in batch_sizes.tolist()], False
    else:
        data, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = values
        batch_sizes = None
        if data.dim() < 3:   # torch's kernel reads a dimension the input lacks
            n = data.dim()
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {n})")
    if data.dim() != (2 if which == 0 else 3):
        expected = "packed data (rows, features)" if which == 0 else "an input (seq, batch, features)"
        raise RuntimeError(f"{mode.lower()}: expected {expected}, got a {data.dim()}-D tensor")
    if mode == "LSTM":
        if len(hx) != 2:
            raise RuntimeError("lstm expects two hidden states")
        hx = tuple(hx)
    projections = mode == "LSTM" and hx[0].shape[-1] != hx[1].shape[-1]   # as torch: h narrower than c
    stride = 2 + 2 * bool(has_biases) + projections
    if len(params) % stride:
        raise RuntimeError(f"MatrixRef: ArrayRef size {len(params)} not divisible by stride {stride}")
    directions = 2 if bidirectional else 1
    if len(params) != stride * num_layers * directions:
        raise RuntimeError(f"{mode.lower()}: expected {stride * num_layers * directions} parameters "
                           f"({num_layers} layers, {directions} directions), got {len(params)}")
    weights = []
    for k in range(0, len(params), stride):
        group = list(params[k:k + stride])
        w_hr = group.pop() if projections else None
        weights.append((group[0], group[1], *(group[2:] if has_biases else (None, None)), w_hr))
    if batch_first:   # the fused LSTM layer takes a contiguous sequence-major input
        fused = mode == "LSTM" and not projections and data.dtype == _dtype.float32
        data = data.transpose(0, 1).contiguous() if fused else data.transpose(0, 1)
    output, finals = _run_layers(mode, data, batch_sizes, hx, weights, num_layers, dropout, train, bidirectional)
    if batch_first:   # as torch: RNN and GRU transpose their output in place, LSTM does not
        output = output.transpose(0, 1) if mode == "LSTM" else output.transpose_(0, 1)
    if mode == "LSTM":
        return output, stack([f[0] for f in finals], 0), stack([f[1] for f in finals], 0)
    return output, stack(finals, 0)


@register()
@_lstm_args.signature
def lstm(*args, **kwargs):
    """A multi-layer LSTM over a whole sequence, as :class:`ndgrad.nn.LSTM` runs it: ``lstm(input, hx, params,
    has_biases, num_layers, dropout, train, bidirectional, batch_first)``, or over packed data:
    ``lstm(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train, bidirectional)``.

    Args:
        input (Tensor): the sequence, (L, N, I) ((N, L, I) with `batch_first`); or `data` (packed rows) and
            `batch_sizes` (int64 Tensor, as in :class:`ndgrad.nn.utils.rnn.PackedSequence`).
        hx (list of Tensor): the initial hidden and cell states, each (layers * directions, N, H) (the hidden
            state narrower with projections).
        params (list of Tensor): per layer and direction ``w_ih, w_hh[, b_ih, b_hh][, w_hr]``.
        has_biases (bool): whether `params` holds biases.
        num_layers (int): the number of layers.
        dropout (float): the dropout probability between layers (with `train`).
        train (bool): training mode.
        bidirectional (bool): whether each layer also runs backwards.
        batch_first (bool): the layout of `input` and the output.

    Returns:
        (Tensor, Tensor, Tensor): the output (of the last layer, every step), the last hidden and cell states.

    Example::

        >>> w = [torch.zeros(4, 2), torch.zeros(4, 1)]
        >>> out, h, c = torch.lstm(torch.ones(3, 1, 2), [torch.zeros(1, 1, 1), torch.ones(1, 1, 1)], w,
        ...                        False, 1, 0.0, False, False, False)
        >>> out.shape, c
        (torch.Size([3, 1, 1]), tensor([[[0.1250]]]))
    """
    return _functional_rnn("LSTM", _lstm_args, args, kwargs)


@register()
@_gru_args.signature
def gru(*args, **kwargs):
    """A multi-layer GRU over a whole sequence, as :class:`ndgrad.nn.GRU` runs it; the arguments are those of
    :func:`ndgrad.lstm` but `hx` is one Tensor, (layers * directions, N, H), and ``params`` has no ``w_hr``.

    Returns:
        (Tensor, Tensor): the output and the last hidden state.

    Example::

        >>> out, h = torch.gru(torch.ones(3, 1, 2), torch.ones(1, 1, 1), [torch.zeros(3, 2), torch.zeros(3, 1)],
        ...                    False, 1, 0.0, False, False, False)
        >>> h
        tensor([[[0.1250]]])
    """
    return _functional_rnn("GRU", _gru_args, args, kwargs)


@register()
@_rnn_tanh_args.signature
def rnn_tanh(*args, **kwargs):
    """A multi-layer Elman RNN with tanh, as :class:`ndgrad.nn.RNN` runs it; the arguments are those of
    :func:`ndgrad.gru` (``params``: ``w_ih, w_hh[, b_ih, b_hh]`` per layer and direction).

    Example::

        >>> out, h = torch.rnn_tanh(torch.ones(2, 1, 1), torch.zeros(1, 1, 1), [torch.ones(1, 1), torch.ones(1, 1)],
        ...                         False, 1, 0.0, False, False, False)
        >>> out
        tensor([[[0.7616]],
        <BLANKLINE>
                [[0.9427]]])
    """
    return _functional_rnn("RNN_TANH", _rnn_tanh_args, args, kwargs)


@register()
@_rnn_relu_args.signature
def rnn_relu(*args, **kwargs):
    """A multi-layer Elman RNN with ReLU, as :class:`ndgrad.nn.RNN` (``nonlinearity='relu'``) runs it; the
    arguments are those of :func:`ndgrad.rnn_tanh`.

    Example::

        >>> out, h = torch.rnn_relu(torch.ones(2, 1, 1), torch.zeros(1, 1, 1), [torch.ones(1, 1), torch.ones(1, 1)],
        ...                         False, 1, 0.0, False, False, False)
        >>> h
        tensor([[[2.]]])
    """
    return _functional_rnn("RNN_RELU", _rnn_relu_args, args, kwargs)


# ---- api: torch's single-step cells: the gates composed from linear and pointwise ops, as torch does
def _gates(input, hx, w_ih, w_hh, b_ih, b_hh):
    return linear(input, w_ih, b_ih) + linear(hx, w_hh, b_hh)


@register()
def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One step of an LSTM cell (as :class:`ndgrad.nn.LSTMCell` computes it): the next hidden and cell states.

    Args:
        input (Tensor): the input, (N, I).
        hx (tuple of Tensor): the hidden and cell states, each (N, H).
        w_ih (Tensor): the input weights, (4H, I).
        w_hh (Tensor): the hidden weights, (4H, H).
        b_ih (Tensor, optional): the input bias, (4H,).
        b_hh (Tensor, optional): the hidden bias, (4H,).

    Returns:
        (Tensor, Tensor): the next hidden state and cell state.

    Example::

        >>> h, c = torch.lstm_cell(torch.ones(1, 2), (torch.zeros(1, 1), torch.ones(1, 1)),
        ...                        torch.zeros(4, 2), torch.zeros(4, 1))
        >>> h, c
        (tensor([[0.2311]]), tensor([[0.5000]]))
    """
    h, c = hx
    i, f, g, o = _gates(input, h, w_ih, w_hh, b_ih, b_hh).chunk(4, 1)
    cy = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * cy.tanh(), cy


@register()
def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One step of a GRU cell (as :class:`ndgrad.nn.GRUCell` computes it): the next hidden state.

    Args:
        input (Tensor): the input, (N, I).
        hx (Tensor): the hidden state, (N, H).
        w_ih (Tensor): the input weights, (3H, I).
        w_hh (Tensor): the hidden weights, (3H, H).
        b_ih (Tensor, optional): the input bias, (3H,).
        b_hh (Tensor, optional): the hidden bias, (3H,).

    Returns:
        Tensor: the next hidden state, (N, H).

    Example::

        >>> h = torch.gru_cell(torch.ones(1, 2), torch.zeros(1, 1), torch.zeros(3, 2), torch.zeros(3, 1))
        >>> h
        tensor([[0.]])
    """
    ir, iz, in_ = linear(input, w_ih, b_ih).chunk(3, 1)
    hr, hz, hn = linear(hx, w_hh, b_hh).chunk(3, 1)
    r, z = (ir + hr).sigmoid(), (iz + hz).sigmoid()
    n = tanh(in_ + r * hn)
    return n + z * (hx - n)


@register()
def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return tanh(_gates(input, hx, w_ih, w_hh, b_ih, b_hh))


@register()
def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    return relu(_gates(input, hx, w_ih, w_hh, b_ih, b_hh))
