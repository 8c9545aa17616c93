"""Registry entries for mkldnn_rnn_layer, torch's fused CPU LSTM layer (format: op_db/__init__.py).
torch runs it on float32 only, so the float64 samples (gradcheck, gradgradcheck) skip the parity;
the entry has no forward-mode formula (forward_ad=False)."""
from . import S, OpInfo

# input (T=3, N=2, I=3), w_ih (4H, I), w_hh (4H, H), b_ih, b_hh, h0 (N, H), c0 (N, H) with H = 2
LAYER = [S(3, 2, 3), S(8, 3), S(8, 2), S(8), S(8), S(2, 2), S(2, 2)]


def layer(reverse, output):
    def call(T, *tensors):
        return T.mkldnn_rnn_layer(*tensors, reverse, [], 2, 2, 1, True, False, False, True)[output]
    return call


OPS = [OpInfo(f"mkldnn_rnn_layer_{'reverse_' if reverse else ''}{name}", layer(reverse, output), LAYER,
              grad_fn="MkldnnRnnLayerBackward0", torch_parity=False, forward_ad=False)
       for reverse in (False, True) for output, name in ((0, "output"), (1, "hy"), (2, "cy"))] + [
    OpInfo("mkldnn_rnn_layer_float32", layer(False, 0), [S(*s.shape, dtype="float32") for s in LAYER],
           grad_fn="MkldnnRnnLayerBackward0", check_grad=False, gradgrad=False, atol=1e-5, rtol=1e-4,
           forward_ad=False),
]
