"""RNN/LSTM/GRU and their cells against torch: the same weights (through state_dict) and inputs
give the same outputs, final states, input and weight gradients, and record torch's graph (in
float32, LSTM layers are torch's fused MkldnnRnnLayerBackward0 nodes; in float64 composed steps)."""
import numpy as np
import pytest

import ndgrad
from parity import same_error
from test_nn_modules import to_torch

try:
    import torch
except ImportError:  # parity tests skip without the oracle
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")
rng = np.random.default_rng(0)


def graph(t):
    """The node names of t's backward graph, depth first, each node once."""
    names, stack, seen = [], [t.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is not None and node not in seen:
            seen.add(node)
            names.append(type(node).__name__)
            stack.extend(n for n, _ in reversed(node.next_functions))
    return names


def run(module, lib, inputs):
    """Forward `inputs` (arrays; tuples are (h, c) states) and backward a loss on every output."""
    def wrap(x):
        return tuple(wrap(v) for v in x) if isinstance(x, tuple) else lib.tensor(x, requires_grad=True)
    xs = [wrap(x) for x in inputs]
    out = module(*xs)
    flat = [t for o in (out if isinstance(out, tuple) else (out,))
            for t in (o if isinstance(o, tuple) else (o,))]
    sum(((t * t).sum() * (i + 1) for i, t in enumerate(flat))).backward()
    leaves = [t for x in xs for t in (x if isinstance(x, tuple) else (x,))]
    return flat, [t.grad for t in leaves], {n: p.grad for n, p in module.named_parameters()}


def check(make, *inputs, same_graph=True, tol=1e-9):
    m, tm = make(ndgrad), make(torch)
    to_torch(m, tm)
    assert repr(m) == repr(tm)
    assert [n for n, _ in m.named_parameters()] == [n for n, _ in tm.named_parameters()]
    (outs, grads, pgrads), (touts, tgrads, tpgrads) = run(m, ndgrad, inputs), run(tm, torch, inputs)
    for a, b in zip(outs + grads, touts + tgrads):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)
    for name, g in pgrads.items():
        np.testing.assert_allclose(g.numpy(), tpgrads[name].numpy(), rtol=tol, atol=tol)
    if same_graph:
        assert graph(outs[0]) == graph(touts[0])


@pytest.fixture(autouse=True)
def float64():
    ndgrad.set_default_dtype(ndgrad.float64)
    if torch is not None:
        torch.set_default_dtype(torch.float64)
    yield
    ndgrad.set_default_dtype(ndgrad.float32)
    if torch is not None:
        torch.set_default_dtype(torch.float32)


X = rng.standard_normal((4, 2, 3))
H = rng.standard_normal((2, 5))


@needs_torch
@pytest.mark.parametrize("cell,kwargs", [("RNNCell", {}), ("RNNCell", {"nonlinearity": "relu", "bias": False}),
                                         ("GRUCell", {}), ("LSTMCell", {})], ids=str)
def test_cells_match_torch(cell, kwargs):
    state = (H, H * 0.5) if cell == "LSTMCell" else H
    check(lambda T: getattr(T.nn, cell)(3, 5, **kwargs), X[0], state)


@needs_torch
@pytest.mark.parametrize("cell", ["RNNCell", "GRUCell", "LSTMCell"])
def test_cells_unbatched_and_default_state(cell):
    check(lambda T: getattr(T.nn, cell)(3, 5), X[0, 0])


@needs_torch
@pytest.mark.parametrize("kwargs", [{}, {"num_layers": 2}, {"bidirectional": True, "batch_first": True},
                                    {"nonlinearity": "relu", "bias": False}], ids=str)
def test_rnn_matches_torch(kwargs):
    check(lambda T: T.nn.RNN(3, 5, **kwargs), X)


@needs_torch
@pytest.mark.parametrize("kwargs", [{}, {"num_layers": 2, "bidirectional": True}, {"batch_first": True}], ids=str)
def test_gru_matches_torch(kwargs):
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    batch = X.shape[0 if kwargs.get("batch_first") else 1]
    check(lambda T: T.nn.GRU(3, 5, **kwargs), X, rng.standard_normal((layers, batch, 5)))


