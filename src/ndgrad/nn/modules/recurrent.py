"""Recurrent layers (RNN, LSTM, GRU) and their cells, composed from ndgrad ops.

The cells are torch's composite CPU cells op for op (addmm, unsafe_split, sigmoid, tanh...), so
RNNCell/LSTMCell/GRUCell record torch's graph. The layers follow torch's CPU layer loop: one input
projection for the whole sequence (unbound into steps), one cell step per time step, outputs
stacked, so RNN and GRU record torch's graph too. A float32 LSTM without projection runs each
layer and direction as one op, as torch does (mkldnn_rnn_layer, ops/rnn.py: MkldnnRnnLayerBackward0).
Packed sequences (nn.utils.rnn.PackedSequence) run the same steps on the shrinking batch.
"""
import math

from ... import _dtype
from ...ops.creation import empty, zeros
from ...ops.recurrent import _STEPS, _gru_step, _lstm_step, _map_state, _run_layers
from ...ops.shape import stack
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module
from ..utils.rnn import PackedSequence

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


class RNNBase(Module):
    """The base of `RNN`, `LSTM` and `GRU`: holds the per-layer weights and runs a (packed or padded)
    sequence through the layers. Build one of the subclasses rather than this class.

    Args:
        mode (str): ``'RNN_TANH'``, ``'RNN_RELU'``, ``'LSTM'`` or ``'GRU'``.
        input_size, hidden_size, num_layers, bias, batch_first, dropout, bidirectional, proj_size: as
            for `LSTM`.
        device: only the CPU.
        dtype: the dtype of the parameters (default: the default float dtype).

    Example::

        >>> rnn = torch.nn.GRU(4, 8)
        >>> isinstance(rnn, torch.nn.RNNBase), rnn.mode
        (True, 'GRU')
    """
    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be an integer greater than zero" if isinstance(hidden_size, int)
                             else f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode, self.input_size, self.hidden_size, self.num_layers = mode, input_size, hidden_size, num_layers
        self.bias, self.batch_first, self.dropout = bias, batch_first, float(dropout)
        self.bidirectional, self.proj_size = bidirectional, proj_size
        directions = 2 if bidirectional else 1
        out_size = proj_size or hidden_size
        dt = dtype if dtype is not None else _dtype.get_default_dtype()
        gate_size = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                layer_in = input_size if layer == 0 else out_size * directions
                shapes = [("weight_ih", (gate_size, layer_in)), ("weight_hh", (gate_size, out_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                if proj_size:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for name, shape in shapes:
                    setattr(self, name + suffix, Parameter(empty(*shape, dtype=dt)))
                    self._flat_weights_names.append(name + suffix)
        self.reset_parameters()

    def reset_parameters(self):
        bound = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -bound, bound)

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in self._layer_names(layer, d)]
                for layer in range(self.num_layers) for d in range(2 if self.bidirectional else 1)]

    def _layer_names(self, layer, direction):
        suffix = f"_l{layer}" + ("_reverse" if direction else "")
        names = ["weight_ih", "weight_hh"] + (["bias_ih", "bias_hh"] if self.bias else [])
        return [n + suffix for n in names] + (["weight_hr" + suffix] if self.proj_size else [])

    def _weights(self, layer, direction):
        """(w_ih, w_hh, b_ih, b_hh, w_hr) of one layer and direction; missing ones are None."""
        suffix = f"_l{layer}" + ("_reverse" if direction else "")
        return tuple(getattr(self, n + suffix, None) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh",
                                                               "weight_hr"))

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            text += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            text += f", num_layers={self.num_layers}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if self.batch_first is not False:
            text += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            text += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            text += f", bidirectional={self.bidirectional}"
        return text

    # --- forward --------------------------------------------------------------------------
    def _initial_state(self, hx, batch, dtype):
        directions = 2 if self.bidirectional else 1
        layers = self.num_layers * directions
        out_size = self.proj_size or self.hidden_size
        if hx is None:
            h = zeros(layers, batch, out_size, dtype=dtype)
            return (h, zeros(layers, batch, self.hidden_size, dtype=dtype)) if self.mode == "LSTM" else h
        expected = [(layers, batch, out_size)] + ([(layers, batch, self.hidden_size)] if self.mode == "LSTM" else [])
        states = hx if self.mode == "LSTM" else (hx,)
        if self.mode == "LSTM" and not (isinstance(hx, tuple) and len(hx) == 2):
            raise RuntimeError("LSTM: hx must be a tuple (h_0, c_0) of two tensors")
        for state, shape, name in zip(states, expected, ("hidden", "cell")):
            if tuple(state.shape) != shape:
                what = "Expected hidden size" if name == "hidden" else "Expected hidden[1] size"
                raise RuntimeError(f"{what} {shape}, got {list(state.shape)}")
        return hx

    def flatten_parameters(self):
        """Packs the weights for cuDNN in torch; on the CPU (ndgrad's only device) torch does nothing either."""

    def forward(self, input, hx=None):
        packed = isinstance(input, PackedSequence)
        if packed:
            data, batch_sizes = input.data, [int(b) for b in input.batch_sizes.tolist()]
            batch = batch_sizes[0]
            if hx is not None and input.sorted_indices is not None:   # hx follows the user's batch order
                hx = _map_state(hx, lambda h: h.index_select(1, input.sorted_indices))
        else:
            if input.dim() not in (2, 3):
                raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.dim()}D "
                                 "tensor instead")
            unbatched = input.dim() == 2
            if unbatched:
                input = input.unsqueeze(1)
                if hx is not None:
                    hx = _map_state(hx, lambda h: h.unsqueeze(1))
            elif self.batch_first:   # the fused LSTM layer takes a contiguous sequence-major input
                input = input.transpose(0, 1).contiguous() if self._fused(input) else input.transpose(0, 1)
            if input.shape[-1] != self.input_size:
                raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                                   f"got {input.shape[-1]}")
            if input.shape[0] == 0:
                raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
            batch, batch_sizes = input.shape[1], None
            data = input
        hx = self._initial_state(hx, batch, data.dtype)
        output, finals = self._run(data, batch_sizes, hx)
        if self.mode == "LSTM":
            h_n = stack([f[0] for f in finals], 0), stack([f[1] for f in finals], 0)
        else:
            h_n = stack(finals, 0)
        if packed:
            if input.unsorted_indices is not None:
                h_n = _map_state(h_n, lambda h: h.index_select(1, input.unsorted_indices))
            return PackedSequence(output, input.batch_sizes, input.sorted_indices, input.unsorted_indices), h_n
        if unbatched:
            return output.squeeze(1), _map_state(h_n, lambda h: h.squeeze(1))
        if self.batch_first:   # as torch: RNN and GRU transpose their output in place, LSTM does not
            output = output.transpose(0, 1) if self.mode == "LSTM" else output.transpose_(0, 1)
        return output, h_n

    def _fused(self, data):
        """Whether the layers run as torch's fused CPU LSTM op (mkldnn_rnn_layer): float32, no projection."""
        return self.mode == "LSTM" and not self.proj_size and data.dtype == _dtype.float32

    def _run(self, data, batch_sizes, hx):
        """All layers; data is (seq, batch, features) or packed (sum(batch_sizes), features)."""
        directions = 2 if self.bidirectional else 1
        weights = [self._weights(layer, d) for layer in range(self.num_layers) for d in range(directions)]
        return _run_layers(self.mode, data, batch_sizes, hx, weights, self.num_layers, self.dropout, self.training,
                           self.bidirectional)


