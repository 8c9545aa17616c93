"""MultiheadAttention and the transformer layers against torch: the same weights (through
state_dict) and inputs give the same outputs, attention weights and gradients; with the weights
returned, MultiheadAttention records torch's graph node for node."""
import numpy as np
import pytest

import ndgrad
from test_nn_modules import to_torch
from test_nn_recurrent import float64, graph  # noqa: F401  (float64: an autouse fixture)

try:
    import torch
except ImportError:  # parity tests skip without the oracle
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
rng = np.random.default_rng(0)
X = rng.standard_normal((5, 2, 8))
Y = rng.standard_normal((3, 2, 8))
CAUSAL = np.triu(np.ones((5, 5), bool), 1)
PADDING = np.array([[False] * 5, [False, False, False, True, True]])


def compare(make, call, *inputs, same_graph=False, tol=1e-9):
    """call(module, lib, *tensors) -> tensor or tuple; outputs, input and weight gradients agree."""
    m, tm = make(ndgrad), make(torch)
    to_torch(m, tm)
    assert repr(m) == repr(tm)
    results = []
    for lib, mod in ((ndgrad, m), (torch, tm)):
        xs = [lib.tensor(x, requires_grad=True) for x in inputs]
        out = call(mod, lib, *xs)
        outs = [o for o in (out if isinstance(out, tuple) else (out,)) if o is not None]
        sum((o * o).sum() * (i + 1) for i, o in enumerate(outs)).backward()
        results.append((outs, [x.grad for x in xs], {n: p.grad for n, p in mod.named_parameters()}))
    (outs, grads, pgrads), (touts, tgrads, tpgrads) = results
    assert len(outs) == len(touts)
    for a, b in zip(outs + grads, touts + tgrads):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)
    for name, g in pgrads.items():
        np.testing.assert_allclose(g.numpy(), tpgrads[name].numpy(), rtol=tol, atol=tol)
    if same_graph:
        assert graph(outs[0]) == graph(touts[0])


def self_attention(**options):
    return lambda m, lib, x: m(x, x, x, **{k: lib.tensor(v) if isinstance(v, np.ndarray) else v
                                           for k, v in options.items()})


@needs_torch
@pytest.mark.parametrize("kwargs", [{}, {"batch_first": True}, {"bias": False}, {"add_bias_kv": True},
                                    {"add_zero_attn": True}], ids=str)
def test_self_attention_with_weights_matches_torch_graph(kwargs):
    compare(lambda T: T.nn.MultiheadAttention(8, 2, **kwargs), self_attention(), X, same_graph=True)


@needs_torch
@pytest.mark.parametrize("options", [{"attn_mask": CAUSAL}, {"key_padding_mask": PADDING},
                                     {"attn_mask": CAUSAL.astype(float) * -3.0, "key_padding_mask": PADDING},
                                     {"average_attn_weights": False}, {"need_weights": False},
                                     {"need_weights": False, "attn_mask": CAUSAL, "key_padding_mask": PADDING}],
                         ids=["causal", "padding", "float-mask", "per-head", "no-weights", "no-weights-masks"])
def test_masks_and_weight_options(options):
    compare(lambda T: T.nn.MultiheadAttention(8, 2), self_attention(**options), X)


@needs_torch
def test_cross_attention_and_separate_key_value_sizes():
    compare(lambda T: T.nn.MultiheadAttention(8, 2), lambda m, lib, q, kv: m(q, kv, kv), X, Y, same_graph=True)
    compare(lambda T: T.nn.MultiheadAttention(8, 4, kdim=3, vdim=5), lambda m, lib, q, k, v: m(q, k, v),
            X, rng.standard_normal((3, 2, 3)), rng.standard_normal((3, 2, 5)))


@needs_torch
def test_unbatched_attention():
    compare(lambda T: T.nn.MultiheadAttention(8, 2), self_attention(), X[:, 0], same_graph=True)


def encoder(T, layers=2, **kwargs):
    layer = T.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **kwargs)
    return T.nn.TransformerEncoder(layer, layers, norm=T.nn.LayerNorm(8), enable_nested_tensor=False)


@needs_torch
@pytest.mark.parametrize("kwargs", [{}, {"norm_first": True, "activation": "gelu", "batch_first": True}], ids=str)
def test_transformer_encoder_matches_torch(kwargs):
    compare(lambda T: encoder(T, **kwargs), lambda m, lib, x: m(x), X)


@needs_torch
def test_transformer_encoder_masks():
    def call(m, lib, x):
        return m(x, mask=lib.tensor(CAUSAL), src_key_padding_mask=lib.tensor(PADDING))
    compare(lambda T: encoder(T, 1), call, X)


@needs_torch
def test_transformer_matches_torch():
    def call(m, lib, src, tgt):
        return m(src, tgt, tgt_mask=m.generate_square_subsequent_mask(3))
    compare(lambda T: T.nn.Transformer(8, 2, 1, 1, 16, dropout=0.0), call, X, Y)


def test_causal_mask_and_default_init():
    mask = ndgrad.nn.Transformer.generate_square_subsequent_mask(3)
    assert mask.tolist() == [[0.0, -np.inf, -np.inf], [0.0, 0.0, -np.inf], [0.0, 0.0, 0.0]]
    m = ndgrad.nn.MultiheadAttention(8, 2)
    assert m.in_proj_bias.abs().sum().item() == 0 and m.out_proj.bias.abs().sum().item() == 0
    assert m.in_proj_weight.abs().max().item() <= (6 / (8 + 24)) ** 0.5


def test_attention_errors():
    with pytest.raises(AssertionError, match="divisible by num_heads"):
        ndgrad.nn.MultiheadAttention(8, 3)
    m = ndgrad.nn.MultiheadAttention(8, 2)
    x = ndgrad.zeros(5, 2, 8)
    with pytest.raises(RuntimeError, match="Need attn_mask if specifying the is_causal hint"):
        m(x, x, x, is_causal=True)
    with pytest.raises(RuntimeError, match="2D attn_mask"):
        m(x, x, x, attn_mask=ndgrad.zeros(4, 4))


def test_dropout_in_attention_only_in_training():
    ndgrad.manual_seed(0)
    m = ndgrad.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.5)
    x = ndgrad.tensor(X)
    m.eval()
    assert ndgrad.equal(m(x), m(x))
    m.train()
    assert not ndgrad.equal(m(x), m(x))


@needs_torch
def test_encoder_inference_with_padding_zeroes_padded_positions_like_torch():
    """torch's eval-mode, no-grad encoder runs on a nested tensor and pads the result with zeros."""
    def build(T):
        layer = T.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
        return T.nn.TransformerEncoder(layer, 2, norm=T.nn.LayerNorm(8)).eval()
    m, tm = build(ndgrad), build(torch)
    to_torch(m, tm)
    x, padding = X.transpose(1, 0, 2), PADDING
    with ndgrad.no_grad():
        y = m(ndgrad.tensor(x), src_key_padding_mask=ndgrad.tensor(padding))
    with torch.no_grad():
        ty = tm(torch.tensor(x), src_key_padding_mask=torch.tensor(padding))
    np.testing.assert_allclose(y.numpy(), ty.numpy(), rtol=1e-9, atol=1e-9)


def test_encoder_warns_when_the_nested_path_is_off():
    with pytest.warns(UserWarning, match="use_nested_tensor is False because encoder_layer.self_attn.batch_first"):
        ndgrad.nn.TransformerEncoder(ndgrad.nn.TransformerEncoderLayer(8, 2, 16), 1)