@needs_torch
@pytest.mark.parametrize("kwargs", [{}, {"num_layers": 2, "bidirectional": True}, {"proj_size": 2},
                                    {"batch_first": True, "bias": False}], ids=str)
def test_lstm_matches_torch(kwargs):
    check(lambda T: T.nn.LSTM(3, 5, **kwargs), X)


@needs_torch
@pytest.mark.parametrize("kwargs", [{}, {"num_layers": 2, "bidirectional": True}, {"proj_size": 2},
                                    {"batch_first": True, "bias": False}], ids=str)
def test_float32_lstm_runs_torch_fused_layers(kwargs):
    ndgrad.set_default_dtype(ndgrad.float32)
    torch.set_default_dtype(torch.float32)
    check(lambda T: T.nn.LSTM(3, 5, **kwargs), X.astype(np.float32), tol=2e-5)


@needs_torch
def test_float32_fused_lstm_longer_sequence_with_states():
    """The array-level fused layer (whole-sequence input projection, BPTT on the saved workspace) on
    a longer sequence, both directions, given initial states: outputs, final states and gradients."""
    ndgrad.set_default_dtype(ndgrad.float32)
    torch.set_default_dtype(torch.float32)
    x = rng.standard_normal((9, 3, 4)).astype(np.float32)
    h0, c0 = (rng.standard_normal((4, 3, 8)).astype(np.float32) for _ in range(2))
    check(lambda T: T.nn.LSTM(4, 8, 2, bidirectional=True), x, (h0, c0), tol=5e-5)


@needs_torch
@pytest.mark.parametrize("frozen", ["input", "weights"])
def test_float32_fused_lstm_gradients_of_some_inputs_only(frozen):
    """The fused layer's backward skips the input gradient nobody reads (a first layer's input that
    does not require grad); the gradients it does compute stay torch's, and frozen weights get none."""
    ndgrad.set_default_dtype(ndgrad.float32)
    torch.set_default_dtype(torch.float32)
    x = rng.standard_normal((3, 6, 4)).astype(np.float32)   # batch first: 3 sequences of 6 steps
    h0 = rng.standard_normal((4, 3, 5)).astype(np.float32)
    modules = {ndgrad: ndgrad.nn.LSTM(4, 5, 2, bidirectional=True, batch_first=True),
               torch: torch.nn.LSTM(4, 5, 2, bidirectional=True, batch_first=True)}
    to_torch(modules[ndgrad], modules[torch])
    results = []
    for T, lstm in modules.items():
        xt = T.tensor(x, requires_grad=frozen == "weights")
        ht = T.tensor(h0, requires_grad=True)
        lstm.requires_grad_(frozen != "weights")
        out, (hn, cn) = lstm(xt, (ht, T.zeros(4, 3, 5)))
        ((out[:, -1] ** 2).sum() + hn.sum() + cn.sum()).backward()
        results.append([ht.grad, xt.grad] + [p.grad for _, p in lstm.named_parameters()])
    assert graph(out)[:2] == ["TransposeBackward0", "CatBackward0"]
    assert (results[0][1] is None) == (frozen == "input")
    assert (results[0][2] is None) == (frozen == "weights")
    for a, b in zip(*results):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-4, atol=2e-5)


@pytest.mark.parametrize("kind,dtype", [("LSTM", "float32"), ("LSTM", "float64"), ("GRU", "float32")])
def test_empty_sequence_is_refused_as_torch(kind, dtype):
    def call(T):
        getattr(T.nn, kind)(3, 4).to(getattr(T, dtype))(T.zeros(0, 2, 3, dtype=getattr(T, dtype)))
    assert same_error(call) == "Expected sequence length to be larger than 0 in RNN"


def test_fused_lstm_saves_its_output_as_torch():
    """The fused layer's backward reads its saved output (as torch's): modifying that output in place
    makes backward refuse, with torch's message."""
    ndgrad.set_default_dtype(ndgrad.float32)
    if torch is not None:
        torch.set_default_dtype(torch.float32)

    def call(T):
        out, _ = T.nn.LSTM(3, 4)(T.ones(5, 2, 3))
        out.mul_(2)
        out.sum().backward()
    message = same_error(call)
    assert "output 0 of MkldnnRnnLayer" in message