class RNN(RNNBase):
    """RNN(input_size, hidden_size, num_layers=1, nonlinearity='tanh', bias=True, batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None)

    An Elman recurrent network of one or more layers: at each step,
    ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ReLU).

    Args:
        input_size (int): the number of features of the input `x`.
        hidden_size (int): the number of features of the hidden state `h`.
        num_layers (int): the number of stacked layers, each fed the previous one's output. Default: ``1``.
        nonlinearity (str): ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.
        bias (bool): use the biases `b_ih` and `b_hh`. Default: ``True``.
        batch_first (bool): the input and output are `(N, L, H)` rather than `(L, N, H)` (not the
            hidden states). Default: ``False``.
        dropout (float): dropout on the outputs of every layer but the last, in training. Default: ``0``.
        bidirectional (bool): run a second set of layers over the reversed sequence, and concatenate.
            Default: ``False``.

    Shape:
        input: `(L, N, H_in)`, `(N, L, H_in)` with `batch_first`, `(L, H_in)` unbatched, or a
            `PackedSequence`.
        h_0: `(num_layers * D, N, H_out)` (or without `N` unbatched), the initial hidden
            state; zeros if not given.
        output: `(L, N, D * H_out)` (or batch first), the last layer's features at each step,
            ``D = 2`` if bidirectional else 1.
        h_n: `(num_layers * D, N, H_out)`, the final hidden state of every layer.

    Attributes:
        weight_ih_l0 (Tensor): the input weights of layer 0, `(hidden_size, input_size)`; layer ``k``
            has ``weight_ih_lk``, the reverse direction ``weight_ih_lk_reverse``.
        weight_hh_l0 (Tensor): the hidden weights of layer 0, `(hidden_size, H_out)`.
        bias_ih_l0 (Tensor): the input bias of layer 0, `(hidden_size)`.
        bias_hh_l0 (Tensor): the hidden bias of layer 0, `(hidden_size)`; all the weights and biases are
            initialised from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> rnn = torch.nn.RNN(10, 20, num_layers=2)
        >>> x = torch.randn(5, 3, 10)
        >>> output, h_n = rnn(x)
        >>> output.shape, h_n.shape
        (torch.Size([5, 3, 20]), torch.Size([2, 3, 20]))
    """
    def __init__(self, *args, nonlinearity="tanh", **kwargs):
        if len(args) > 3:   # torch's positional order: input_size, hidden_size, num_layers, nonlinearity, ...
            args, nonlinearity = args[:3] + args[4:], args[3]
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)


