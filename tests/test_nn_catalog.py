"""Every layer, activation, pooling, normalization and loss module against torch.nn, one table:
the same constructor arguments give the same repr and (with the weights copied through
state_dict) the same outputs, input gradients and parameter gradients; modules with running
statistics are also compared after a training step in eval mode."""
import warnings

import numpy as np
import pytest

import ndgrad
from test_nn_modules import close, to_torch

try:
    import torch
except ImportError:  # parity tests skip without the oracle
    torch = None

pytestmark = pytest.mark.skipif(torch is None, reason="torch is not installed")
rng = np.random.default_rng(0)


def F(*shape):
    return rng.standard_normal(shape)


def P(*shape):   # positive
    return rng.uniform(0.2, 2.0, shape)


def U(*shape):   # in (0, 1)
    return rng.uniform(0.05, 0.95, shape)


def L(high, *shape):   # integer labels
    return rng.integers(0, high, shape)


def S(*shape):   # signs
    return C(rng.choice([-1.0, 1.0], shape))


class C(np.ndarray):
    """A float input that does not require grad (a target)."""
    def __new__(cls, array):
        return np.asarray(array).view(cls)


# (module name, constructor args, constructor kwargs, inputs); float inputs require grad
LAYERS = [
    ("Hardsigmoid", (), {}, [F(3, 4) * 4]), ("Hardswish", (), {}, [F(3, 4) * 4]), ("Mish", (), {}, [F(3, 4)]),
    ("LogSigmoid", (), {}, [F(3, 4)]), ("Softsign", (), {}, [F(3, 4)]), ("Tanhshrink", (), {}, [F(3, 4)]),
    ("Hardshrink", (0.3,), {}, [F(3, 4)]), ("Softshrink", (), {}, [F(3, 4)]), ("GLU", (), {"dim": 1}, [F(3, 4)]),
    ("Softmax2d", (), {}, [F(2, 3, 2, 2)]), ("ChannelShuffle", (2,), {}, [F(2, 6, 2, 3)]),
    ("PReLU", (), {}, [F(3, 4)]), ("PReLU", (4,), {"init": 0.1}, [F(2, 4, 3)]),
    ("Conv1d", (2, 4, 3), {"stride": 2, "padding": 1}, [F(2, 2, 7)]),
    ("Conv2d", (2, 4, 3), {"padding": "same", "dilation": 2, "bias": False}, [F(1, 2, 5, 5)]),
    ("Conv2d", (4, 4, (2, 3)), {"groups": 2, "stride": (1, 2)}, [F(2, 4, 4, 5)]),
    ("Conv3d", (1, 2, 2), {}, [F(1, 1, 3, 3, 3)]),
    ("ConvTranspose1d", (2, 3, 3), {"stride": 2, "output_padding": 1}, [F(2, 2, 4)]),
    ("ConvTranspose2d", (2, 4, 3), {"stride": 2, "padding": 1, "groups": 2}, [F(1, 2, 3, 3)]),
    ("ConvTranspose3d", (1, 2, 2), {"dilation": 2}, [F(1, 1, 2, 2, 2)]),
    ("Fold", (), {"output_size": (3, 4), "kernel_size": 2}, [F(2, 8, 6)]),
    ("Unfold", (), {"kernel_size": 2, "padding": 1}, [F(2, 2, 3, 3)]),
    ("MaxPool1d", (2,), {}, [F(2, 3, 6)]), ("MaxPool2d", (3,), {"stride": 2, "padding": 1}, [F(1, 2, 5, 5)]),
    ("MaxPool3d", (2,), {"ceil_mode": True}, [F(1, 1, 3, 3, 3)]),
    ("AvgPool1d", (3,), {"stride": 1, "padding": 1}, [F(2, 3, 5)]),
    ("AvgPool2d", (2,), {"count_include_pad": False, "padding": 1}, [F(1, 2, 4, 4)]),
    ("AvgPool3d", (2,), {"divisor_override": 3}, [F(1, 1, 4, 4, 4)]),
    ("AdaptiveAvgPool1d", (3,), {}, [F(2, 3, 7)]), ("AdaptiveAvgPool2d", ((2, 3),), {}, [F(1, 2, 5, 7)]),
    ("AdaptiveAvgPool3d", (2,), {}, [F(1, 1, 3, 4, 5)]), ("AdaptiveMaxPool1d", (3,), {}, [F(2, 3, 7)]),
    ("AdaptiveMaxPool2d", (2,), {}, [F(1, 2, 5, 5)]), ("AdaptiveMaxPool3d", (2,), {}, [F(1, 1, 3, 4, 5)]),
    ("LPPool1d", (2, 3), {}, [F(2, 3, 6)]), ("LPPool2d", (1.5, 2), {}, [P(1, 2, 4, 4)]),
    ("LPPool3d", (2, 2), {}, [F(1, 1, 4, 4, 4)]),
    ("BatchNorm1d", (3,), {}, [F(4, 3)]), ("BatchNorm1d", (3,), {"affine": False, "momentum": None}, [F(4, 3, 5)]),
    ("BatchNorm2d", (2,), {"eps": 1e-3}, [F(3, 2, 2, 2)]), ("BatchNorm3d", (2,), {}, [F(2, 2, 2, 2, 2)]),
    ("InstanceNorm1d", (3,), {"affine": True}, [F(2, 3, 5)]), ("InstanceNorm2d", (2,), {}, [F(2, 2, 3, 3)]),
    ("InstanceNorm3d", (2,), {"track_running_stats": True}, [F(2, 2, 2, 2, 3)]),
    ("GroupNorm", (2, 4), {}, [F(2, 4, 3)]), ("GroupNorm", (1, 2), {"bias": False}, [F(2, 2, 3)]),
    ("BatchNorm2d", (2,), {"bias": False, "momentum": 0.3}, [F(3, 2, 2, 2)]),
    ("RMSNorm", ((3, 4),), {"eps": 1e-5}, [F(2, 3, 4)]),
    ("LayerNorm", (4,), {"bias": False}, [F(2, 3, 4)]),
    ("Embedding", (5, 3), {"padding_idx": 1}, [L(5, 2, 4)]),
    ("Embedding", (5, 3), {"max_norm": 1.0}, [L(5, 6)]),
    ("L1Loss", (), {}, [F(3, 4), F(3, 4)]), ("SmoothL1Loss", (), {"beta": 0.5}, [F(3, 4), F(3, 4)]),
    ("HuberLoss", (), {"delta": 0.7, "reduction": "sum"}, [F(3, 4), F(3, 4)]),
    ("SoftMarginLoss", (), {}, [F(3, 4), S(3, 4)]),
    ("MultiLabelMarginLoss", (), {}, [F(2, 4), np.array([[3, 0, -1, 1], [1, 2, 3, -1]])]),
    ("KLDivLoss", (), {"reduction": "batchmean"}, [F(3, 4), U(3, 4)]),
    ("KLDivLoss", (), {"log_target": True, "reduction": "sum"}, [F(3, 4), F(3, 4)]),
    ("BCELoss", (), {}, [U(3, 4), C(U(3, 4))]), ("BCELoss", (), {"reduction": "none"}, [U(3), C(U(3))]),
    ("BCEWithLogitsLoss", (), {}, [F(3, 4), U(3, 4)]),
    ("MultiLabelSoftMarginLoss", (), {}, [F(3, 4), C(rng.integers(0, 2, (3, 4)).astype(float))]),
    ("MultiMarginLoss", (), {"p": 2, "margin": 0.5}, [F(3, 4), L(4, 3)]),
    ("MarginRankingLoss", (), {"margin": 0.2}, [F(5), F(5), S(5)]),
    ("HingeEmbeddingLoss", (), {}, [F(3, 4), S(3, 4)]),
    ("CosineEmbeddingLoss", (), {"margin": 0.1}, [F(3, 4), F(3, 4), S(3)]),
    ("PoissonNLLLoss", (), {}, [F(3, 4), P(3, 4)]), ("PoissonNLLLoss", (), {"log_input": False, "full": True},
                                                     [P(3, 4), P(3, 4) * 3]),
    ("GaussianNLLLoss", (), {}, [F(3, 4), F(3, 4), P(3, 4)]),
    ("GaussianNLLLoss", (), {"full": True, "reduction": "sum"}, [F(3, 4), F(3, 4), P(3, 1)]),
]