def test_fused_lstm_double_backward_matches_float64_composite():
    """create_graph through the fused float32 layer gives the gradient of the gradient that the
    composed float64 layer gives (the float32 backward recomputes the layer differentiably)."""
    ndgrad.set_default_dtype(ndgrad.float32)
    x = rng.standard_normal((5, 2, 3))
    grads = []
    for dtype in (np.float32, np.float64):
        ndgrad.manual_seed(0)
        lstm = ndgrad.nn.LSTM(3, 4).to(ndgrad.float64 if dtype == np.float64 else ndgrad.float32)
        xt = ndgrad.tensor(x.astype(dtype), requires_grad=True)
        out, _ = lstm(xt)
        assert (type(out.grad_fn).__name__ == "MkldnnRnnLayerBackward0") == (dtype == np.float32)
        g, = ndgrad.autograd.grad(out.pow(2).sum(), xt, create_graph=True)
        g.pow(2).sum().backward()
        grads.append(lstm.weight_hh_l0.grad.double().numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-4, atol=1e-5)


@needs_torch
def test_lstm_with_initial_state_and_unbatched_input():
    h0, c0 = rng.standard_normal((1, 5)), rng.standard_normal((1, 5))
    check(lambda T: T.nn.LSTM(3, 5), X[:, 0], (h0, c0))
    ndgrad.set_default_dtype(ndgrad.float32)
    torch.set_default_dtype(torch.float32)
    check(lambda T: T.nn.LSTM(3, 5, 2), X[:, 0].astype(np.float32), (np.ones((2, 5), np.float32),) * 2, tol=2e-5)


@needs_torch
@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_packed_unsorted_sequences_match_torch(kind):
    """pack_padded_sequence (batch_first, unsorted lengths) with an initial state, through 2
    bidirectional layers: padded outputs, final states and gradients as torch's."""
    from ndgrad.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
    from torch.nn.utils.rnn import pack_padded_sequence as t_pack, pad_packed_sequence as t_pad
    x, h0, lengths = rng.standard_normal((3, 5, 2)), rng.standard_normal((4, 3, 3)), [2, 5, 3]
    m, tm = (getattr(lib.nn, kind)(2, 3, num_layers=2, bidirectional=True, batch_first=True)
             for lib in (ndgrad, torch))
    to_torch(m, tm)
    results = []
    for lib, module, pack, pad in ((ndgrad, m, pack_padded_sequence, pad_packed_sequence),
                                   (torch, tm, t_pack, t_pad)):
        xs, hs = lib.tensor(x, requires_grad=True), lib.tensor(h0, requires_grad=True)
        out, h_n = module(pack(xs, lib.tensor(lengths), batch_first=True, enforce_sorted=False),
                          (hs, hs * 2) if kind == "LSTM" else hs)
        padded, _ = pad(out, batch_first=True)
        h = h_n[0] if kind == "LSTM" else h_n
        ((padded ** 2).sum() + (h ** 3).sum()).backward()
        results.append([padded, h, xs.grad, hs.grad])
    for a, b in zip(*results):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-9, atol=1e-12)


def test_dropout_between_layers_only_in_training():
    ndgrad.manual_seed(0)
    m = ndgrad.nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = ndgrad.tensor(X)
    m.eval()
    a, b = m(x)[0], m(x)[0]
    assert ndgrad.equal(a, b)
    m.train()
    assert not ndgrad.equal(m(x)[0], a)


def test_default_init_range_and_errors():
    m = ndgrad.nn.LSTM(3, 16)
    bound = 1 / 4
    assert all(p.abs().max().item() <= bound for p in m.parameters())
    with pytest.raises(ValueError, match="proj_size has to be smaller"):
        ndgrad.nn.LSTM(3, 4, proj_size=4)
    with pytest.raises(RuntimeError, match="input_size"):
        ndgrad.nn.RNN(3, 4)(ndgrad.zeros(2, 1, 5))
    with pytest.raises(RuntimeError, match="Expected hidden size"):
        ndgrad.nn.GRU(3, 4)(ndgrad.zeros(2, 1, 3), ndgrad.zeros(2, 1, 4))