class LSTM(RNNBase):
    """LSTM(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None)

    A long short-term memory network of one or more layers: at each step the input, forget, cell and
    output gates ``i, f, g, o`` (sigmoid, sigmoid, tanh, sigmoid of
    ``x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh``) update the cell state ``c_t = f * c_{t-1} + i * g``
    and the hidden state ``h_t = o * tanh(c_t)``.

    Args:
        input_size (int): the number of features of the input `x`.
        hidden_size (int): the number of features of the hidden state `h`.
        num_layers (int): the number of stacked layers, each fed the previous one's output. Default: ``1``.
        bias (bool): use the biases `b_ih` and `b_hh`. Default: ``True``.
        batch_first (bool): the input and output are `(N, L, H)` rather than `(L, N, H)` (not the
            hidden states). Default: ``False``.
        dropout (float): dropout on the outputs of every layer but the last, in training. Default: ``0``.
        bidirectional (bool): run a second set of layers over the reversed sequence, and concatenate.
            Default: ``False``.
        proj_size (int): if positive, the hidden state is projected to this size (`weight_hr_l[k]`), so
            that `H_out` is `proj_size`. Default: ``0``.

    Shape:
        input: `(L, N, H_in)`, `(N, L, H_in)` with `batch_first`, `(L, H_in)` unbatched, or a
            `PackedSequence`.
        h_0: a tuple `(h_0, c_0)` of shapes `(num_layers * D, N, H_out)` and
            `(num_layers * D, N, hidden_size)`; zeros if not given.
        output: `(L, N, D * H_out)` (or batch first), the last layer's features at each step,
            ``D = 2`` if bidirectional else 1.
        h_n: the tuple `(h_n, c_n)` of the final hidden and cell states of every layer.

    Attributes:
        weight_ih_l0 (Tensor): the input weights of layer 0, `(4 * hidden_size, input_size)` (gates i, f, g, o); layer ``k``
            has ``weight_ih_lk``, the reverse direction ``weight_ih_lk_reverse``.
        weight_hh_l0 (Tensor): the hidden weights of layer 0, `(4 * hidden_size, H_out)`.
        bias_ih_l0 (Tensor): the input bias of layer 0, `(4 * hidden_size)`.
        bias_hh_l0 (Tensor): the hidden bias of layer 0, `(4 * hidden_size)`; all the weights and biases are
            initialised from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> rnn = torch.nn.LSTM(10, 20, num_layers=2)
        >>> x = torch.randn(5, 3, 10)
        >>> output, (h_n, c_n) = rnn(x)
        >>> output.shape, h_n.shape, c_n.shape
        (torch.Size([5, 3, 20]), torch.Size([2, 3, 20]), torch.Size([2, 3, 20]))
    """
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """GRU(input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None)

    A gated recurrent unit network of one or more layers: at each step the reset and update gates
    ``r, z`` give ``n = tanh(W_in x_t + b_in + r * (W_hn h_{t-1} + b_hn))`` and
    ``h_t = (1 - z) * n + z * h_{t-1}``.

    Args:
        input_size (int): the number of features of the input `x`.
        hidden_size (int): the number of features of the hidden state `h`.
        num_layers (int): the number of stacked layers, each fed the previous one's output. Default: ``1``.
        bias (bool): use the biases `b_ih` and `b_hh`. Default: ``True``.
        batch_first (bool): the input and output are `(N, L, H)` rather than `(L, N, H)` (not the
            hidden states). Default: ``False``.
        dropout (float): dropout on the outputs of every layer but the last, in training. Default: ``0``.
        bidirectional (bool): run a second set of layers over the reversed sequence, and concatenate.
            Default: ``False``.

    Shape:
        input: `(L, N, H_in)`, `(N, L, H_in)` with `batch_first`, `(L, H_in)` unbatched, or a
            `PackedSequence`.
        h_0: `(num_layers * D, N, H_out)` (or without `N` unbatched), the initial hidden
            state; zeros if not given.
        output: `(L, N, D * H_out)` (or batch first), the last layer's features at each step,
            ``D = 2`` if bidirectional else 1.
        h_n: `(num_layers * D, N, H_out)`, the final hidden state of every layer.

    Attributes:
        weight_ih_l0 (Tensor): the input weights of layer 0, `(3 * hidden_size, input_size)` (gates r, z, n); layer ``k``
            has ``weight_ih_lk``, the reverse direction ``weight_ih_lk_reverse``.
        weight_hh_l0 (Tensor): the hidden weights of layer 0, `(3 * hidden_size, H_out)`.
        bias_ih_l0 (Tensor): the input bias of layer 0, `(3 * hidden_size)`.
        bias_hh_l0 (Tensor): the hidden bias of layer 0, `(3 * hidden_size)`; all the weights and biases are
            initialised from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> rnn = torch.nn.GRU(10, 20, num_layers=2)
        >>> x = torch.randn(5, 3, 10)
        >>> output, h_n = rnn(x)
        >>> output.shape, h_n.shape
        (torch.Size([5, 3, 20]), torch.Size([2, 3, 20]))
    """
    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