def make(lib, name, args, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return getattr(lib.nn, name)(*args, **kwargs).double()


@pytest.mark.parametrize("name,args,kwargs,inputs", LAYERS, ids=[f"{e[0]}{i}" for i, e in enumerate(LAYERS)])
def test_module_matches_torch(name, args, kwargs, inputs):
    m, tm = make(ndgrad, name, args, kwargs), make(torch, name, args, kwargs)
    assert repr(m) == repr(tm)
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in tm.named_parameters()]
    assert list(m.state_dict()) == list(tm.state_dict())
    for p in m.parameters():   # nonzero, distinct values (torch's defaults may be ones and zeros)
        with ndgrad.no_grad():
            p.add_(ndgrad.randn(p.shape, dtype=p.dtype) * 0.1)
    to_torch(m, tm)
    results = []
    for lib, mod in ((ndgrad, m), (torch, tm)):
        xs = [lib.tensor(np.asarray(x), requires_grad=x.dtype.kind == "f" and not isinstance(x, C)) for x in inputs]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = mod(*xs)
        (y * lib.arange(1, y.numel() + 1, dtype=y.dtype).reshape(y.shape)).sum().backward()
        results.append((y, [x.grad for x in xs if x.requires_grad], dict(mod.named_parameters()), mod))
    (y, grads, params, _), (ty, tgrads, tparams, _) = results
    tol = 1e-7 if name == "Hardsigmoid" else 1e-9   # torch's double kernel rounds 1/6 to float
    close(y, ty, tol)
    for g, tg in zip(grads, tgrads):
        close(g, tg, tol)
    for n, p in params.items():
        if p.grad is not None or tparams[n].grad is not None:
            close(p.grad, tparams[n].grad, 1e-9)
    for (n, b), (tn, tb) in zip(m.named_buffers(), tm.named_buffers()):   # running statistics
        assert n == tn
        close(b, tb, 1e-9)
    if list(m.buffers()):
        m.eval()
        tm.eval()
        close(m(ndgrad.tensor(inputs[0])), tm(torch.tensor(inputs[0])), 1e-9)


