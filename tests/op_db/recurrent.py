"""Registry entries for the fused LSTM layer and packed sequences (ndgrad/ops/recurrent.py; see op_db/__init__.py for the format)."""
from . import OpInfo, S


def rnn(T):
    return T.nn.utils.rnn


# input (T=3, N=2, I=3), w_ih (4H, I), w_hh (4H, H), b_ih, b_hh, h0 (N, H), c0 (N, H) with H = 2
LAYER = [S(3, 2, 3), S(8, 3), S(8, 2), S(8), S(8), S(2, 2), S(2, 2)]


def layer(reverse, output):
    def call(T, *tensors):
        return T.mkldnn_rnn_layer(*tensors, reverse, [], 2, 2, 1, True, False, False, True)[output]
    return call


PACK = [
    OpInfo("pack_padded_sequence", lambda T, x: rnn(T).pack_padded_sequence(x, T.tensor([3, 2, 2])).data,
           [S(3, 3, 2)], grad_fn="PackPaddedSequenceBackward0"),
    OpInfo("pack_padded_sequence_batch_first",
           lambda T, x: rnn(T).pack_padded_sequence(x, [3, 1], batch_first=True).data,
           [S(2, 4, 1)], grad_fn="PackPaddedSequenceBackward0"),
    OpInfo("pack_padded_sequence_unsorted", lambda T, x: rnn(T).pack_padded_sequence(
        x, [1, 3], enforce_sorted=False).data, [S(3, 2, 2)], grad_fn="PackPaddedSequenceBackward0"),
    OpInfo("pad_packed_sequence", lambda T, x: rnn(T).pad_packed_sequence(rnn(T).pack_padded_sequence(
        x, [1, 3, 2], batch_first=True, enforce_sorted=False), batch_first=True, padding_value=-1.0)[0],
        [S(3, 3, 2)], grad_fn="IndexSelectBackward0", forward_ad=False),
    OpInfo("pad_sequence", lambda T, a, b: rnn(T).pad_sequence([a, b], padding_value=0.5), [S(3, 2), S(1, 2)],
           grad_fn="torch::autograd::CopySlices"),
    OpInfo("pad_sequence_left_batch_first", lambda T, a, b: rnn(T).pad_sequence(
        [a, b], batch_first=True, padding_side="left"), [S(1), S(3)], grad_fn="torch::autograd::CopySlices"),
]

LSTM_LAYER = [OpInfo(f"mkldnn_rnn_layer_{'reverse_' if reverse else ''}{name}", layer(reverse, output), LAYER,
              grad_fn="MkldnnRnnLayerBackward0", torch_parity=False, forward_ad=False)
       for reverse in (False, True) for output, name in ((0, "output"), (1, "hy"), (2, "cy"))] + [
    OpInfo("mkldnn_rnn_layer_float32", layer(False, 0), [S(*s.shape, dtype="float32") for s in LAYER],
           grad_fn="MkldnnRnnLayerBackward0", check_grad=False, gradgrad=False, atol=1e-5, rtol=1e-4,
           forward_ad=False),
]

OPS = PACK + LSTM_LAYER

# ---- api: the single-step cells (composites of linear and pointwise ops, as in torch)
OPS += [
    OpInfo("lstm_cell", lambda T, x, h, c, wi, wh, b: T.lstm_cell(x, (h, c), wi, wh, b, b)[0],
           [S(2, 4), S(2, 3), S(2, 3), S(12, 4), S(12, 3), S(12)], grad_fn="MulBackward0"),
    OpInfo("lstm_cell_c", lambda T, x, h, c, wi, wh: T.lstm_cell(x, (h, c), wi, wh)[1],
           [S(2, 4), S(2, 3), S(2, 3), S(12, 4), S(12, 3)], grad_fn="AddBackward0"),
    OpInfo("gru_cell", lambda T, x, h, wi, wh, b: T.gru_cell(x, h, wi, wh, b, b),
           [S(2, 4), S(2, 3), S(9, 4), S(9, 3), S(9)], grad_fn="AddBackward0"),
    OpInfo("rnn_tanh_cell", lambda T, x, h, wi, wh: T.rnn_tanh_cell(x, h, wi, wh), [S(2, 4), S(2, 3), S(3, 4), S(3, 3)],
           grad_fn="TanhBackward0"),
    OpInfo("rnn_relu_cell", lambda T, x, h, wi, wh: T.rnn_relu_cell(x, h, wi, wh), [S(2, 4), S(2, 3), S(3, 4), S(3, 3)],
           grad_fn="ReluBackward0"),
]