# ---- cells --------------------------------------------------------------------------------
class RNNCellBase(Module):
    """The base of `RNNCell`, `LSTMCell` and `GRUCell`: one step of a recurrent network, with the
    weights `weight_ih` `(num_chunks * hidden_size, input_size)` and `weight_hh`
    `(num_chunks * hidden_size, hidden_size)`. Build one of the subclasses rather than this class.

    Args:
        input_size (int): the number of features of the input.
        hidden_size (int): the number of features of the hidden state.
        bias (bool): use the biases `bias_ih` and `bias_hh`.
        num_chunks (int): the number of gates (1, 3 or 4).

    Example::

        >>> cell = torch.nn.LSTMCell(4, 8)
        >>> isinstance(cell, torch.nn.RNNCellBase), cell.weight_ih.shape
        (True, torch.Size([32, 4]))
    """
    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        dt = dtype if dtype is not None else _dtype.get_default_dtype()
        self.weight_ih = Parameter(empty(num_chunks * hidden_size, input_size, dtype=dt))
        self.weight_hh = Parameter(empty(num_chunks * hidden_size, hidden_size, dtype=dt))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, dtype=dt))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, dtype=dt))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters

    def extra_repr(self):
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def _step(self, input, hx, step, state_like):
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")
        unbatched = input.dim() == 1
        if unbatched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _map_state(state_like, lambda z: zeros(input.shape[0], self.hidden_size, dtype=input.dtype))
        elif unbatched:
            hx = _map_state(hx, lambda h: h.unsqueeze(0))
        out = step(F.linear(input, self.weight_ih, self.bias_ih), hx, self.weight_hh, self.bias_hh)
        return _map_state(out, lambda h: h.squeeze(0)) if unbatched else out