@pytest.mark.parametrize("name", ["TransformerDecoderLayer", "TransformerDecoder"])
def test_transformer_decoder_matches_torch(name):
    def build(lib):
        layer = lib.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, norm_first=True)
        return layer.double() if name == "TransformerDecoderLayer" else lib.nn.TransformerDecoder(layer, 2).double()
    m, tm = build(ndgrad), build(torch)
    assert repr(m) == repr(tm)
    to_torch(m, tm)
    tgt, memory = F(3, 2, 8), F(4, 2, 8)
    mask = np.triu(np.ones((3, 3), bool), 1)
    outs = []
    for lib, mod in ((ndgrad, m), (torch, tm)):
        t, mem = lib.tensor(tgt, requires_grad=True), lib.tensor(memory, requires_grad=True)
        y = mod(t, mem, tgt_mask=lib.tensor(mask))
        (y * y).sum().backward()
        outs.append((y, t.grad, mem.grad))
    for a, b in zip(*outs):
        close(a, b, 1e-9)


@pytest.mark.parametrize("name", ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
                                  "FeatureAlphaDropout", "RReLU"])
def test_random_modules_identity_in_eval_and_random_in_training(name):
    m, tm = make(ndgrad, name, (), {}), make(torch, name, (), {})
    assert repr(m) == repr(tm)
    x = ndgrad.tensor(F(4, 3, 2, 2, 2) if "3d" in name else F(4, 3, 5, 5) if "2d" in name else F(4, 3, 8))
    m.eval()
    expected = ndgrad.nn.functional.leaky_relu(x, (1 / 8 + 1 / 3) / 2) if name == "RReLU" else x
    close(m(x), expected, 1e-12)
    m.train()
    assert not ndgrad.equal(m(x), m(x))