class RNNCell(RNNCellBase):
    """One step of an Elman recurrent network: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or ReLU).

    Args:
        input_size (int): the number of features of the input.
        hidden_size (int): the number of features of the hidden state.
        bias (bool): use the biases `bias_ih` and `bias_hh`. Default: ``True``.
        nonlinearity (str): ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.

    Shape:
        input: `(N, H_in)` or `(H_in)`.
        hidden: `(N, hidden_size)` or `(hidden_size)`; zeros if not given.
        h': `(N, hidden_size)` or `(hidden_size)`, the next hidden state.

    Attributes:
        weight_ih (Tensor): the input weights, `(hidden_size, input_size)`.
        weight_hh (Tensor): the hidden weights, `(hidden_size, hidden_size)`.
        bias_ih (Tensor): the input bias, `(hidden_size)`.
        bias_hh (Tensor): the hidden bias, `(hidden_size)`; all initialised from
            ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> cell = torch.nn.RNNCell(10, 20)
        >>> x = torch.randn(6, 3, 10)
        >>> h = torch.zeros(3, 20)
        >>> for t in range(6):
        ...     h = cell(x[t], h)
        >>> h.shape
        torch.Size([3, 20])
    """
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)

    def forward(self, input, hx=None):
        return self._step(input, hx, _STEPS["RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU"], None)


class LSTMCell(RNNCellBase):
    """One step of an LSTM: the gates ``i, f, g, o`` update the cell state ``c' = f * c + i * g`` and the
    hidden state ``h' = o * tanh(c')``.

    Args:
        input_size (int): the number of features of the input.
        hidden_size (int): the number of features of the hidden state.
        bias (bool): use the biases `bias_ih` and `bias_hh`. Default: ``True``.

    Shape:
        input: `(N, H_in)` or `(H_in)`.
        (h_0, c_0): two tensors `(N, hidden_size)` or `(hidden_size)`; zeros if not given.
        (h_1, c_1): the next hidden and cell states, of the same shapes.

    Attributes:
        weight_ih (Tensor): the input weights, `(4 * hidden_size, input_size)`.
        weight_hh (Tensor): the hidden weights, `(4 * hidden_size, hidden_size)`.
        bias_ih (Tensor): the input bias, `(4 * hidden_size)`.
        bias_hh (Tensor): the hidden bias, `(4 * hidden_size)`; all initialised from
            ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> cell = torch.nn.LSTMCell(10, 20)
        >>> x = torch.randn(6, 3, 10)
        >>> h, c = torch.zeros(3, 20), torch.zeros(3, 20)
        >>> for t in range(6):
        ...     h, c = cell(x[t], (h, c))
        >>> h.shape, c.shape
        (torch.Size([3, 20]), torch.Size([3, 20]))
    """
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        return self._step(input, hx, _lstm_step, (None, None))


class GRUCell(RNNCellBase):
    """One step of a GRU: the reset and update gates ``r, z`` give
    ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))`` and ``h' = (1 - z) * n + z * h``.

    Args:
        input_size (int): the number of features of the input.
        hidden_size (int): the number of features of the hidden state.
        bias (bool): use the biases `bias_ih` and `bias_hh`. Default: ``True``.

    Shape:
        input: `(N, H_in)` or `(H_in)`.
        hidden: `(N, hidden_size)` or `(hidden_size)`; zeros if not given.
        h': `(N, hidden_size)` or `(hidden_size)`, the next hidden state.

    Attributes:
        weight_ih (Tensor): the input weights, `(3 * hidden_size, input_size)`.
        weight_hh (Tensor): the hidden weights, `(3 * hidden_size, hidden_size)`.
        bias_ih (Tensor): the input bias, `(3 * hidden_size)`.
        bias_hh (Tensor): the hidden bias, `(3 * hidden_size)`; all initialised from
            ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``.

    Example::

        >>> _ = torch.manual_seed(0)
        >>> cell = torch.nn.GRUCell(10, 20)
        >>> x = torch.randn(6, 3, 10)
        >>> h = torch.zeros(3, 20)
        >>> for t in range(6):
        ...     h = cell(x[t], h)
        >>> h.shape
        torch.Size([3, 20])
    """
    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        return self._step(input, hx, _gru_step, None)


__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
